// `snapshot restore`: a new store from a snapshot, for a server started on a new data dir. The
// file is checked first (snapshot-status.ts) and the target must be new or empty: a refusal
// writes nothing. The new store holds exactly the snapshot's live objects (keys, values, create
// and mod revisions as they were: same uids, resourceVersions, everything in the stored bytes),
// and no history. As `etcdutl snapshot restore --bump-revision N --mark-compacted` does, its
// revision starts N past the snapshot's and everything at or below that is compacted: a new
// write never gets a resourceVersion the old server may have handed out after the snapshot, and
// a client's watch or exact list from before gets 410 Expired and re-lists. Built under a
// temporary name in the target, synced, then renamed into place.

import Database from 'better-sqlite3';
import { mkdirSync, readdirSync, renameSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { applySchema } from './sqlite-schema.js';
import { partialFamily, partialNameFor, SnapshotError, SQLITE_FILE_NAME } from './snapshot-format.js';
import { fsyncPath, removeStalePartials } from './snapshot-save.js';
import { inspectSnapshot, type SnapshotStatus } from './snapshot-status.js';

/** etcd's suggestion for --bump-revision: far past anything handed out between a snapshot and a restore. */
export const DEFAULT_BUMP_REVISION = 1_000_000_000;

export interface RestoreOptions {
  file: string;
  /** The new server's data dir: must not exist, or be empty. */
  dataDir: string;
  bumpRevision?: number;
}

export interface RestoredStore {
  snapshot: SnapshotStatus;
  dbPath: string;
  /** The restored store's revision (snapshot revision + bump), compacted up to it. */
  revision: number;
  durationMs: number;
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Whether the target had to be made (so that a failure removes it again). */
function checkTarget(dir: string): boolean {
  let st;
  try {
    st = statSync(dir);
  } catch {
    return true;
  }
  if (!st.isDirectory()) throw new SnapshotError(`${dir} exists and is not a directory`);
  // What a killed restore into it left (its process is gone) does not make it non-empty.
  removeStalePartials(dir);
  if (readdirSync(dir).length > 0) throw new SnapshotError(`${dir} is not empty; restore writes only into a new or empty directory`);
  return false;
}

export function restoreSnapshot(o: RestoreOptions): RestoredStore {
  const started = performance.now();
  const bump = o.bumpRevision ?? DEFAULT_BUMP_REVISION;
  if (!Number.isSafeInteger(bump) || bump < 0) throw new SnapshotError(`--bump-revision must be a non-negative integer`);
  const snapshot = inspectSnapshot(o.file);
  const dir = resolve(o.dataDir);
  const created = checkTarget(dir);
  const revision = snapshot.revision + bump;
  if (!Number.isSafeInteger(revision)) throw new SnapshotError(`--bump-revision ${bump} takes the revision past the largest safe integer`);
  const dbPath = join(dir, SQLITE_FILE_NAME);
  const partial = partialNameFor(dbPath);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const db = new Database(partial);
    try {
      // Built in one transaction, synced once at the end (the file is not in use until renamed).
      db.pragma('journal_mode = DELETE');
      db.pragma('synchronous = OFF');
      applySchema(db);
      db.prepare('ATTACH DATABASE ? AS snap').run(snapshot.file);
      db.transaction(() => {
        db.exec('INSERT INTO current (key, revision, create_revision, value) SELECT key, revision, create_revision, value FROM snap.current');
        // A live row per key in the log too: reads as of a revision (and a delete's previous value) find it there.
        db.exec('INSERT INTO log (revision, key, value, create_revision, prev_revision, deleted) SELECT revision, key, value, create_revision, 0, 0 FROM snap.current');
        db.prepare("UPDATE meta SET value = ? WHERE name = 'compacted'").run(revision);
      })();
      db.exec('DETACH DATABASE snap');
    } finally {
      db.close();
    }
    fsyncPath(partial);
    renameSync(partial, dbPath);
    fsyncPath(dir);
  } catch (err) {
    for (const f of partialFamily(partial)) rmSync(f, { force: true });
    if (created) {
      try {
        rmdirSync(dir);
      } catch {
        // Something else appeared in it meanwhile: leave it.
      }
    }
    throw new SnapshotError(`cannot restore into ${dir}: ${messageOf(err)}`);
  }
  return { snapshot, dbPath, revision, durationMs: performance.now() - started };
}
