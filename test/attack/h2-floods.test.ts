// HTTP/2 floods (issue #29): rapid reset, uploads reset half-way, SETTINGS, PING, CONTINUATION and
// PRIORITY floods and connections that break the protocol, 8 s each on 4 connections that
// re-connect whenever the server ends one, as an ordinary user. Another client is served
// throughout, the server's memory and descriptors stay bounded, and a client resetting its
// uploads is not logged as a server error. Before the fixes: the rapid reset held another
// client's GET 2.5–2.8 s (handler-limit.ts); each reset upload logged an error with a stack (the
// 400 for it was written to a stream already gone); connections ended for a protocol error
// stayed open in CLOSE-WAIT (session-sweep.ts).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTarget, type Target } from './support/target.js';
import { expectServed } from './support/expect.js';
import { formatFlood, h2Flood, type Flood } from './scenarios/h2-floods.js';

/** The server's log lines at level error (50) or above. */
const errorLines = (log: string): string[] => log.split('\n').filter((l) => /"level":(5|6)\d/.test(l));

describe('HTTP/2 floods', () => {
  let server: Target;
  before(async () => {
    server = await startTarget();
  });
  after(async () => {
    await server?.stop();
  });

  for (const flood of ['rapid-reset', 'reset-uploads', 'settings', 'ping', 'continuation', 'priority', 'protocol-errors'] as Flood[]) {
    test(`${flood}: another client is served; memory and descriptors stay bounded; nothing is logged as an error`, { timeout: 120_000 }, async () => {
      const logBefore = server.log().length;
      const x = await h2Flood(server, { flood, durationMs: 8000 });
      console.log(formatFlood(x));
      if (flood === 'protocol-errors') assert.ok(x.opened >= 40, `only ${x.opened} connections were made`);
      else assert.ok(x.frames > 1000, `only ${x.frames} frames were sent`);
      expectServed(x, { p99DuringMs: 2000, p99AfterMs: 1000, rssGrowthMB: 100, fdsAfterOverBaseline: 5 });
      assert.deepEqual(errorLines(server.log().slice(logBefore)).slice(0, 3), [], 'a client going away is not a server error');
    });
  }
});
