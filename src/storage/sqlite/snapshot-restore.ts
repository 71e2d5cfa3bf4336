// `snapshot restore`: a new store from a snapshot, for a server started on a new data dir. The
// file is checked first (snapshot-status.ts: its SHA-256, its format) and the target must be new
// or empty: a refusal writes nothing. The new store holds exactly the snapshot's live objects
// (keys, values, create and mod revisions as they were: same uids, resourceVersions, everything
// in the stored bytes), and no history. As `etcdutl snapshot restore --bump-revision N
// --mark-compacted` does, its revision starts N past the snapshot's and everything at or below
// that is compacted: a new write never gets a resourceVersion the old server may have handed out
// after the snapshot, and a client's watch or exact list from before gets 410 Expired and re-lists.
//
// Safe under kill -9 at any step: the data dir is marked unfinished (new-store-dir.ts) before
// anything is written, the store is built under a temporary name, its objects' digest is
// compared with the one the snapshot recorded, then it is synced and renamed to state.db, and
// only then is the mark removed. A server refuses a marked dir; the same restore run again
// removes what the interrupted one left and completes.

import Database from 'better-sqlite3';
import { renameSync } from 'node:fs';
import { resolve } from 'node:path';
import { digestStore } from './content-digest.js';
import { claimNewStoreDir } from './new-store-dir.js';
import { pausePoint } from './pause-point.js';
import { applySchema, SCHEMA_VERSION } from './sqlite-schema.js';
import { partialNameFor, SnapshotError } from './snapshot-format.js';
import { fsyncPath } from './snapshot-save.js';
import { inspectSnapshot, type SnapshotStatus } from './snapshot-status.js';
import { commandLine, type UnfinishedMark } from './unfinished-marker.js';

/** etcd's suggestion for --bump-revision: far past anything handed out between a snapshot and a restore. */
export const DEFAULT_BUMP_REVISION = 1_000_000_000;
/** Live objects copied per statement: the steps between which a restore can be stopped. */
const COPY_CHUNK = 20_000;

export interface RestoreOptions {
  file: string;
  /** The new server's data dir: must not exist, or be empty (or hold what an interrupted restore left). */
  dataDir: string;
  bumpRevision?: number;
  /** Restore without checking the snapshot's SHA-256 (a format-1 snapshot has none). */
  skipHashCheck?: boolean;
}

export interface RestoredStore {
  snapshot: SnapshotStatus;
  dbPath: string;
  /** The restored store's revision (snapshot revision + bump), compacted up to it. */
  revision: number;
  /** The content digest of the restored objects (equal to the snapshot's). */
  contentSha256: string;
  /** What an interrupted command had left in the data dir (removed before the restore). */
  cleaned?: UnfinishedMark;
  durationMs: number;
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** The command to run again, as the data dir's mark names it (absolute paths). */
function restoreCommand(o: RestoreOptions, file: string, dir: string, bump: number): string {
  return commandLine([
    'platform-apiserver',
    'snapshot',
    'restore',
    file,
    '--data-dir',
    dir,
    ...(bump !== DEFAULT_BUMP_REVISION ? ['--bump-revision', String(bump)] : []),
    ...(o.skipHashCheck ? ['--skip-hash-check'] : []),
  ]);
}

export function restoreSnapshot(o: RestoreOptions): RestoredStore {
  const started = performance.now();
  const bump = o.bumpRevision ?? DEFAULT_BUMP_REVISION;
  if (!Number.isSafeInteger(bump) || bump < 0) throw new SnapshotError(`--bump-revision must be a non-negative integer`);
  const snapshot = inspectSnapshot(o.file, { skipHashCheck: o.skipHashCheck, integrity: false });
  if (snapshot.checksum === 'none') {
    throw new SnapshotError(`${snapshot.file} is a format-${snapshot.formatVersion} snapshot, which carries no checksum: its contents cannot be checked (restore it with --skip-hash-check if you trust it)`);
  }
  // The checksum proves the file is as it was sealed; without it, SQLite's own check of the b-trees.
  if (snapshot.checksum !== 'ok') inspectSnapshot(o.file, { skipHashCheck: true, integrity: true });
  const revision = snapshot.revision + bump;
  if (!Number.isSafeInteger(revision)) throw new SnapshotError(`--bump-revision ${bump} takes the revision past the largest safe integer`);
  const dir = resolve(o.dataDir);
  const target = claimNewStoreDir(dir, { command: restoreCommand(o, snapshot.file, dir, bump), doc: 'docs/backup-and-restore.md' }, (m) => new SnapshotError(m));
  pausePoint('restore:marked');
  const partial = partialNameFor(target.dbPath);
  let contentSha256: string;
  try {
    contentSha256 = build(partial, snapshot, revision);
    fsyncPath(partial);
    renameSync(partial, target.dbPath);
    fsyncPath(dir);
    pausePoint('restore:renamed');
    target.complete();
  } catch (err) {
    target.abandon();
    if (err instanceof SnapshotError) throw new SnapshotError(`cannot restore into ${dir}: ${err.message}`);
    throw new SnapshotError(`cannot restore into ${dir}: ${messageOf(err)}`);
  }
  return { snapshot, dbPath: target.dbPath, revision, contentSha256, cleaned: target.cleaned, durationMs: performance.now() - started };
}

/**
 * The new store in `partial`: each live object's latest log row (in revision order, so the log
 * fills its pages in order) and its `current` row, then the compaction; verified against the
 * snapshot's recorded digest of its objects. Returns that digest.
 */
function build(partial: string, snapshot: SnapshotStatus, revision: number): string {
  const db = new Database(partial);
  try {
    // Synced once, by the caller, when complete (the file is not in use until renamed).
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    applySchema(db);
    // Only read (reads write nothing, not even a journal; better-sqlite3 has no read-only ATTACH).
    db.prepare('ATTACH DATABASE ? AS snap').run(snapshot.file);
    const copyLog = db.prepare<[number, number]>(
      `INSERT INTO log (revision, key, value, create_revision, prev_revision, deleted)
       SELECT revision, key, value, create_revision, 0, 0 FROM snap.log
       WHERE revision > ? AND revision IN (SELECT revision FROM snap.current) ORDER BY revision LIMIT ?`,
    );
    const lastCopied = db.prepare<[], { r: number | null }>('SELECT MAX(revision) AS r FROM log');
    // Every live object's latest write is in the snapshot's log (compaction never removes it).
    for (let after = 0, halfway = false; ; ) {
      const n = copyLog.run(after, COPY_CHUNK).changes;
      if (n === 0) break;
      after = lastCopied.get()!.r!;
      if (!halfway) pausePoint('restore:copying');
      halfway = true;
    }
    db.exec('INSERT INTO current (key, revision, create_revision) SELECT key, revision, create_revision FROM snap.current ORDER BY key');
    db.prepare("UPDATE meta SET value = ? WHERE name = 'compacted'").run(revision);
    const live = db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM current').get()!.n;
    const logged = db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM log').get()!.n;
    if (live !== snapshot.totalObjects || logged !== live) throw new SnapshotError(`the snapshot's ${snapshot.totalObjects} objects gave ${live} keys and ${logged} values: it is damaged`);
    const restored = digestStore(db, SCHEMA_VERSION);
    pausePoint('restore:verifying');
    const expected = snapshot.contentSha256 ?? digestStore(db, snapshot.schemaVersion, 'snap').sha256;
    if (restored.sha256 !== expected) {
      throw new SnapshotError(`the restored objects do not match the snapshot's record of them (expected sha256 ${expected}, got ${restored.sha256}): the snapshot is damaged`);
    }
    db.exec('DETACH DATABASE snap');
    return restored.sha256;
  } finally {
    db.close();
  }
}
