// Slowloris (issue #29): 100 connections each sending a request a byte every 500 ms, held open;
// the server ends every one at its deadline (here --read-header-timeout 3s or --request-timeout
// 3s; kube's are 32 s and 60 s), answers a slow body 504, gives back the descriptors while the
// attacker still holds its ends, and serves another client throughout.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../e2e/harness.js';
import { expectServed } from './support/expect.js';
import { slowloris, type Slowloris } from './scenarios/slowloris.js';

/** Each kind against a server whose deadline for it is 3 s (the other deadline left as it is). */
const ARGS: Record<Slowloris, string[]> = {
  'http1-headers': ['--read-header-timeout', '3s'],
  'h2-headers': ['--read-header-timeout', '3s'],
  'http1-body': ['--request-timeout', '3s'],
  'h2-body': ['--request-timeout', '3s'],
};

describe('slowloris', () => {
  for (const kind of ['http1-headers', 'h2-headers', 'http1-body', 'h2-body'] as Slowloris[]) {
    test(`${kind}: every connection is cut at its deadline; another client is served`, { timeout: 120_000 }, async () => {
      const server = await startServer({ args: ARGS[kind] });
      try {
        // 100 connections opened over the first second, then 8 s held: every deadline has passed.
        const x = await slowloris(server, { kind, durationMs: 4000, afterMs: 8000 });
        console.log(`ended ${x.ended} of ${x.opened}; answers ${JSON.stringify(x.answers)}`);
        assert.equal(x.ended, x.opened, `${x.opened - x.ended} of ${x.opened} slow connections (HTTP/2 bodies: streams) still open`);
        if (kind.endsWith('body')) assert.deepEqual(x.answers, { 504: x.opened }, 'each slow body gets the 504 Timeout');
        // An HTTP/2 connection whose slow stream got its 504 serves on, idle, until its idle
        // timeout (90 s, as Go's): its descriptor stays while the attacker holds it.
        expectServed(x, { p99DuringMs: 2000, p99AfterMs: 1000, rssGrowthMB: 100, ...(kind === 'h2-body' ? {} : { fdsAfterOverBaseline: 5 }) });
      } finally {
        await server.stop();
      }
    });
  }
});
