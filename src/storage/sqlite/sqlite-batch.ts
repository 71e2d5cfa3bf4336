// The SQLite write side, shared by the writer thread (sqlite-writer-worker.ts) and the in-process
// writer of ':memory:' stores: one batch of writes in one transaction (one sync), each write
// checked by its own compare-and-swap against the rows as the batch has left them so far, each
// success given the next revision; and compaction, window by window. It owns the writer's
// connection settings and statements; it knows nothing of threads, promises or watchers.

import type Database from 'better-sqlite3';

export interface WriteRequest {
  op: 'put' | 'delete';
  key: string;
  /** The new value (puts only). */
  value?: Uint8Array;
  /** The modRevision the key must have; 0: a put must create it, a delete must find it. */
  expected: number;
}

/** The row a write found (its previous value, or the current one on a CAS failure). */
export interface FoundRow {
  revision: number;
  createRevision: number;
  value: Uint8Array;
}

export type AppliedWrite =
  | { ok: true; revision: number; createRevision: number; prev?: FoundRow }
  | { ok: false; code: 'KeyExists' | 'KeyNotFound' | 'Conflict'; current?: FoundRow };

export interface AppliedBatch {
  /** One per request, in request order. */
  writes: AppliedWrite[];
  /** The store's revision after the batch (unchanged if every write failed its CAS). */
  revision: number;
}

interface Row {
  revision: number;
  create_revision: number;
  value: Buffer;
}

/** The revision of a store that has never been written (etcd's too): its first write is 2. */
export const FIRST_REVISION = 1;
const COMPACT_BATCH = 1000;

/**
 * The writer connection's settings: WAL, and a sync per commit unless durability is 'normal'.
 * After a burst (a large batch, an online defrag moving pages through it) the WAL file is cut
 * back to 64 MiB when it is next reset, rather than kept at its largest size.
 */
export function configureWriter(db: Database.Database, durability: 'full' | 'normal'): void {
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${durability === 'normal' ? 'NORMAL' : 'FULL'}`);
  db.pragma('busy_timeout = 5000');
  db.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
}

/**
 * The latest revision: not stored per write (one page less per commit). Compaction only removes
 * rows at or below the compacted revision, so the newest log row or the compacted revision is it.
 * A fresh database is at revision 1 (resourceVersion "0" means "any" to clients).
 */
export function latestRevision(db: Database.Database): number {
  const max = db.prepare<[], { r: number | null }>('SELECT MAX(revision) AS r FROM log').get()!.r ?? 0;
  const compacted = db.prepare<[], { value: number }>("SELECT value FROM meta WHERE name = 'compacted'").get()!.value;
  return Math.max(max, compacted, FIRST_REVISION);
}

const asBuffer = (v: Uint8Array): Buffer => (Buffer.isBuffer(v) ? v : Buffer.from(v.buffer, v.byteOffset, v.byteLength));
const found = (r: Row): FoundRow => ({ revision: r.revision, createRevision: r.create_revision, value: r.value });

export class BatchWriter {
  private readonly stmt;
  private revision: number;
  private stopCompaction = false;

  constructor(private readonly db: Database.Database) {
    this.stmt = {
      // The value is the log row the key's latest revision names (schema 2 stores it once).
      current: db.prepare<[string], Row>('SELECT c.revision AS revision, c.create_revision AS create_revision, l.value AS value FROM current AS c JOIN log AS l ON l.revision = c.revision WHERE c.key = ?'),
      insertLog: db.prepare<[number, string, Buffer | null, number, number, number]>(
        'INSERT INTO log (revision, key, value, create_revision, prev_revision, deleted) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      upsertCurrent: db.prepare<[string, number, number]>(
        'INSERT INTO current (key, revision, create_revision) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET revision = excluded.revision, create_revision = excluded.create_revision',
      ),
      deleteCurrent: db.prepare<[string]>('DELETE FROM current WHERE key = ?'),
      setMeta: db.prepare<[number, string]>('UPDATE meta SET value = ? WHERE name = ?'),
      compactSuperseded: db.prepare<[number, number]>(
        'DELETE FROM log WHERE revision IN (SELECT prev_revision FROM log WHERE revision > ? AND revision <= ? AND prev_revision != 0)',
      ),
      compactTombstones: db.prepare<[number, number]>('DELETE FROM log WHERE deleted = 1 AND revision > ? AND revision <= ?'),
    };
    this.revision = latestRevision(db);
  }

  /** Applies the batch in one transaction; throws (everything rolled back) if the transaction fails. */
  apply(batch: readonly WriteRequest[]): AppliedBatch {
    const writes: AppliedWrite[] = [];
    let revision = this.revision;
    // IMMEDIATE: the write lock is taken (waiting up to busy_timeout) before the first read, so a
    // lock held elsewhere is waited for rather than failing the upgrade from a read at once.
    this.db.transaction(() => {
      for (const w of batch) {
        const current = this.stmt.current.get(w.key);
        const failure = casFailure(w, current);
        if (failure) {
          writes.push(current ? { ok: false, code: failure, current: found(current) } : { ok: false, code: failure });
          continue;
        }
        const rev = ++revision;
        if (w.op === 'put') {
          const value = asBuffer(w.value!);
          const createRevision = current ? current.create_revision : rev;
          this.stmt.insertLog.run(rev, w.key, value, createRevision, current?.revision ?? 0, 0);
          this.stmt.upsertCurrent.run(w.key, rev, createRevision);
          writes.push(current ? { ok: true, revision: rev, createRevision, prev: found(current) } : { ok: true, revision: rev, createRevision });
        } else {
          this.stmt.insertLog.run(rev, w.key, null, current!.create_revision, current!.revision, 1);
          this.stmt.deleteCurrent.run(w.key);
          writes.push({ ok: true, revision: rev, createRevision: current!.create_revision, prev: found(current!) });
        }
      }
    }).immediate();
    this.revision = revision;
    return { writes, revision };
  }

  /**
   * Records `target` as compacted (durably first), then removes superseded rows and tombstones
   * window by window (COMPACT_BATCH revisions per transaction), calling `pause` between windows so
   * that batches of writes go on. A crash midway leaves dead rows behind, invisible to reads.
   */
  async compact(from: number, target: number, pause: () => Promise<void>): Promise<void> {
    this.stmt.setMeta.run(target, 'compacted');
    for (let lo = from; lo < target && !this.stopCompaction; lo += COMPACT_BATCH) {
      const hi = Math.min(lo + COMPACT_BATCH, target);
      this.db.transaction(() => {
        this.stmt.compactSuperseded.run(lo, hi);
        this.stmt.compactTombstones.run(lo, hi);
      }).immediate();
      if (hi < target) await pause();
    }
  }

  /** Ends a running compaction after its current window (the store is closing). */
  stop(): void {
    this.stopCompaction = true;
  }
}

function casFailure(w: WriteRequest, current: Row | undefined): 'KeyExists' | 'KeyNotFound' | 'Conflict' | undefined {
  if (w.expected === 0) {
    if (w.op === 'put') return current ? 'KeyExists' : undefined;
    return current ? undefined : 'KeyNotFound';
  }
  if (!current) return 'KeyNotFound';
  return current.revision !== w.expected ? 'Conflict' : undefined;
}
