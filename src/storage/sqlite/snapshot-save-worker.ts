// A scheduled snapshot's save, on a thread of its own: `VACUUM INTO` is one synchronous call
// that would hold the server's event loop for as long as the copy takes. Answers once and ends.

import { parentPort, workerData } from 'node:worker_threads';
import { saveSnapshot, yieldToServer, type SaveSnapshotOptions } from './snapshot-save.js';

const port = parentPort!;
yieldToServer();
saveSnapshot(workerData as SaveSnapshotOptions).then(
  (saved) => port.postMessage({ saved }),
  (err: unknown) => port.postMessage({ error: err instanceof Error ? err.message : String(err) }),
);
