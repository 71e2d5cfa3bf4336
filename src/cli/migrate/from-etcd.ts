// etcd → SQLite (the way back). Every key under the etcd prefix, read a page at a time at ONE
// etcd revision, goes into a new database in an empty data dir with its stored bytes unchanged.
// The new store's revisions start above that etcd revision and everything below its last one is
// recorded as compacted (sqlite-import.ts), so old resourceVersions get 410 Gone and clients
// re-list. The database is written under a temporary name, read back and compared key by key
// with etcd at the same revision, and only then renamed to state.db; on any failure the data dir
// is left as it was found (removed again if the migration created it).

import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, rmdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createSqliteImport, type SqliteImport } from '../../storage/sqlite/sqlite-import.js';
import { openSqliteExport, type SqliteExport } from '../../storage/sqlite/sqlite-export.js';
import type { LockFile } from '../../storage/sqlite/lock-file.js';
import { checkEmptyTarget, databasePath, lockTarget } from './data-dir.js';
import { EtcdPrefix, type EtcdEndpoint } from './etcd-range.js';
import { MigrationError, errorText } from './migration-error.js';
import { exportPages } from './to-etcd.js';
import { compareStores } from './verify.js';

export interface FromEtcdOptions {
  source: EtcdEndpoint;
  dataDir: string;
}

export interface FromEtcdResult {
  objects: number;
  /** The etcd revision the copy was read at. */
  sourceRevision: number;
  /** The new store's revision (and its compacted revision). */
  targetRevision: number;
  seconds: number;
}

const TEMP_NAME = '.state.db.migrating';

export async function migrateFromEtcd(opts: FromEtcdOptions): Promise<FromEtcdResult> {
  const started = performance.now();
  const dir = resolve(opts.dataDir);
  checkEmptyTarget(dir);
  /** The outermost directory this migration created (undefined: the dir existed). */
  let created: string | undefined;
  try {
    created = mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new MigrationError(`cannot create data dir ${dir}: ${errorText(err)}`);
  }
  const temp = join(dir, TEMP_NAME);
  let lock: LockFile | undefined;
  let source: EtcdPrefix | undefined;
  let out: SqliteImport | undefined;
  let done = false;
  try {
    lock = lockTarget(dir);
    source = new EtcdPrefix(opts.source);
    let revision = 0;
    const pages = source.pages(0, (r) => (revision = r));
    const first = await pages.next();
    if (first.done) throw new MigrationError(`etcd prefix ${opts.source.prefix}/ holds no objects (is --etcd-prefix right?); nothing was written`);
    out = createSqliteImport(temp, revision);
    out.add(first.value);
    for await (const page of pages) out.add(page);
    const objects = out.added;
    const targetRevision = out.finish();
    await verify(temp, source, revision, objects);
    renameSync(temp, databasePath(dir));
    syncDir(dir);
    done = true;
    return { objects, sourceRevision: revision, targetRevision, seconds: (performance.now() - started) / 1000 };
  } catch (err) {
    throw err instanceof MigrationError ? err : new MigrationError(errorText(err));
  } finally {
    source?.close();
    if (!done) {
      out?.abandon();
      for (const f of [temp, `${temp}-wal`, `${temp}-shm`, `${temp}-journal`]) rmSync(f, { force: true });
    }
    lock?.release();
    if (!done && created) removeCreatedDirs(dir, created);
  }
}

/** The new database, read back, against etcd at the revision it was copied from. */
async function verify(path: string, source: EtcdPrefix, revision: number, expected: number): Promise<void> {
  let copy: SqliteExport | undefined;
  try {
    copy = openSqliteExport(path);
    const verdict = await compareStores(source.pages(revision), exportPages(copy), expected);
    if ('mismatch' in verdict) throw new MigrationError(`verification failed: ${verdict.mismatch}`);
  } finally {
    copy?.close();
  }
}

/** The rename is durable once the directory is synced. */
function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Removes the dirs this migration created, from `dir` up to `outermost`, each only if empty:
 * never anything someone else put there.
 */
function removeCreatedDirs(dir: string, outermost: string): void {
  for (let d = dir; ; d = dirname(d)) {
    try {
      rmdirSync(d);
    } catch {
      return; // Not empty or already gone: left as it is.
    }
    if (d === outermost || dirname(d) === d) return;
  }
}
