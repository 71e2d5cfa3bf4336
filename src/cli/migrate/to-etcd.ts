// SQLite → etcd. Every live object of the data dir's store, read at ONE revision, is written
// under the etcd prefix with its stored bytes unchanged (uid, creationTimestamp, generation,
// managedFields, finalizers, deletionTimestamp: everything but resourceVersion, which is never
// stored: it is the key's etcd revision from now on). The prefix must hold nothing. etcd's
// revision is first advanced past the source's, so every object gets a revision above any
// resourceVersion the old store handed out; the copy is read back and compared key by key before
// success is reported; then etcd is compacted at the copy's revision, so a client presenting a
// resourceVersion from the old store gets 410 Gone and re-lists (rather than a replay of the
// migration's writes, or a watch waiting for a revision etcd has not reached). On a failure after the first write,
// what the migration wrote is removed again, and the message says what (if anything) is left.
// Safe under kill -9 at any step: the prefix is marked unfinished in the transaction that finds
// it empty, and the mark goes only in the last transaction, after verification and compaction
// (etcd-claim.ts); a server refuses a marked prefix, naming this command, and the command run
// again removes what the interrupted run wrote and completes.

import { resolve } from 'node:path';
import type { EtcdUnfinishedMark } from '../../storage/etcd/etcd-unfinished.js';
import { pausePoint } from '../../storage/sqlite/pause-point.js';
import { openSqliteExport, NotOurStoreError, type ExportedKey, type SqliteExport } from '../../storage/sqlite/sqlite-export.js';
import { commandLine } from '../../storage/sqlite/unfinished-marker.js';
import { databasePath, lockSource } from './data-dir.js';
import { claimPrefix, type PrefixClaim } from './etcd-claim.js';
import { EtcdPrefix, PAGE_SIZE, type EtcdEndpoint } from './etcd-range.js';
import { advanceRevision, GuardedWriter, PADDING_KEY, removeWritten, type WriterLimits } from './etcd-writer.js';
import { MigrationError, errorText } from './migration-error.js';
import { compareStores } from './verify.js';

export interface ToEtcdOptions {
  dataDir: string;
  target: EtcdEndpoint;
  /** Copy from a data dir a running server holds (a consistent read at one revision). */
  force?: boolean;
  /**
   * Advance etcd's revision past the source's before copying (default true): costs one write per
   * revision, so that no old resourceVersion is above the new store's.
   */
  advanceRevision?: boolean;
  limits?: WriterLimits;
  /** Tests only: runs between the copy and its verification. */
  afterCopy?: (target: EtcdPrefix) => Promise<void>;
}

export interface ToEtcdResult {
  objects: number;
  /** The SQLite store's revision the copy was read at. */
  sourceRevision: number;
  /** etcd's revision after the copy (and where etcd was compacted). */
  targetRevision: number;
  /** The source was held by a running server (--force). */
  live: boolean;
  /** The content digest both sides gave. */
  sha256: string;
  /** What an interrupted migration into the prefix had left (removed first). */
  cleaned?: { mark: EtcdUnfinishedMark; removed: number };
  seconds: number;
}

/** The command line that does this migration, for the prefix's unfinished mark (absolute paths). */
export function toEtcdCommand(dir: string, o: ToEtcdOptions): string {
  const t = o.target;
  const tls = (flag: string, file: string | undefined): string[] => (file ? [flag, resolve(file)] : []);
  return commandLine([
    'platform-apiserver',
    'migrate',
    '--data-dir',
    dir,
    '--to-etcd-servers',
    t.servers.join(','),
    '--etcd-prefix',
    t.prefix || '/',
    ...tls('--etcd-cafile', t.caFile),
    ...tls('--etcd-certfile', t.certFile),
    ...tls('--etcd-keyfile', t.keyFile),
    ...(o.force ? ['--force'] : []),
    ...(o.advanceRevision === false ? ['--no-advance-revision'] : []),
  ]);
}

/** The export's pages, in key order, bounded by PAGE_SIZE. */
export function* exportPages(source: SqliteExport): Generator<ExportedKey[]> {
  let after = '';
  for (;;) {
    const page = source.page(after, PAGE_SIZE);
    if (!page.length) return;
    yield page;
    after = page[page.length - 1]!.key;
  }
}

export async function migrateToEtcd(opts: ToEtcdOptions): Promise<ToEtcdResult> {
  const started = performance.now();
  const dir = resolve(opts.dataDir);
  const { lock, live } = lockSource(dir, opts.force ?? false);
  let source: SqliteExport | undefined;
  let target: EtcdPrefix | undefined;
  try {
    try {
      source = openSqliteExport(databasePath(dir), { shared: live });
    } catch (err) {
      throw err instanceof NotOurStoreError ? new MigrationError(err.message) : err;
    }
    const expected = source.count();
    target = new EtcdPrefix(opts.target);
    const claim = await claimPrefix(target, toEtcdCommand(dir, opts));
    try {
      // Past every resourceVersion the old store handed out: then all of them are below the
      // compaction at the end (410 Gone, re-list), none is a "future" one a watch would wait for.
      if (opts.advanceRevision ?? true) await advanceRevision(target, claim.emptyAt, source.revision);
      const { revision: targetRevision, sha256 } = await copyAndVerify(source, target, expected, opts);
      await claim.complete();
      return { objects: expected, sourceRevision: source.revision, targetRevision, live, sha256, cleaned: claim.cleaned, seconds: (performance.now() - started) / 1000 };
    } catch (err) {
      throw await undo(err, target, claim, source);
    }
  } finally {
    source?.close();
    target?.close();
    lock?.release();
  }
}

async function copyAndVerify(source: SqliteExport, target: EtcdPrefix, expected: number, opts: ToEtcdOptions): Promise<{ revision: number; sha256: string }> {
  const writer = new GuardedWriter(target, opts.limits);
  try {
    let pages = 0;
    for (const page of exportPages(source)) {
      for (const kv of page) {
        if (!kv.key.startsWith(`${target.keys.root}/`)) throw new MigrationError(`key ${kv.key} is outside ${target.keys.root}/: not an object of this server`);
        await writer.add(kv.key, kv.value);
      }
      if (++pages === 1) pausePoint('migrate-to-etcd:copying');
    }
    await writer.flush();
  } catch (err) {
    // The cleanup must see every batch that was sent: none may land after it.
    await writer.drain();
    throw err;
  }
  await opts.afterCopy?.(target);
  let revision = 0;
  const verdict = await compareStores(exportPages(source), pausedAfterFirst(target.pages(0, (r) => (revision = r)), 'migrate-to-etcd:verifying'), expected);
  if ('mismatch' in verdict) throw new MigrationError(`verification failed: ${verdict.mismatch}`);
  // Old resourceVersions below this revision now get 410 Gone from a watch (re-list), never a replay.
  await target.compact(revision);
  pausePoint('migrate-to-etcd:compacted');
  return { revision, sha256: verdict.targetSha256 };
}

/** The pages, with the pause point `step` once the first has been read (tests stop a verification midway there). */
export async function* pausedAfterFirst<T>(pages: AsyncIterable<T>, step: string): AsyncGenerator<T> {
  let first = true;
  for await (const page of pages) {
    yield page;
    if (first) pausePoint(step);
    first = false;
  }
}

/** After a failure: removes what was written; the error says what is left, if anything. */
async function undo(err: unknown, target: EtcdPrefix, claim: PrefixClaim, source: SqliteExport): Promise<MigrationError> {
  const why = errorText(err);
  const emptyAt = claim.emptyAt;
  // A failure while advancing the revision may leave the scratch key behind (outside the prefix).
  await target.client.kv.deleteRange({ key: Buffer.from(PADDING_KEY) }).catch(() => undefined);
  try {
    const c = await removeWritten(target, emptyAt, (key) => source.get(key));
    // What is left (if anything) is someone else's: the prefix is no longer this migration's to mark.
    await claim.abandon();
    if (c.left === 0) return new MigrationError(`${why}; the etcd prefix was left as it was found (${c.removed} key${c.removed === 1 ? '' : 's'} written and removed again)`);
    return new MigrationError(
      `${why}; ${c.removed} key${c.removed === 1 ? '' : 's'} written and removed again, but ${c.left} key${c.left === 1 ? '' : 's'} remain under ${target.endpoint.prefix}/ (e.g. ${c.examples.join(', ')}): changed since this migration wrote them, or written by something else`,
    );
  } catch (cleanupErr) {
    return new MigrationError(
      `${why}; removing what was written also failed (${errorText(cleanupErr)}): keys under ${target.endpoint.prefix}/ created after etcd revision ${emptyAt} are this migration's, ` +
        `and the prefix stays marked unfinished (no server serves it); once etcd answers, run the same command again (it removes them first) or remove them with \`etcdctl del --prefix ${target.endpoint.prefix}/\``,
    );
  }
}
