// `defrag`: giving a store's free pages back to the file system, as `etcdctl defrag` does for
// etcd. Compaction frees pages inside the file (old versions, deletions) but SQLite keeps them
// for reuse, so after a burst of writes the file stays as large as it ever was.
//
// Offline (no server holds the data dir): the file is rewritten whole (store-rebuild.ts): no
// free pages, full b-tree pages, the current format; killed at any step, the old file is intact.
// Online (a live server holds it): the file is in incremental auto-vacuum mode (every file of
// schema 2 is), so free pages are released from another connection a few at a time
// (`PRAGMA incremental_vacuum(N)`, one short write transaction each, with a pause between them):
// the server's writer waits at most one step, never the whole defrag (etcd's own defrag blocks
// its member's writes until it is done). The file shrinks at the checkpoint that follows.

import Database from 'better-sqlite3';
import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { acquireLockFile } from './lock-file.js';
import { pausePoint } from './pause-point.js';
import { isStorageError } from '../revisioned-store.js';
import { SCHEMA_VERSION, schemaVersionOf } from './sqlite-schema.js';
import { SQLITE_FILE_NAME } from './snapshot-format.js';
import { rebuildStore } from './store-rebuild.js';
import { assertFinished } from './unfinished-marker.js';

export interface DefragOptions {
  dataDir: string;
  /** Online: pages released per step (default 32: 512 KiB of 16 KiB pages). */
  stepPages?: number;
  /**
   * Online: pause between steps, in ms (default 20): the server's writer, which waits for a
   * step with SQLite's busy handler (sleeps of 1 to 100 ms), must find the lock free most of the time.
   */
  pauseMs?: number;
}

export interface DefragResult {
  mode: 'offline' | 'online';
  dbPath: string;
  /** The file and its WAL before and after. */
  beforeBytes: number;
  afterBytes: number;
  freePagesBefore: number;
  freePagesAfter: number;
  /** Offline: the schema the file held before (an older one is upgraded). */
  fromSchema?: number;
  durationMs: number;
}

/** A defrag that cannot be done, said in one line. */
export class DefragError extends Error {
  override name = 'DefragError';
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

function diskBytes(dbPath: string): number {
  let n = 0;
  for (const f of [dbPath, `${dbPath}-wal`]) {
    try {
      n += statSync(f).size;
    } catch {
      // absent
    }
  }
  return n;
}

function freePages(dbPath: string): number {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    return Number(db.pragma('freelist_count', { simple: true }));
  } finally {
    db.close();
  }
}

export async function defragStore(o: DefragOptions): Promise<DefragResult> {
  const started = performance.now();
  const dbPath = join(resolve(o.dataDir), SQLITE_FILE_NAME);
  try {
    assertFinished(dbPath);
    statSync(dbPath);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new DefragError(code === 'ENOENT' ? `no SQLite store at ${dbPath}` : messageOf(err));
  }
  let lock;
  try {
    lock = acquireLockFile(`${dbPath}.lock`);
  } catch (err) {
    if (!isStorageError(err, 'Unavailable')) throw new DefragError(`cannot lock ${dbPath}: ${messageOf(err)}`);
    return online(dbPath, o, started);
  }
  try {
    const freePagesBefore = freePages(dbPath);
    pausePoint('defrag:locked');
    const r = rebuildStore(dbPath);
    return { mode: 'offline', dbPath, beforeBytes: r.beforeBytes, afterBytes: r.afterBytes, freePagesBefore, freePagesAfter: freePages(dbPath), fromSchema: r.fromSchema, durationMs: performance.now() - started };
  } catch (err) {
    throw new DefragError(`cannot defragment ${dbPath}: ${messageOf(err)}; the store was left as it was`);
  } finally {
    lock.release();
  }
}

/** Releases free pages a step at a time beside the running server that holds the store. */
async function online(dbPath: string, o: DefragOptions, started: number): Promise<DefragResult> {
  const step = Math.max(1, o.stepPages ?? 32);
  const pauseMs = o.pauseMs ?? 20;
  const beforeBytes = diskBytes(dbPath);
  const db = new Database(dbPath, { fileMustExist: true });
  try {
    // A step waits for the server's write transaction rather than failing; the server's waits for a step.
    db.pragma('busy_timeout = 10000');
    if (schemaVersionOf(db) < SCHEMA_VERSION || Number(db.pragma('auto_vacuum', { simple: true })) !== 2) {
      throw new DefragError(
        `${dbPath} is an older file, not in incremental auto-vacuum mode: its free pages can only be given back offline; stop the server and run defrag once (a server of this version also rewrites it when it starts)`,
      );
    }
    const freePagesBefore = Number(db.pragma('freelist_count', { simple: true }));
    for (let free = freePagesBefore; free > 0; ) {
      db.pragma(`incremental_vacuum(${step})`);
      const left = Number(db.pragma('freelist_count', { simple: true }));
      if (left >= free) break;
      free = left;
      pausePoint('defrag:online-step');
      await sleep(pauseMs);
    }
    // The file shrinks when the WAL is written back into it: a PASSIVE checkpoint never makes the
    // server's writes wait (FULL and TRUNCATE would); then, if the server is idle, the WAL is
    // emptied too. What a busy server commits meanwhile its own checkpoints write back.
    db.pragma('wal_checkpoint(PASSIVE)');
    db.pragma('busy_timeout = 50');
    try {
      db.pragma('wal_checkpoint(TRUNCATE)');
    } catch {
      // The server is writing: its own checkpoint finishes the job.
    }
    return {
      mode: 'online',
      dbPath,
      beforeBytes,
      afterBytes: diskBytes(dbPath),
      freePagesBefore,
      freePagesAfter: Number(db.pragma('freelist_count', { simple: true })),
      durationMs: performance.now() - started,
    };
  } catch (err) {
    if (err instanceof DefragError) throw err;
    throw new DefragError(`cannot defragment ${dbPath} online: ${messageOf(err)}`);
  } finally {
    db.close();
  }
}
