// The SQLite writer thread: its own connection to the store's file, on which it runs each batch
// of writes in one transaction (one sync) and compaction, then answers the main thread. Messages
// are handled one at a time in arrival order, so batches commit in the order they were sent and
// their answers come back in that order. Started by sqlite-writer.ts (ThreadWriter).

import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { BatchWriter, configureWriter } from './sqlite-batch.js';
import { packReport, unpackBatch, type WriterData, type WriterReply, type WriterRequest } from './sqlite-writer-protocol.js';

const port = parentPort!;
const data = workerData as WriterData;
// An open failure throws here: the main thread sees the thread's error and exit, and fails its writes.
const db = new Database(data.path);
configureWriter(db, data.durability);
const writer = new BatchWriter(db);
let compacting: Promise<void> | undefined;

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));
const reply = (r: WriterReply, transfer?: ArrayBuffer[]): void => port.postMessage(r, transfer);
const pause = (): Promise<void> => new Promise((r) => setImmediate(r));

port.on('message', (req: WriterRequest) => {
  if (req instanceof ArrayBuffer) {
    const { id, writes } = unpackBatch(req);
    let report: ArrayBuffer;
    try {
      report = packReport(id, writer.apply(writes));
    } catch (err) {
      reply({ id, error: message(err) });
      return;
    }
    reply(report, [report]);
    return;
  }
  switch (req.type) {
    case 'compact': {
      // Between windows the thread goes back to its message queue, so batches are not held up.
      compacting = writer.compact(req.from, req.target, pause).then(
        () => reply({ id: req.id }),
        (err: unknown) => reply({ id: req.id, error: message(err) }),
      );
      return;
    }
    case 'pragma': {
      try {
        reply({ id: req.id, result: db.pragma(req.pragma, { simple: true }) });
      } catch (err) {
        reply({ id: req.id, error: message(err) });
      }
      return;
    }
    case 'close': {
      writer.stop();
      void (compacting ?? Promise.resolve()).finally(() => {
        db.close();
        reply({ id: req.id });
        port.close();
      });
      return;
    }
  }
});
