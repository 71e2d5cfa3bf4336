// The source data dir of a migration to etcd: the database file in it (DIR/state.db, as the
// server opens it), its lock (the server's lock file: one process per database), and the checks
// made before anything is read. (The way back writes into a new data dir: new-store-dir.ts.)
//
// A server that holds the source dir keeps accepting writes; a copy made meanwhile is consistent
// (one revision) but misses every write after it, and those writes are lost once clients move to
// the new store. So the migration refuses a held dir, naming the server's pid; with --force it
// copies the consistent state at one revision anyway (and says which revision).

import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { acquireLockFile, type LockFile } from '../../storage/sqlite/lock-file.js';
import { isStorageError } from '../../storage/revisioned-store.js';
import { assertFinished } from '../../storage/sqlite/unfinished-marker.js';
import { MigrationError, errorText } from './migration-error.js';

export const DATABASE_FILE = 'state.db';
export const databasePath = (dir: string): string => join(dir, DATABASE_FILE);
const lockPath = (dir: string): string => `${databasePath(dir)}.lock`;

/** The pid in the lock file, if any. */
function lockOwner(dir: string): string {
  try {
    return readFileSync(lockPath(dir), 'utf8').trim();
  } catch {
    return '?';
  }
}

/**
 * Checks that `dir` holds a database and takes its lock. Held by a live process: refused, or
 * with `force` read anyway (returns no lock: the server keeps it).
 */
export function lockSource(dir: string, force: boolean): { lock?: LockFile; live: boolean } {
  let st;
  try {
    st = statSync(dir);
  } catch (err) {
    throw new MigrationError(`data dir ${dir} cannot be read: ${errorText(err)}`);
  }
  if (!st.isDirectory()) throw new MigrationError(`data dir ${dir} is not a directory`);
  // A store a command has not finished writing is not one to copy.
  try {
    assertFinished(databasePath(dir));
  } catch (err) {
    throw new MigrationError(errorText(err));
  }
  if (!existsSync(databasePath(dir))) throw new MigrationError(`data dir ${dir} holds no database (${DATABASE_FILE}): nothing to migrate`);
  try {
    return { lock: acquireLockFile(lockPath(dir)), live: false };
  } catch (err) {
    if (!isStorageError(err, 'Unavailable')) {
      throw new MigrationError(`cannot lock ${databasePath(dir)}: ${errorText(err)}`);
    }
    if (force) return { live: true };
    throw new MigrationError(
      `a running server (pid ${lockOwner(dir)}) holds ${databasePath(dir)}: stop it first, so that no write is lost after the copy (or --force to copy the state at one revision while it keeps serving)`,
    );
  }
}
