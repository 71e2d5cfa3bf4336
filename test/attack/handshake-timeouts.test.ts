// Handshakes that time out (issue #29): the server closes each connection whose TLS handshake is
// not done within its deadline (here --read-header-timeout 2s), so its descriptors come back
// while the attacker still holds its ends; and a SIGTERM waits for such connections no longer
// than Go's Shutdown does (a new connection's 5 s).
// Before the fix a timed-out handshake got an HTTP 400 written into it and stayed open (CLOSE-WAIT
// for good, counted against the descriptor limit), and SIGTERM waited for it.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../e2e/harness.js';
import { expectServed } from './support/expect.js';
import { openFds } from './support/proc.js';
import { clientHello, Connections } from './support/raw-tls.js';
import { stalledHandshakes } from './scenarios/handshake-timeouts.js';

describe('handshake timeouts', () => {
  for (const kind of ['hello', 'one-byte'] as const) {
    test(`connections that sent ${kind === 'hello' ? 'a whole ClientHello' : 'one byte'} and fell silent are closed at the deadline`, { timeout: 120_000 }, async () => {
      const server = await startServer({ args: ['--read-header-timeout', '2s'] });
      try {
        // 100 connections, 10 more a second for 4 s; held 6 s more (three deadlines).
        const x = await stalledHandshakes(server, { kind, durationMs: 4000, afterMs: 6000 });
        // Every held connection closed by the server; its descriptors back to the baseline (a
        // few to spare for the probe's own connection and the server's housekeeping).
        assert.equal(x.closedByServer, x.opened, `${x.opened - x.closedByServer} of ${x.opened} stalled connections still open`);
        expectServed(x, { p99DuringMs: 2000, p99AfterMs: 1000, fdsAfterOverBaseline: 5, rssGrowthMB: 64 });
      } finally {
        await server.stop();
      }
    });
  }

  test('SIGTERM waits for connections in the middle of a handshake no longer than Go does (5 s from their accept)', { timeout: 120_000 }, async () => {
    // The default deadline (32 s): a stop that waited for these would take that long.
    const server = await startServer();
    const conns = new Connections(server.port);
    try {
      const hello = await clientHello();
      await Promise.all(Array.from({ length: 50 }, (_, i) => conns.open((s) => s.write(i % 2 ? hello : Buffer.from([0x16])))));
      // Their handshakes are under way (or waiting for the rest of a hello) on the server.
      await new Promise((r) => setTimeout(r, 500));
      assert.ok((openFds(server.pid!) ?? 0) >= 50);
      const exited = new Promise<number>((resolve) => server.process!.once('exit', (code) => resolve(code ?? -1)));
      const t0 = Date.now();
      server.process!.kill('SIGTERM');
      const code = await exited;
      const ms = Date.now() - t0;
      assert.equal(code, 0, server.log());
      // Go's Shutdown gives a new connection 5 s for its first request, then closes it; 10 s
      // allows for a loaded machine (before the fix the stop waited 60 s, the shutdown timeout).
      assert.ok(ms < 10_000, `the server took ${ms} ms to stop`);
    } finally {
      conns.release();
      await server.stop();
    }
  });
});
