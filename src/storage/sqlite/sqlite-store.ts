// The embedded default backend: the RevisionedStore contract on better-sqlite3.
//
// Writes: a writer thread (sqlite-writer.ts, sqlite-writer-worker.ts) owns a second connection
// and commits; the event loop never waits for a sync. Writes arriving on the main thread queue
// up; when no batch is in flight they go at the end of the current turn, as one batch, in one
// transaction with one sync (group commit), each write still succeeding or failing on its own
// compare-and-swap. While a batch is in the writer, the next one collects (pipelining: request
// work for the next batch overlaps the sync of this one). When the writer reports a batch, the
// main thread, in commit order, records the revision, publishes the events to the watch hub and
// settles the writes' promises: a write is acknowledged only once synced and its events are in
// the hub. ':memory:' databases cannot be shared with a thread: there the same batch code runs on
// the main thread (InlineWriter), through the same pipeline.
//
// Reads run on the main thread's own connection (WAL: readers never wait for the writer). They
// are bounded to the PUBLISHED revision (`this.revision`), never to what the writer has committed
// but not yet reported: a list at revision R must not return an object at R+1 whose event a
// watcher starting at R would then get again. While a batch is in flight, "latest" reads
// therefore come from the log as of the published revision (the same queries as reads at an
// older revision), and count() corrects the live count by the unreported log rows in one
// snapshot. When nothing is in flight the `current` table is exactly the published state.
// currentRevision() is the published revision too, so a watch cache waiting to be at the store's
// revision (its freshness check for consistent reads) never waits for an event the hub lacks.
//
// Failures: a failed transaction (a full disk, an I/O error, a lock held past busy_timeout) fails
// every write of its batch with Unavailable, as does the writer thread ending; readiness fails
// until a write commits again. A thread that ended may have committed its last batch without
// reporting it: once its batches have failed, the store publishes whatever the log holds past
// the published revision (so watchers miss nothing; those writers saw Unavailable, "may or may
// not have happened", as etcd's Timeout), and the next write starts a new thread. One process
// owns the file (a lock file beside it). A data dir a command marked unfinished (restore,
// migrate: unfinished-marker.ts) is refused before anything is opened; a file of an older
// schema is rewritten once before it is served (store-rebuild.ts).

import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileSizes, openDatabase } from './sqlite-file.js';
import type { RebuiltStore } from './store-rebuild.js';
import { removeStalePartials } from './snapshot-save.js';
import { assertFinished } from './unfinished-marker.js';
import { SqliteReads } from './sqlite-reads.js';
import { acquireLockFile, type LockFile } from './lock-file.js';
import { latestRevision, type AppliedBatch, type FoundRow, type WriteRequest } from './sqlite-batch.js';
import { InlineWriter, ThreadWriter, type SqliteWriter } from './sqlite-writer.js';
import type { StoreHealth } from '../storage-observer.js';
import { WatchHub, type ChangeEvent } from '../watch-hub.js';
import {
  StorageError,
  type DeleteResult,
  type GetOptions,
  type GetResult,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type PutResult,
  type RevisionedStore,
  type StoreWatch,
  type WatchOptions,
} from '../revisioned-store.js';

export interface SqliteStoreOptions {
  /** Database file, or ':memory:' for a store that lives as long as the process. */
  path: string;
  /** 'full' (default): synced before a write is acknowledged; 'normal': WAL without a sync per commit. */
  durability?: 'full' | 'normal';
  /** Largest value accepted (bytes, default 8 MiB); larger writes fail with ValueTooLarge. */
  maxValueBytes?: number;
  /** Per-watcher bound on queued live events (default 10,000); past it the watch ends with Unavailable. */
  maxWatchQueue?: number;
  /** Per-watcher bound on queued value bytes (default 64 MiB). */
  maxWatchQueueBytes?: number;
  /** Batches handed to the writer before the first is reported (default 1: one syncing, the next collecting). */
  pipelineDepth?: number;
  /**
   * 'thread' (default for files): commits run on a writer thread. 'inline': on the main thread
   * (what ':memory:' always does; benchmarks compare the two).
   */
  writer?: 'thread' | 'inline';
  /** Told once a file of an older schema has been rebuilt into this one's (before the store opens). */
  onUpgrade?: (rebuilt: RebuiltStore) => void;
}

/** Counters for tests and benchmarks. */
export interface SqliteStoreStats {
  /** Write transactions committed (each is one sync at 'full'). */
  transactions: number;
  /** Writes applied (successful puts and deletes). */
  writes: number;
}

type PendingWrite = WriteRequest & { resolve(r: PutResult | DeleteResult): void; reject(e: unknown): void };

/** A batch handed to the writer; `done` is set when its report (or failure) arrives. */
interface InFlight {
  batch: PendingWrite[];
  done?: { applied: AppliedBatch } | { error: string };
}

const foundKv = (key: string, r: FoundRow): KeyValue => ({ key, value: r.value, createRevision: r.createRevision, modRevision: r.revision });
const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export function openSqliteStore(opts: SqliteStoreOptions): SqliteStore {
  return new SqliteStore(opts);
}

export class SqliteStore implements RevisionedStore, StoreHealth {
  private readonly db: Database.Database;
  private readonly lock: LockFile | undefined;
  private readonly hub: WatchHub;
  private readonly writer: SqliteWriter;
  private readonly thread: ThreadWriter | undefined;
  private readonly maxValueBytes: number;
  private readonly pipelineDepth: number;
  /** The published revision: every write at or below it is synced and in the hub. */
  private revision: number;
  private compacted: number;
  private pending: PendingWrite[] = [];
  /** Batches handed to the writer, oldest first; reported in this order. */
  private readonly inFlight: InFlight[] = [];
  private dispatchScheduled = false;
  /** The writer thread ended: the log may hold commits past `revision` that were never published. */
  private catchUpNeeded = false;
  private closed = false;
  private drained: (() => void) | undefined;
  /** Why the last write transaction failed (e.g. "database or disk is full"); cleared by the next commit. */
  private lastWriteError: string | undefined;
  private readonly counters: SqliteStoreStats = { transactions: 0, writes: 0 };
  private readonly reads: SqliteReads;
  private readonly path: string;

  constructor(opts: SqliteStoreOptions) {
    this.path = opts.path;
    const inMemory = opts.path === ':memory:';
    if (!inMemory) {
      // A store a command (restore, migrate) has not finished writing is never served.
      assertFinished(opts.path);
      mkdirSync(dirname(opts.path), { recursive: true });
      this.lock = acquireLockFile(`${opts.path}.lock`);
    }
    const durability = opts.durability ?? 'full';
    try {
      if (!inMemory) removeStalePartials(dirname(opts.path));
      this.db = openDatabase(opts.path, durability, opts.onUpgrade);
    } catch (err) {
      this.lock?.release();
      throw err;
    }
    this.maxValueBytes = opts.maxValueBytes ?? 8 * 1024 * 1024;
    this.pipelineDepth = Math.max(1, opts.pipelineDepth ?? 1);
    const db = this.db;
    this.reads = new SqliteReads(db);
    this.compacted = this.reads.compacted();
    this.revision = latestRevision(db);
    if (inMemory || opts.writer === 'inline') {
      this.writer = new InlineWriter(db);
    } else {
      // This connection only reads from here on; the writer thread has its own.
      db.pragma('query_only = ON');
      this.thread = new ThreadWriter({ path: opts.path, durability }, (reason) => this.writerExited(reason));
      this.writer = this.thread;
    }
    this.hub = new WatchHub({
      revision: () => this.revision,
      history: (prefix, after, upTo, limit) => this.history(prefix, after, upTo, limit),
      maxQueued: opts.maxWatchQueue,
      maxQueuedBytes: opts.maxWatchQueueBytes,
    });
  }

  async get(key: string, opts: GetOptions = {}): Promise<GetResult> {
    const rev = this.readRevision(opts.revision);
    const kv = rev === this.revision && this.settled() ? this.reads.latest(key) : this.reads.at(key, rev);
    return kv ? { kv, revision: rev } : { revision: rev };
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    const rev = this.readRevision(opts.revision);
    const limit = opts.limit && opts.limit > 0 ? opts.limit : -1;
    const after = opts.startAfter !== undefined && opts.startAfter >= prefix ? opts.startAfter : '';
    const at = rev === this.revision && this.settled() ? undefined : rev;
    const kvs = this.reads.list(prefix, after, limit > 0 ? limit + 1 : -1, at);
    const more = limit > 0 && kvs.length > limit;
    const page = more ? kvs.slice(0, limit) : kvs;
    if (!opts.countRemaining) return { kvs: page, more, revision: rev };
    return { kvs: page, more, revision: rev, remaining: more ? this.reads.countAfter(prefix, page[page.length - 1]!.key, at) : 0 };
  }

  async count(prefix: string): Promise<number> {
    if (this.closed) throw new StorageError('Unavailable', 'store is closed');
    return this.reads.count(prefix, this.settled() ? undefined : this.revision);
  }

  optimisticPut(key: string, value: Uint8Array, expectedModRevision: number): Promise<PutResult> {
    if (value.byteLength > this.maxValueBytes) {
      return Promise.reject(new StorageError('ValueTooLarge', `value of ${value.byteLength} bytes exceeds the limit of ${this.maxValueBytes}`, key));
    }
    return new Promise((resolve, reject) => this.enqueue({ op: 'put', key, value, expected: expectedModRevision, resolve: resolve as PendingWrite['resolve'], reject }));
  }

  optimisticDelete(key: string, expectedModRevision: number): Promise<DeleteResult> {
    return new Promise((resolve, reject) => this.enqueue({ op: 'delete', key, expected: expectedModRevision, resolve: resolve as PendingWrite['resolve'], reject }));
  }

  watch(prefix: string, opts: WatchOptions): StoreWatch {
    if (this.closed) return this.hub.failed(new StorageError('Unavailable', 'store is closed'));
    const after = opts.afterRevision > 0 ? opts.afterRevision : this.revision;
    if (after < this.compacted) {
      return this.hub.failed(new StorageError('Compacted', `required revision ${after} has been compacted (compacted revision ${this.compacted})`, undefined, undefined, this.compacted));
    }
    return this.hub.subscribe(prefix, opts.signal, after);
  }

  /** Write transactions and writes so far (group commit makes the first smaller than the second). */
  stats(): SqliteStoreStats {
    return { ...this.counters };
  }

  /**
   * The database's size on disk (the file and its WAL) and the bytes of its pages in use (the
   * rest are free pages, which `defrag` gives back); undefined for an in-memory store.
   */
  size(): { sizeBytes: number; inUseBytes: number } | undefined {
    return this.path === ':memory:' || !this.db.open ? undefined : fileSizes(this.db, this.path);
  }

  /** Runs a pragma on the writer's connection (diagnostics; tests cap the database size with it). */
  writerPragma(pragma: string): Promise<unknown> {
    return this.writer.pragma(pragma);
  }

  /** The `etcd` health check: the database is open and answers a read. */
  liveness(): string | undefined {
    if (this.closed) return 'store is closed';
    try {
      this.reads.compacted();
      return undefined;
    } catch (err) {
      return messageOf(err);
    }
  }

  /**
   * The `etcd-readiness` check: readable, and the last write transaction committed. A failed write
   * (a full disk: every write fails with "database or disk is full"; the writer thread ended)
   * keeps it failing until a write commits again.
   */
  readiness(): string | undefined {
    return this.liveness() ?? (this.lastWriteError ? `last write failed: ${this.lastWriteError}` : undefined);
  }

  /** One page of the log for a replaying watcher; fails once compaction has overtaken it. */
  private history(prefix: string, after: number, upTo: number, limit: number): ChangeEvent[] {
    if (after < this.compacted) {
      throw new StorageError('Compacted', `required revision ${after} has been compacted (compacted revision ${this.compacted})`, undefined, undefined, this.compacted);
    }
    return this.reads.history(prefix, after, upTo, limit);
  }

  async currentRevision(): Promise<number> {
    return this.revision;
  }

  async compactedRevision(): Promise<number> {
    return this.compacted;
  }

  /**
   * Records `revision` as compacted at once (reads and watches below it fail from now on); the
   * writer then stores it and removes superseded rows and tombstones window by window, between
   * batches of writes. A crash midway leaves dead rows behind, invisible to reads.
   */
  async compact(revision: number): Promise<void> {
    const target = Math.min(revision, this.revision);
    const from = this.compacted;
    if (target <= from || this.closed) return;
    this.compacted = target;
    try {
      await this.writer.compact(from, target);
    } catch (err) {
      if (!this.closed) throw new StorageError('Unavailable', `compaction failed: ${messageOf(err)}`);
    }
  }

  /** Refuses new writes, lets every queued and in-flight write finish, then closes the writer and the database. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.pending.length || this.inFlight.length) {
      const drained = new Promise<void>((r) => (this.drained = r));
      this.dispatch();
      await drained;
    }
    this.hub.closeAll();
    await this.writer.close();
    this.db.close();
    this.lock?.release();
  }

  /** Nothing committed is unpublished: the `current` table is exactly the state at `revision`. */
  private settled(): boolean {
    return this.inFlight.length === 0 && !this.catchUpNeeded;
  }

  private readRevision(requested: number | undefined): number {
    if (this.closed) throw new StorageError('Unavailable', 'store is closed');
    if (!requested) return this.revision;
    if (requested > this.revision) {
      throw new StorageError('RevisionTooLarge', `revision ${requested} is newer than the current revision ${this.revision}`, undefined, undefined, this.revision);
    }
    if (requested < this.compacted) {
      throw new StorageError('Compacted', `revision ${requested} has been compacted (compacted revision ${this.compacted})`, undefined, undefined, this.compacted);
    }
    return requested;
  }

  private enqueue(w: PendingWrite): void {
    if (this.closed) {
      w.reject(new StorageError('Unavailable', 'store is closed', w.key));
      return;
    }
    this.pending.push(w);
    // Writes issued in this turn go together, at its end; with the pipeline full, the next report sends them.
    if (!this.dispatchScheduled && this.inFlight.length < this.pipelineDepth) {
      this.dispatchScheduled = true;
      setImmediate(() => this.dispatch());
    }
  }

  /** Hands the queued writes to the writer as one batch, while the pipeline has room. */
  private dispatch(): void {
    this.dispatchScheduled = false;
    // After the writer thread ended: first its failed batches settle and its commits are published.
    if (this.catchUpNeeded && !this.inFlight.length) this.catchUp();
    while (this.pending.length && this.inFlight.length < this.pipelineDepth && !this.catchUpNeeded) {
      // A new thread only when there is work for it (one that cannot start is not retried in a loop).
      if (this.thread?.dead) this.thread.restart();
      const entry: InFlight = { batch: this.pending };
      this.pending = [];
      this.inFlight.push(entry);
      this.writer.commit(entry.batch).then(
        (applied) => this.reported(entry, { applied }),
        (err: unknown) => this.reported(entry, { error: messageOf(err) }),
      );
    }
    if (this.closed && !this.pending.length && !this.inFlight.length) this.drained?.();
  }

  /** Settles reported batches strictly in the order they were handed over, then sends the next. */
  private reported(entry: InFlight, done: NonNullable<InFlight['done']>): void {
    entry.done = done;
    while (this.inFlight[0]?.done) {
      const head = this.inFlight.shift()!;
      const d = head.done!;
      if ('applied' in d) this.publish(head.batch, d.applied);
      else this.fail(head.batch, d.error);
    }
    this.dispatch();
  }

  private publish(batch: PendingWrite[], applied: AppliedBatch): void {
    const events: ChangeEvent[] = [];
    const outcomes: (() => void)[] = [];
    for (let i = 0; i < batch.length; i++) {
      const w = batch[i]!;
      const a = applied.writes[i]!;
      if (!a.ok) {
        const current = a.current && foundKv(w.key, a.current);
        const message =
          a.code === 'KeyExists' ? `key ${w.key} already exists` : a.code === 'KeyNotFound' ? `key ${w.key} not found` : `key ${w.key} is at revision ${current!.modRevision}, not ${w.expected}`;
        outcomes.push(() => w.reject(new StorageError(a.code, message, w.key, current)));
      } else if (w.op === 'put') {
        const v = w.value!;
        const kv: KeyValue = { key: w.key, value: Buffer.from(v.buffer, v.byteOffset, v.byteLength), createRevision: a.createRevision, modRevision: a.revision };
        events.push(a.prev ? { type: 'put', revision: a.revision, kv, prevKv: foundKv(w.key, a.prev) } : { type: 'put', revision: a.revision, kv });
        outcomes.push(() => w.resolve({ revision: a.revision, kv }));
      } else {
        const prevKv = foundKv(w.key, a.prev!);
        events.push({ type: 'delete', revision: a.revision, key: w.key, prevKv });
        outcomes.push(() => w.resolve({ revision: a.revision, prevKv }));
      }
    }
    this.revision = applied.revision;
    this.lastWriteError = undefined;
    this.counters.transactions++;
    this.counters.writes += events.length;
    // Promise reactions run after this turn: the hub has every event before any writer resumes.
    for (const settle of outcomes) settle();
    this.hub.publish(events);
  }

  private fail(batch: PendingWrite[], error: string): void {
    this.lastWriteError = error;
    const failure = new StorageError('Unavailable', `storage write failed: ${error}`);
    for (const w of batch) w.reject(failure);
  }

  private writerExited(reason: string): void {
    this.lastWriteError = reason;
    this.catchUpNeeded = true;
    // Its batches in flight are failed next (promise reactions); the last report catches up.
    if (!this.inFlight.length) this.catchUp();
  }

  /** Publishes, in order, what an ended writer thread committed but never reported. */
  private catchUp(): void {
    this.catchUpNeeded = false;
    if (!this.db.open) return;
    const events = this.reads.since(this.revision);
    if (events.length) {
      this.revision = events[events.length - 1]!.revision;
      this.hub.publish(events);
    }
  }
}
