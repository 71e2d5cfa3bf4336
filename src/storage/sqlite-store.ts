// The embedded default backend: the RevisionedStore contract on better-sqlite3.
// Durability: an acknowledged write is synced (WAL + synchronous=FULL). Group commit: writes
// issued in the same turn of the event loop are applied in ONE transaction with ONE sync, and
// each still succeeds or fails on its own compare-and-swap. One process owns the file (a lock
// file beside it), so committed changes are pushed to watchers directly, without polling.

import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { applySchema, prefixEnd } from './sqlite-schema.js';
import { acquireLockFile, type LockFile } from './lock-file.js';
import type { StoreHealth } from './storage-observer.js';
import { WatchHub, type ChangeEvent } from './watch-hub.js';
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
} from './revisioned-store.js';

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
}

/** Counters for tests and benchmarks. */
export interface SqliteStoreStats {
  /** Write transactions committed (each is one sync at 'full'). */
  transactions: number;
  /** Writes applied (successful puts and deletes). */
  writes: number;
}

interface Row {
  key: string;
  revision: number;
  create_revision: number;
  value: Buffer;
}
interface LogRow extends Row {
  prev_revision: number;
  deleted: number;
}

type PendingWrite =
  | { op: 'put'; key: string; value: Uint8Array; expected: number; resolve(r: PutResult): void; reject(e: unknown): void }
  | { op: 'delete'; key: string; expected: number; resolve(r: DeleteResult): void; reject(e: unknown): void };

const COMPACT_BATCH = 1000;
/** Longest a write waits for companions to share its commit. */
const COMMIT_DELAY_MS = 1;
/** Never wait for more writers than this before committing. */
const MAX_EXPECTED_BATCH = 64;

const toKv = (r: Row): KeyValue => ({ key: r.key, value: r.value, createRevision: r.create_revision, modRevision: r.revision });

export function openSqliteStore(opts: SqliteStoreOptions): SqliteStore {
  return new SqliteStore(opts);
}

/** The revision of a store that has never been written (etcd's too). */
const FIRST_REVISION = 1;

export class SqliteStore implements RevisionedStore, StoreHealth {
  private readonly db: Database.Database;
  private readonly lock: LockFile | undefined;
  private readonly hub: WatchHub;
  private readonly maxValueBytes: number;
  private revision: number;
  private compacted: number;
  private pending: PendingWrite[] = [];
  private flushScheduled = false;
  private flushTimer: NodeJS.Timeout | undefined;
  /** Size of the last committed batch: how many concurrent writers to wait for (see enqueue). */
  private expectedBatch = 1;
  private closed = false;
  /** Why the last write transaction failed (e.g. "database or disk is full"); cleared by the next commit. */
  private lastWriteError: string | undefined;
  private readonly counters: SqliteStoreStats = { transactions: 0, writes: 0 };
  private readonly stmt;

  constructor(opts: SqliteStoreOptions) {
    const inMemory = opts.path === ':memory:';
    if (!inMemory) {
      mkdirSync(dirname(opts.path), { recursive: true });
      this.lock = acquireLockFile(`${opts.path}.lock`);
    }
    try {
      this.db = new Database(opts.path);
      this.db.pragma('journal_mode = WAL');
      this.db.pragma(`synchronous = ${opts.durability === 'normal' ? 'NORMAL' : 'FULL'}`);
      this.db.pragma('busy_timeout = 5000');
      applySchema(this.db);
    } catch (err) {
      this.lock?.release();
      throw err;
    }
    this.maxValueBytes = opts.maxValueBytes ?? 8 * 1024 * 1024;
    const db = this.db;
    this.stmt = {
      meta: db.prepare<[string], { value: number }>('SELECT value FROM meta WHERE name = ?'),
      setMeta: db.prepare<[number, string]>('UPDATE meta SET value = ? WHERE name = ?'),
      current: db.prepare<[string], Row>('SELECT key, revision, create_revision, value FROM current WHERE key = ?'),
      atRevision: db.prepare<[string, number], LogRow>(
        'SELECT key, revision, create_revision, value, prev_revision, deleted FROM log WHERE key = ? AND revision <= ? ORDER BY revision DESC LIMIT 1',
      ),
      listCurrent: db.prepare<[string, string, string, number], Row>(
        'SELECT key, revision, create_revision, value FROM current WHERE key >= ? AND key < ? AND key > ? ORDER BY key LIMIT ?',
      ),
      listAt: db.prepare<[string, string, string, number, number], LogRow>(
        `SELECT key, revision, create_revision, value, prev_revision, deleted FROM log AS l
         WHERE key >= ? AND key < ? AND key > ?
           AND revision = (SELECT MAX(revision) FROM log WHERE key = l.key AND revision <= ?)
           AND deleted = 0
         ORDER BY key LIMIT ?`,
      ),
      count: db.prepare<[string, string], { n: number }>('SELECT COUNT(*) AS n FROM current WHERE key >= ? AND key < ?'),
      insertLog: db.prepare<[number, string, Buffer | null, number, number, number]>(
        'INSERT INTO log (revision, key, value, create_revision, prev_revision, deleted) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      upsertCurrent: db.prepare<[string, number, number, Buffer]>(
        'INSERT INTO current (key, revision, create_revision, value) VALUES (?, ?, ?, ?) ON CONFLICT(key) DO UPDATE SET revision = excluded.revision, create_revision = excluded.create_revision, value = excluded.value',
      ),
      deleteCurrent: db.prepare<[string]>('DELETE FROM current WHERE key = ?'),
      history: db.prepare<[string, string, number, number, number], LogRow>(
        'SELECT key, revision, create_revision, value, prev_revision, deleted FROM log WHERE key >= ? AND key < ? AND revision > ? AND revision <= ? ORDER BY revision LIMIT ?',
      ),
      byRevision: db.prepare<[number], LogRow>('SELECT key, revision, create_revision, value, prev_revision, deleted FROM log WHERE revision = ?'),
      maxRevision: db.prepare<[], { r: number | null }>('SELECT MAX(revision) AS r FROM log'),
      // One window of the log: rows superseded by a write in the window, and tombstones in it.
      compactSuperseded: db.prepare<[number, number]>(
        'DELETE FROM log WHERE revision IN (SELECT prev_revision FROM log WHERE revision > ? AND revision <= ? AND prev_revision != 0)',
      ),
      compactTombstones: db.prepare<[number, number]>('DELETE FROM log WHERE deleted = 1 AND revision > ? AND revision <= ?'),
    };
    this.compacted = this.stmt.meta.get('compacted')!.value;
    // Not stored per write (one page less per commit): compaction only removes rows at or below
    // the compacted revision, so the newest log row or the compacted revision is the latest.
    // A fresh database is at revision 1, as a fresh etcd is (its first write is 2): resourceVersion
    // "0" means "any" to clients, so no list or watch may ever be answered at 0.
    this.revision = Math.max(this.stmt.maxRevision.get()!.r ?? 0, this.compacted, FIRST_REVISION);
    this.hub = new WatchHub({
      revision: () => this.revision,
      history: (prefix, after, upTo, limit) => this.history(prefix, after, upTo, limit),
      maxQueued: opts.maxWatchQueue,
      maxQueuedBytes: opts.maxWatchQueueBytes,
    });
  }

  async get(key: string, opts: GetOptions = {}): Promise<GetResult> {
    const rev = this.readRevision(opts.revision);
    if (rev === this.revision) {
      const row = this.stmt.current.get(key);
      return row ? { kv: toKv(row), revision: rev } : { revision: rev };
    }
    const row = this.stmt.atRevision.get(key, rev);
    return row && !row.deleted ? { kv: toKv(row), revision: rev } : { revision: rev };
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    const rev = this.readRevision(opts.revision);
    const limit = opts.limit && opts.limit > 0 ? opts.limit : -1;
    const fetch = limit > 0 ? limit + 1 : -1;
    const after = opts.startAfter !== undefined && opts.startAfter >= prefix ? opts.startAfter : '';
    const rows =
      rev === this.revision
        ? this.stmt.listCurrent.all(prefix, prefixEnd(prefix), after, fetch)
        : this.stmt.listAt.all(prefix, prefixEnd(prefix), after, rev, fetch);
    const more = limit > 0 && rows.length > limit;
    return { kvs: (more ? rows.slice(0, limit) : rows).map(toKv), more, revision: rev };
  }

  async count(prefix: string): Promise<number> {
    return this.stmt.count.get(prefix, prefixEnd(prefix))!.n;
  }

  optimisticPut(key: string, value: Uint8Array, expectedModRevision: number): Promise<PutResult> {
    if (value.byteLength > this.maxValueBytes) {
      return Promise.reject(new StorageError('ValueTooLarge', `value of ${value.byteLength} bytes exceeds the limit of ${this.maxValueBytes}`, key));
    }
    return new Promise((resolve, reject) => this.enqueue({ op: 'put', key, value, expected: expectedModRevision, resolve, reject }));
  }

  optimisticDelete(key: string, expectedModRevision: number): Promise<DeleteResult> {
    return new Promise((resolve, reject) => this.enqueue({ op: 'delete', key, expected: expectedModRevision, resolve, reject }));
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

  /** The `etcd` health check: the database is open and answers a read. */
  liveness(): string | undefined {
    if (this.closed) return 'store is closed';
    try {
      this.stmt.meta.get('compacted');
      return undefined;
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
  }

  /**
   * The `etcd-readiness` check: readable, and the last write transaction committed. A failed write
   * (a full disk: every write fails with "database or disk is full") keeps it failing until a
   * write commits again.
   */
  readiness(): string | undefined {
    return this.liveness() ?? (this.lastWriteError ? `last write failed: ${this.lastWriteError}` : undefined);
  }

  /** One page of the log for a replaying watcher; fails once compaction has overtaken it. */
  private history(prefix: string, after: number, upTo: number, limit: number): ChangeEvent[] {
    if (after < this.compacted) {
      throw new StorageError('Compacted', `required revision ${after} has been compacted (compacted revision ${this.compacted})`, undefined, undefined, this.compacted);
    }
    return this.stmt.history.all(prefix, prefixEnd(prefix), after, upTo, limit).map((r) => this.eventOf(r));
  }

  async currentRevision(): Promise<number> {
    return this.revision;
  }

  async compactedRevision(): Promise<number> {
    return this.compacted;
  }

  /**
   * Records `revision` as compacted first (durably, so reads and watches below it fail at once),
   * then removes superseded rows and tombstones window by window (COMPACT_BATCH revisions per
   * transaction), yielding to writers between windows. A crash midway leaves some dead rows
   * behind; they are invisible to reads and cost only space.
   */
  async compact(revision: number): Promise<void> {
    const target = Math.min(revision, this.revision);
    const from = this.compacted;
    if (target <= from || this.closed) return;
    this.stmt.setMeta.run(target, 'compacted');
    this.compacted = target;
    for (let lo = from; lo < target && !this.closed; lo += COMPACT_BATCH) {
      const hi = Math.min(lo + COMPACT_BATCH, target);
      this.db.transaction(() => {
        this.stmt.compactSuperseded.run(lo, hi);
        this.stmt.compactTombstones.run(lo, hi);
      })();
      if (hi < target) await new Promise((r) => setImmediate(r));
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    if (this.pending.length) this.flush();
    clearTimeout(this.flushTimer);
    this.closed = true;
    this.hub.closeAll();
    this.db.close();
    this.lock?.release();
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

  private eventOf(r: LogRow): ChangeEvent {
    const prev = r.prev_revision ? this.stmt.byRevision.get(r.prev_revision) : undefined;
    const prevKv = prev && !prev.deleted ? toKv(prev) : undefined;
    if (r.deleted) return { type: 'delete', revision: r.revision, key: r.key, prevKv: prevKv ?? { key: r.key, value: new Uint8Array(), createRevision: r.create_revision, modRevision: r.prev_revision } };
    return prevKv ? { type: 'put', revision: r.revision, kv: toKv(r), prevKv } : { type: 'put', revision: r.revision, kv: toKv(r) };
  }

  private enqueue(w: PendingWrite): void {
    if (this.closed) {
      w.reject(new StorageError('Unavailable', 'store is closed', w.key));
      return;
    }
    this.pending.push(w);
    if (this.flushScheduled) return;
    // Group commit with a commit delay (as PostgreSQL's commit_delay/commit_siblings): the sync is
    // synchronous, so writers that arrive while one runs cannot join it. Commit at once when as
    // many writers have arrived as last time; otherwise wait at most COMMIT_DELAY_MS for them.
    if (this.pending.length >= this.expectedBatch) {
      clearTimeout(this.flushTimer);
      this.flushTimer = undefined;
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    } else if (!this.flushTimer) {
      this.flushTimer = setTimeout(() => {
        this.flushTimer = undefined;
        if (!this.flushScheduled) this.flush();
      }, COMMIT_DELAY_MS);
    }
  }

  /** Applies every queued write in one transaction (one sync), then settles each and notifies watchers. */
  private flush(): void {
    this.flushScheduled = false;
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    this.expectedBatch = Math.min(batch.length, MAX_EXPECTED_BATCH);
    const outcomes: (() => void)[] = [];
    const events: ChangeEvent[] = [];
    let revision = this.revision;
    try {
      this.db.transaction(() => {
        for (const w of batch) {
          const current = this.stmt.current.get(w.key);
          const failure = this.casFailure(w, current);
          if (failure) {
            outcomes.push(() => w.reject(failure));
            continue;
          }
          const rev = ++revision;
          if (w.op === 'put') {
            const value = Buffer.from(w.value.buffer, w.value.byteOffset, w.value.byteLength);
            const createRevision = current ? current.create_revision : rev;
            this.stmt.insertLog.run(rev, w.key, value, createRevision, current?.revision ?? 0, 0);
            this.stmt.upsertCurrent.run(w.key, rev, createRevision, value);
            const kv: KeyValue = { key: w.key, value, createRevision, modRevision: rev };
            events.push(current ? { type: 'put', revision: rev, kv, prevKv: toKv(current) } : { type: 'put', revision: rev, kv });
            outcomes.push(() => w.resolve({ revision: rev, kv }));
          } else {
            const prevKv = toKv(current!);
            this.stmt.insertLog.run(rev, w.key, null, current!.create_revision, current!.revision, 1);
            this.stmt.deleteCurrent.run(w.key);
            events.push({ type: 'delete', revision: rev, key: w.key, prevKv });
            outcomes.push(() => w.resolve({ revision: rev, prevKv }));
          }
        }
      })();
    } catch (err) {
      this.lastWriteError = err instanceof Error ? err.message : String(err);
      const failure = new StorageError('Unavailable', `storage write failed: ${this.lastWriteError}`);
      for (const w of batch) w.reject(failure);
      return;
    }
    this.revision = revision;
    this.lastWriteError = undefined;
    this.counters.transactions++;
    this.counters.writes += events.length;
    for (const settle of outcomes) settle();
    this.hub.publish(events);
  }

  private casFailure(w: PendingWrite, current: Row | undefined): StorageError | undefined {
    if (w.expected === 0) {
      if (w.op === 'put') return current ? new StorageError('KeyExists', `key ${w.key} already exists`, w.key, toKv(current)) : undefined;
      return current ? undefined : new StorageError('KeyNotFound', `key ${w.key} not found`, w.key);
    }
    if (!current) return new StorageError('KeyNotFound', `key ${w.key} not found`, w.key);
    if (current.revision !== w.expected) {
      return new StorageError('Conflict', `key ${w.key} is at revision ${current.revision}, not ${w.expected}`, w.key, toKv(current));
    }
    return undefined;
  }
}
