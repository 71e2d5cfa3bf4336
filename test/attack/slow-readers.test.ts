// Watches and lists whose clients read nothing (issue #29), on HTTP/2 and HTTP/1.1, while the
// watched object changes by 200 KB per event: the server's memory stays bounded and a watcher
// left behind is cut (kube's cacheWatcher ends a watcher whose buffer is full; ours ends one
// more than 10,000 events or 64 MiB behind, or stuck for a minute: docs/limits.md). Before the
// fix an HTTP/2 watch never paused: every event was queued in its stream for good and the
// watcher was never cut.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../e2e/harness.js';
import { expectServed } from './support/expect.js';
import { slowReaders } from './scenarios/slow-readers.js';

describe('clients that read nothing', () => {
  for (const protocol of ['h2', 'http/1.1'] as const) {
    test(`${protocol}: non-reading watchers are cut once far behind; memory stays bounded`, { timeout: 240_000 }, async () => {
      // A server of its own: the watch cache keeps its window of past events (these 250 writes
      // of 200 KB, some 60 MB with their decoded objects), which would add up across tests.
      const server = await startServer();
      try {
        // 5 watchers, 300 writes: 120 MB of changes as a watcher's queue counts them (each
        // event's object and the one before it), past its 64 MiB. First the same writes with no
        // watcher, for what they cost the server by themselves (the watch cache's window of past
        // events holds them: about 0.8 MB a write).
        const x = await slowReaders(server, { protocol, what: 'watch', readers: 5, writes: 300, durationMs: 30_000 });
        const growth = x.during.peakRssMB - x.baseline.endRssMB;
        console.log(`writes: ${x.writes}; RSS growth ${growth.toFixed(1)} MB with the watchers, ${x.controlGrowthMB!.toFixed(1)} MB without; the watchers' streams: ${x.outcomes.join(', ')}`);
        assert.equal(x.writes, 300, 'the writes were made in time');
        assert.deepEqual(x.outcomes.filter((w) => !w.startsWith('cut') && w !== 'reset'), [], `every watcher left behind is cut: ${x.outcomes.join(', ')}`);
        // What a stuck watcher holds is one event in its stream and references to the events it
        // has not taken, which the window holds anyway: the watchers may cost 100 MB more than
        // the writes alone (garbage collection timing on a loaded machine), not every event again.
        assert.ok(growth < x.controlGrowthMB! + 100, `RSS grew ${growth.toFixed(1)} MB with the watchers, ${x.controlGrowthMB!.toFixed(1)} MB without`);
        expectServed(x, { p99DuringMs: 3000, p99AfterMs: 1000 });
      } finally {
        await server.stop();
      }
    });
  }

  test('h2: 20 non-reading readers of a 12 MB list hold a slice each, not the list', { timeout: 240_000 }, async () => {
    const server = await startServer();
    try {
      const x = await slowReaders(server, { protocol: 'h2', what: 'list', readers: 20, durationMs: 8000, drainMs: 60_000 });
      // 20 lists of 12 MB held whole would be 240 MB; a slice each (64 KiB) is nothing.
      expectServed(x, { p99DuringMs: 2000, p99AfterMs: 1000, rssGrowthMB: 120 });
    } finally {
      await server.stop();
    }
  });
});
