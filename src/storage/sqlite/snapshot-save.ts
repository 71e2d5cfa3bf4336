// `snapshot save`: an online, consistent copy of the SQLite store while its server writes. The
// copy is one read transaction on a connection of our own (WAL: the writer goes on meanwhile and
// nothing it commits after the read began is in the copy), by `VACUUM INTO` (default: a compact
// copy; at the lowest CPU priority it slowed the server's writes least in `npm run bench --
// snapshot`) or SQLite's online backup API in one step (pages copied as they are). The
// copy is written under a temporary name in the target's directory, gets the snapshot metadata
// (format, schema version, the revision it holds, the digest of its objects), is sealed by its
// SHA-256 appended (snapshot-checksum.ts), is synced, then renamed over the target and the
// directory synced: a reader sees the old file or the whole new one, never part of one. A save
// killed at any step leaves only its temporary file, which nothing takes for a snapshot.

import Database from 'better-sqlite3';
import { readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { setPriority } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { digestStore } from './content-digest.js';
import { pausePoint } from './pause-point.js';
import { latestRevision } from './sqlite-batch.js';
import { SCHEMA_VERSION, schemaVersionOf } from './sqlite-schema.js';
import { appendChecksum } from './snapshot-checksum.js';
import { isPartialName, partialFamily, partialNameFor, partialOwner, SNAPSHOT_FORMAT_VERSION, SnapshotError, writeSnapshotInfo, type SnapshotInfo } from './snapshot-format.js';
import { assertFinished, fsyncPath } from './unfinished-marker.js';

export { fsyncPath };

/** 'vacuum' (default): VACUUM INTO; 'backup': SQLite's online backup API, all pages in one step. */
export type SnapshotMethod = 'vacuum' | 'backup';

export interface SaveSnapshotOptions {
  /** The store's database file. */
  dbPath: string;
  /** Where the snapshot goes (replaced atomically if it exists). */
  file: string;
  method?: SnapshotMethod;
}

export interface SavedSnapshot extends SnapshotInfo {
  file: string;
  sizeBytes: number;
  /** The SHA-256 of the file, appended to it. */
  sha256: string;
  durationMs: number;
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * A snapshot yields the CPU to the server it copies: the calling thread at the lowest priority
 * (nice 19; on Linux niceness is per thread, so a server's snapshot thread lowers only itself).
 * Best effort: where it cannot be changed the save goes on as it is.
 */
export function yieldToServer(): void {
  try {
    setPriority(19);
  } catch {
    // Not permitted here: the save runs at the priority it has.
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes what interrupted saves (processes that are gone) left in `dir`. */
export function removeStalePartials(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!isPartialName(name)) continue;
    const pid = partialOwner(name);
    if (pid !== undefined && pid !== process.pid && !processAlive(pid)) rmSync(join(dir, name), { force: true });
  }
}

function checkTarget(file: string): void {
  const dir = dirname(file);
  let st;
  try {
    st = statSync(dir);
  } catch {
    throw new SnapshotError(`cannot write ${file}: directory ${dir} does not exist`);
  }
  if (!st.isDirectory()) throw new SnapshotError(`cannot write ${file}: ${dir} is not a directory`);
  if (isPartialName(file)) throw new SnapshotError(`cannot write ${file}: names ending in .partial are kept for unfinished saves`);
  try {
    if (statSync(file).isDirectory()) throw new SnapshotError(`cannot write ${file}: it is a directory`);
  } catch (err) {
    if (err instanceof SnapshotError) throw err;
  }
}

async function copyStore(dbPath: string, partial: string, method: SnapshotMethod): Promise<void> {
  let src: Database.Database;
  try {
    src = new Database(dbPath, { readonly: true, fileMustExist: true });
  } catch (err) {
    throw new SnapshotError(`cannot open the store ${dbPath}: ${messageOf(err)}`);
  }
  try {
    src.pragma('busy_timeout = 5000');
    if (!src.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'log'").get()) {
      throw new SnapshotError(`${dbPath} is not a platform-apiserver store`);
    }
    if (method === 'vacuum') src.prepare('VACUUM INTO ?').run(partial);
    // Every page in one step, so one read transaction (a step-wise backup restarts whenever the
    // server commits in between, and may never finish under steady writes).
    else await src.backup(partial, { progress: () => 0x7fffffff });
  } finally {
    src.close();
  }
}

/** Records the metadata (with the digest of the objects) in the copy and makes it a single file (no WAL beside it). */
function finish(partial: string, createdAt: string): SnapshotInfo {
  const db = new Database(partial, { fileMustExist: true });
  try {
    db.pragma('journal_mode = DELETE');
    const meta = (name: string): number => db.prepare<[string], { value: number }>('SELECT value FROM meta WHERE name = ?').get(name)?.value ?? 0;
    const schemaVersion = schemaVersionOf(db) || SCHEMA_VERSION;
    const info: SnapshotInfo = {
      formatVersion: SNAPSHOT_FORMAT_VERSION,
      schemaVersion,
      revision: latestRevision(db),
      compactedRevision: meta('compacted'),
      createdAt,
      contentSha256: digestStore(db, schemaVersion).sha256,
    };
    db.transaction(() => writeSnapshotInfo(db, info))();
    return info;
  } finally {
    db.close();
  }
}

export async function saveSnapshot(o: SaveSnapshotOptions): Promise<SavedSnapshot> {
  const started = performance.now();
  const file = resolve(o.file);
  const dbPath = resolve(o.dbPath);
  try {
    statSync(dbPath);
  } catch {
    throw new SnapshotError(`no SQLite store at ${dbPath}`);
  }
  // A store a command is still writing (or was killed writing) is no store to back up.
  try {
    assertFinished(dbPath);
  } catch (err) {
    throw new SnapshotError((err as Error).message);
  }
  checkTarget(file);
  removeStalePartials(dirname(file));
  const partial = partialNameFor(file);
  const createdAt = new Date().toISOString();
  try {
    pausePoint('save:before-copy');
    await copyStore(dbPath, partial, o.method ?? 'vacuum');
    pausePoint('save:copied');
    const info = finish(partial, createdAt);
    pausePoint('save:sealing');
    // Synced with the checksum: then renamed, so the target is the old file or the whole new one.
    const sha256 = appendChecksum(partial);
    pausePoint('save:sealed');
    renameSync(partial, file);
    fsyncPath(dirname(file));
    return { ...info, file, sizeBytes: statSync(file).size, sha256, durationMs: performance.now() - started };
  } catch (err) {
    for (const f of partialFamily(partial)) rmSync(f, { force: true });
    if (err instanceof SnapshotError) throw err;
    throw new SnapshotError(`cannot save a snapshot to ${file}: ${messageOf(err)}`);
  }
}
