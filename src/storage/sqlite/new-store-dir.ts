// The target of a command that writes a whole new store into a data dir (snapshot restore,
// migrate from etcd): it must be new or empty, or hold only what an interrupted run of such a
// command left (its unfinished mark, unfinished-marker.ts), which is then removed. The dir is
// marked unfinished before anything else is in it (a new dir is made under a temporary name
// with the mark inside, then renamed into place) and locked as a server locks its store, so no
// server starts on it until complete() removes the mark; abandon() removes what was written.

import { mkdirSync, readdirSync, renameSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { acquireLockFile, type LockFile } from './lock-file.js';
import { isPartialName, SQLITE_FILE_NAME } from './snapshot-format.js';
import { removeStalePartials } from './snapshot-save.js';
import { clearUnfinished, fsyncPath, markerPathFor, markOwnerRunning, markUnfinished, readUnfinished, unfinishedMessage, type UnfinishedMark } from './unfinished-marker.js';

export interface NewStoreDir {
  dir: string;
  /** DIR/state.db: where the new store goes. */
  dbPath: string;
  /** What an interrupted run had left, now removed. */
  cleaned?: UnfinishedMark;
  /** The new store is in place, complete and synced: removes the mark (synced), then the lock. */
  complete(): void;
  /** After a failure: removes the store files and the mark, and the dir if this command made it. */
  abandon(): void;
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** The store files a data dir may hold (the database and SQLite's files beside it). */
const storeFamily = (dbPath: string): string[] => [dbPath, `${dbPath}-wal`, `${dbPath}-shm`, `${dbPath}-journal`];

/** Removes what an interrupted run left: the store files, every temporary file, the mark. */
function removeLeftovers(dir: string, dbPath: string): void {
  for (const f of storeFamily(dbPath)) rmSync(f, { force: true });
  const marker = basename(markerPathFor(dbPath));
  for (const name of readdirSync(dir)) {
    if (isPartialName(name) || name.startsWith(`${marker}.`)) rmSync(join(dir, name), { force: true });
  }
}

function checkEmpty(dir: string, except: readonly string[], fail: (message: string) => Error): void {
  const entries = readdirSync(dir).filter((n) => !except.includes(n));
  if (entries.length) {
    throw fail(`data dir ${dir} is not empty (${entries.slice(0, 3).join(', ')}${entries.length > 3 ? ', …' : ''}); a new store goes only into a new or empty directory`);
  }
}

/**
 * Makes `dir` (absent) with the mark already inside: it appears, by a rename, marked. Returns
 * the outermost directory it made (a parent, if it had to make parents).
 */
function createMarked(dir: string, dbPath: string, mark: Pick<UnfinishedMark, 'command' | 'doc'>): string {
  const parent = dirname(dir);
  const madeParent = mkdirSync(parent, { recursive: true, mode: 0o700 });
  const temp = join(parent, `.${basename(dir)}.${process.pid}.creating`);
  rmSync(temp, { recursive: true, force: true });
  mkdirSync(temp, { mode: 0o700 });
  try {
    markUnfinished(join(temp, basename(dbPath)), mark);
    renameSync(temp, dir);
  } catch (err) {
    rmSync(temp, { recursive: true, force: true });
    throw err;
  }
  fsyncPath(parent);
  return madeParent ?? dir;
}

/** Removes the dirs this command made, from `dir` up to `outermost`, each only if empty. */
function removeCreatedDirs(dir: string, outermost: string): void {
  for (let d = dir; ; d = dirname(d)) {
    try {
      rmdirSync(d);
    } catch {
      return; // Not empty (something else appeared in it) or already gone: left as it is.
    }
    if (d === outermost || dirname(d) === d) return;
  }
}

/**
 * Claims `dirPath` for a new store. `fail` makes the caller's one-line error. Refuses a dir that
 * holds anything else, or that a running command or server holds.
 */
export function claimNewStoreDir(dirPath: string, mark: Pick<UnfinishedMark, 'command' | 'doc'>, fail: (message: string) => Error): NewStoreDir {
  const dir = resolve(dirPath);
  const dbPath = join(dir, SQLITE_FILE_NAME);
  const lockName = `${SQLITE_FILE_NAME}.lock`;
  let st;
  try {
    st = statSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw fail(`data dir ${dir} cannot be read: ${messageOf(err)}`);
  }
  /** The outermost directory this command made, if it made the data dir. */
  let created: string | undefined;
  let cleaned: UnfinishedMark | undefined;
  let lock: LockFile;
  if (!st) {
    try {
      created = createMarked(dir, dbPath, mark);
    } catch (err) {
      throw fail(`cannot create data dir ${dir}: ${messageOf(err)}`);
    }
    lock = acquireLockFile(join(dir, lockName));
  } else {
    if (!st.isDirectory()) throw fail(`data dir ${dir} exists and is not a directory`);
    const left = readUnfinished(dbPath);
    if (left && markOwnerRunning(left)) throw fail(unfinishedMessage(`data dir ${dir}`, left));
    try {
      // A live server or command holding the dir keeps it; a dead one's lock is taken over.
      lock = acquireLockFile(join(dir, lockName));
    } catch (err) {
      throw fail(`data dir ${dir} is in use: ${messageOf(err)}`);
    }
    try {
      if (left) {
        removeLeftovers(dir, dbPath);
        cleaned = left;
      } else {
        removeStalePartials(dir);
      }
      checkEmpty(dir, [lockName, basename(markerPathFor(dbPath))], fail);
      markUnfinished(dbPath, mark);
    } catch (err) {
      lock.release();
      throw err;
    }
  }
  return {
    dir,
    dbPath,
    cleaned,
    complete() {
      clearUnfinished(dbPath);
      lock.release();
    },
    abandon() {
      try {
        removeLeftovers(dir, dbPath);
        clearUnfinished(dbPath);
      } finally {
        lock.release();
      }
      if (created) removeCreatedDirs(dir, created);
    },
  };
}
