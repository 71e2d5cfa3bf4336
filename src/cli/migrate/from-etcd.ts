// etcd → SQLite (the way back). Every key under the etcd prefix, read a page at a time at ONE
// etcd revision, goes into a new database in an empty data dir with its stored bytes unchanged.
// The new store's revisions start above that etcd revision and everything below its last one is
// recorded as compacted (sqlite-import.ts), so old resourceVersions get 410 Gone and clients
// re-list.
//
// Safe under kill -9 at any step: the data dir is marked unfinished before anything is written
// (new-store-dir.ts; a server refuses it, naming this command), the database is written under a
// temporary name, read back and compared key by key and by content digest with etcd at the same
// revision, synced, renamed to state.db, and only then is the mark removed. Run again, the
// command removes what the interrupted run left and completes. On a failure it reports, the
// data dir is left as it was found (removed again if the migration created it).

import { renameSync } from 'node:fs';
import { resolve } from 'node:path';
import { claimNewStoreDir } from '../../storage/sqlite/new-store-dir.js';
import { pausePoint } from '../../storage/sqlite/pause-point.js';
import { createSqliteImport, type SqliteImport } from '../../storage/sqlite/sqlite-import.js';
import { openSqliteExport, type SqliteExport } from '../../storage/sqlite/sqlite-export.js';
import { partialNameFor } from '../../storage/sqlite/snapshot-format.js';
import { commandLine, fsyncPath, type UnfinishedMark } from '../../storage/sqlite/unfinished-marker.js';
import { EtcdPrefix, type EtcdEndpoint } from './etcd-range.js';
import { MigrationError, errorText } from './migration-error.js';
import { exportPages, pausedAfterFirst } from './to-etcd.js';
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
  /** The content digest both sides gave. */
  sha256: string;
  /** What an interrupted run had left in the data dir (removed first). */
  cleaned?: UnfinishedMark;
  seconds: number;
}

/** The command line that does this migration, for the data dir's unfinished mark (absolute paths). */
export function fromEtcdCommand(source: EtcdEndpoint, dir: string): string {
  const tls = (flag: string, file: string | undefined): string[] => (file ? [flag, resolve(file)] : []);
  return commandLine([
    'platform-apiserver',
    'migrate',
    '--from-etcd-servers',
    source.servers.join(','),
    '--etcd-prefix',
    source.prefix || '/',
    ...tls('--etcd-cafile', source.caFile),
    ...tls('--etcd-certfile', source.certFile),
    ...tls('--etcd-keyfile', source.keyFile),
    '--data-dir',
    dir,
  ]);
}

export async function migrateFromEtcd(opts: FromEtcdOptions): Promise<FromEtcdResult> {
  const started = performance.now();
  const dir = resolve(opts.dataDir);
  const target = claimNewStoreDir(dir, { command: fromEtcdCommand(opts.source, dir), doc: 'docs/migration.md' }, (m) => new MigrationError(m));
  pausePoint('migrate-from-etcd:marked');
  const temp = partialNameFor(target.dbPath);
  let source: EtcdPrefix | undefined;
  let out: SqliteImport | undefined;
  try {
    source = new EtcdPrefix(opts.source);
    let revision = 0;
    const pages = source.pages(0, (r) => (revision = r));
    const first = await pages.next();
    if (first.done) throw new MigrationError(`etcd prefix ${opts.source.prefix}/ holds no objects (is --etcd-prefix right?); nothing was written`);
    out = createSqliteImport(temp, revision);
    out.add(first.value);
    pausePoint('migrate-from-etcd:copying');
    for await (const page of pages) out.add(page);
    const objects = out.added;
    const targetRevision = out.finish();
    const sha256 = await verify(temp, source, revision, objects);
    fsyncPath(temp);
    renameSync(temp, target.dbPath);
    fsyncPath(dir);
    pausePoint('migrate-from-etcd:renamed');
    target.complete();
    return { objects, sourceRevision: revision, targetRevision, sha256, cleaned: target.cleaned, seconds: (performance.now() - started) / 1000 };
  } catch (err) {
    out?.abandon();
    target.abandon();
    throw err instanceof MigrationError ? err : new MigrationError(errorText(err));
  } finally {
    source?.close();
  }
}

/** The new database, read back, against etcd at the revision it was copied from: key by key, and by content digest. */
async function verify(path: string, source: EtcdPrefix, revision: number, expected: number): Promise<string> {
  let copy: SqliteExport | undefined;
  try {
    copy = openSqliteExport(path);
    const verdict = await compareStores(pausedAfterFirst(source.pages(revision), 'migrate-from-etcd:verifying'), exportPages(copy), expected);
    if ('mismatch' in verdict) throw new MigrationError(`verification failed: ${verdict.mismatch}`);
    return verdict.targetSha256;
  } finally {
    copy?.close();
  }
}
