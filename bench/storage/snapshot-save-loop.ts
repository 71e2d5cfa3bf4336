// A process that saves snapshots of a store back to back until SIGTERM, as `snapshot save` runs
// (its own process, its own connection), then prints how many it saved and how long they took.
// `npm run bench -- snapshot` measures the server's writes while this runs, with each method.
// Arguments: DB_PATH OUT_DIR METHOD (vacuum | backup).

import { join } from 'node:path';
import { saveSnapshot, yieldToServer, type SnapshotMethod } from '../../src/storage/sqlite/snapshot-save.js';

const [dbPath, outDir, method] = process.argv.slice(2) as [string, string, SnapshotMethod];
// As `snapshot save` does.
yieldToServer();
let stopping = false;
process.on('SIGTERM', () => (stopping = true));
let saves = 0;
let busyMs = 0;
while (!stopping) {
  const s = await saveSnapshot({ dbPath, file: join(outDir, `loop-${method}.db`), method });
  saves++;
  busyMs += s.durationMs;
  // Lets the SIGTERM handler run between saves.
  await new Promise((r) => setImmediate(r));
}
process.stdout.write(`${JSON.stringify({ saves, busyMs })}\n`);
