// Only the idle-memory part of the `watch` section, quickly: a fresh server with the memory
// probe, N idle HTTP/2 watches (100 per connection), then N more; prints the server's RSS and
// heap growth per watcher after full collections. With BENCH_WATCH_SNAPSHOTS=dir, writes a heap
// snapshot of the server at N and at 2N watchers there (diff them by constructor to see what
// each watcher holds). BENCH_WATCH_BOOKMARKS=1: the watches ask for bookmarks, as informers do.
// Run: npm run build --silent && node dist/bench/watch/watch-idle-memory.js [N] [streams per connection]
// (a second argument of 0: HTTP/1.1, a connection each).

import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startApiServer, stop } from '../lib/bench-server.js';
import { serverTarget, WatchClients } from './watch-bench.js';

const here = dirname(fileURLToPath(import.meta.url));
const watchers = Number(process.argv[2] ?? 2000);
const streamsPerConnection = Number(process.argv[3] ?? 100);
const snapshots = process.env.BENCH_WATCH_SNAPSHOTS;
// The same node arguments as the watch section's servers (run.ts).
const probed = ['--expose-gc', '--import', join(here, '../lib/memory-probe.js'), '--min-semi-space-size=16', '--max-semi-space-size=16'];

const s = await startApiServer(probed);
try {
  const clients = await WatchClients.open({
    ...serverTarget(s),
    watchers,
    streamsPerConnection,
    bookmarks: process.env.BENCH_WATCH_BOOKMARKS === '1',
    afterReading: snapshots
      ? (which) =>
          new Promise<void>((done) => {
            s.child.once('message', (m: { snapshot: string }) => {
              console.log(`heap snapshot at ${which === 'first' ? watchers : 2 * watchers} watchers: ${m.snapshot}`);
              done();
            });
            s.child.send({ snapshot: resolve(snapshots, `watch-${which}-${watchers}.heapsnapshot`) });
          })
      : undefined,
  });
  try {
    const idle = await clients.idleMemory();
    console.log(
      `${streamsPerConnection > 0 ? `HTTP/2 (${streamsPerConnection} per connection)` : 'HTTP/1.1'}, from ${watchers} to ${watchers + idle.extraWatchers} idle watchers: ` +
        `${(idle.rssBytesPerWatcher / 1024).toFixed(2)} KB RSS, ${(idle.heapBytesPerWatcher / 1024).toFixed(2)} KB heap per watcher`,
    );
  } finally {
    await clients.close();
  }
} finally {
  await stop(s.child);
  rmSync(s.dataDir, { recursive: true, force: true });
}
