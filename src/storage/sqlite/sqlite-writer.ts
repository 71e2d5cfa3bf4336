// Where a SQLite store's writes run. ThreadWriter: a worker thread with its own connection
// (sqlite-writer-worker.ts), so the commit and its fsync never block the event loop; answers
// come back in the order requests were sent. InlineWriter: the store's own connection on the
// main thread, for ':memory:' databases (another thread cannot open the same in-memory database).

import type { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { BatchWriter, type AppliedBatch, type WriteRequest } from './sqlite-batch.js';
import { spawnStorageWorker } from './worker-spawn.js';
import { packBatch, reportId, unpackReport, type WriterData, type WriterReply, type WriterRequest } from './sqlite-writer-protocol.js';

export interface SqliteWriter {
  /** Applies the batch in one transaction; rejects (nothing applied) if the transaction failed. */
  commit(batch: readonly WriteRequest[]): Promise<AppliedBatch>;
  compact(from: number, target: number): Promise<void>;
  /** Runs a pragma on the writer's connection (diagnostics, and tests that fill the database). */
  pragma(pragma: string): Promise<unknown>;
  close(): Promise<void>;
}

const pause = (): Promise<void> => new Promise((r) => setImmediate(r));

export class InlineWriter implements SqliteWriter {
  private readonly writer: BatchWriter;

  constructor(private readonly db: Database.Database) {
    this.writer = new BatchWriter(db);
  }

  async commit(batch: readonly WriteRequest[]): Promise<AppliedBatch> {
    return this.writer.apply(batch);
  }

  compact(from: number, target: number): Promise<void> {
    return this.writer.compact(from, target, pause);
  }

  async pragma(pragma: string): Promise<unknown> {
    return this.db.pragma(pragma, { simple: true });
  }

  async close(): Promise<void> {
    this.writer.stop();
  }
}

interface Outstanding {
  resolve(result: unknown): void;
  reject(err: Error): void;
}

const spawn = (data: WriterData): Worker => spawnStorageWorker('sqlite-writer-worker', data);

export class ThreadWriter implements SqliteWriter {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly outstanding = new Map<number, Outstanding>();
  private closing = false;

  /** `onExit` hears that the thread ended unasked (its requests were failed first). */
  constructor(
    private readonly data: WriterData,
    private readonly onExit: (reason: string) => void,
  ) {
    this.start();
  }

  /** A thread ended; the next request needs a new one (see SqliteStore's recovery). */
  get dead(): boolean {
    return !this.worker;
  }

  /** Starts a new thread after the last one ended (the store has caught up on its commits first). */
  restart(): void {
    if (!this.worker && !this.closing) this.start();
  }

  async commit(batch: readonly WriteRequest[]): Promise<AppliedBatch> {
    const report = (await this.request((id) => packBatch(id, batch), true)) as ArrayBuffer;
    return unpackReport(report);
  }

  async compact(from: number, target: number): Promise<void> {
    await this.request((id) => ({ type: 'compact', id, from, target }));
  }

  pragma(pragma: string): Promise<unknown> {
    return this.request((id) => ({ type: 'pragma', id, pragma }));
  }

  /** Lets requests already sent finish, then closes the thread's connection and waits for it to end. */
  async close(): Promise<void> {
    if (this.closing) return;
    const worker = this.worker;
    if (!worker) {
      this.closing = true;
      return;
    }
    const exited = new Promise<void>((r) => worker.once('exit', () => r()));
    this.closing = true;
    worker.ref(); // until it has ended
    try {
      await this.request((id) => ({ type: 'close', id }), false, true);
    } catch {
      // The thread is gone already: nothing left to close.
    }
    await exited;
  }

  private start(): void {
    const worker = spawn(this.data);
    this.worker = worker;
    let failure = '';
    worker.on('message', (reply: WriterReply) => this.settle(reply));
    // The error crosses threads as a structured clone: an Error keeps its message, but
    // better-sqlite3's SqliteError (an open that fails) arrives as a bare `{ code }`.
    worker.on('error', (err: Error & { code?: string }) => {
      failure = (err.message as string | undefined) ?? err.code ?? '';
    });
    worker.on('exit', (code) => {
      if (this.worker === worker) this.worker = undefined;
      const reason = `writer thread exited (code ${code}${failure ? `: ${failure}` : ''})`;
      const lost = [...this.outstanding.values()];
      this.outstanding.clear();
      for (const o of lost) o.reject(new Error(reason));
      if (!this.closing) this.onExit(reason);
    });
    // Only requests in flight keep the process alive (see request / settle). After the listeners:
    // adding a 'message' listener refs the thread's port again.
    worker.unref();
  }

  /** Sends a request; `transfer`: it is an ArrayBuffer (a batch), handed over rather than copied. */
  private request(make: (id: number) => WriterRequest, transfer = false, closing = false): Promise<unknown> {
    const worker = this.worker;
    if (!worker || (this.closing && !closing)) return Promise.reject(new Error(this.closing ? 'store is closed' : 'writer thread is not running'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.outstanding.size === 0) worker.ref();
      this.outstanding.set(id, { resolve, reject });
      const message = make(id);
      worker.postMessage(message, transfer ? [message as ArrayBuffer] : undefined);
    });
  }

  private settle(reply: WriterReply): void {
    const report = reply instanceof ArrayBuffer;
    const id = report ? reportId(reply) : reply.id;
    const o = this.outstanding.get(id);
    if (!o) return;
    this.outstanding.delete(id);
    if (this.outstanding.size === 0 && !this.closing) this.worker?.unref();
    if (report) o.resolve(reply);
    else if (reply.error !== undefined) o.reject(new Error(reply.error));
    else o.resolve(reply.result);
  }
}
