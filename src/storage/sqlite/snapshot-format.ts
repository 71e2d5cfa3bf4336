// What makes a file a platform-apiserver snapshot: a SQLite database (the store's own tables, as
// of one revision) whose header carries our application id and whose `snapshot_info` table
// records the format version, the store's schema version, the revision it holds and the digest
// of its objects (content-digest.ts); from format 2 on, sealed by the SHA-256 of the whole file
// appended to it (snapshot-checksum.ts). Also the
// names: the store's file in a data dir, the temporary name a save writes under (never taken
// for a snapshot: every reader refuses it), and the one-line error every snapshot command reports.

import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';

/** The SQLite store's file in a data dir. */
export const SQLITE_FILE_NAME = 'state.db';

/** SQLite's header field for the owning program (PRAGMA application_id): "PAPS". */
export const SNAPSHOT_APPLICATION_ID = 0x50415053;
export const SNAPSHOT_FORMAT = 'platform-apiserver-snapshot';
/** 1: no checksum; 2: the file's SHA-256 appended, and the content digest recorded. */
export const SNAPSHOT_FORMAT_VERSION = 2;

export interface SnapshotInfo {
  formatVersion: number;
  /** The store schema the tables follow (sqlite-schema.ts). */
  schemaVersion: number;
  /** The store's revision when the snapshot was taken: everything at or below it, nothing after. */
  revision: number;
  compactedRevision: number;
  /** When the save started (ISO 8601, UTC). */
  createdAt: string;
  /** The content digest of its live objects (content-digest.ts); from format 2 on. */
  contentSha256?: string;
}

/** A snapshot command's failure, one line, said to the user as it is. */
export class SnapshotError extends Error {}

const PARTIAL_SUFFIX = '.partial';
/** The temporary file, and the journal or WAL files SQLite may keep beside it while writing it. */
const PARTIAL = /\.partial(-journal|-wal|-shm)?$/;

/** The temporary file a save writes `file` under, in the same directory (so the rename is atomic). */
export function partialNameFor(file: string): string {
  return join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(3).toString('hex')}${PARTIAL_SUFFIX}`);
}

/** A save's temporary file (or SQLite's files beside it): a save that was interrupted leaves them behind. */
export const isPartialName = (file: string): boolean => PARTIAL.test(basename(file));

/** The temporary file and every file SQLite may have made beside it. */
export const partialFamily = (partial: string): string[] => [partial, `${partial}-journal`, `${partial}-wal`, `${partial}-shm`];

/** The pid of the process that wrote a partial file (to clean up those of processes that are gone). */
export function partialOwner(file: string): number | undefined {
  const m = /\.(\d+)\.[0-9a-f]+\.partial(-journal|-wal|-shm)?$/.exec(basename(file));
  return m ? Number(m[1]) : undefined;
}

export function writeSnapshotInfo(db: Database.Database, info: SnapshotInfo): void {
  db.exec('CREATE TABLE snapshot_info (name TEXT PRIMARY KEY, value) WITHOUT ROWID');
  const put = db.prepare<[string, string | number]>('INSERT INTO snapshot_info (name, value) VALUES (?, ?)');
  put.run('format', SNAPSHOT_FORMAT);
  for (const [name, value] of Object.entries(info)) if (value !== undefined) put.run(name, value as string | number);
  db.pragma(`application_id = ${SNAPSHOT_APPLICATION_ID}`);
}

/** The recorded info, or why the database is not one of our snapshots. */
export function readSnapshotInfo(db: Database.Database): SnapshotInfo | { foreign: string } {
  if (db.pragma('application_id', { simple: true }) !== SNAPSHOT_APPLICATION_ID) return { foreign: 'a SQLite database of another program' };
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'snapshot_info'").get();
  if (!table) return { foreign: 'a SQLite database without snapshot metadata' };
  const rows = new Map(db.prepare<[], { name: string; value: string | number }>('SELECT name, value FROM snapshot_info').all().map((r) => [r.name, r.value]));
  if (rows.get('format') !== SNAPSHOT_FORMAT) return { foreign: 'a SQLite database without snapshot metadata' };
  const num = (name: string): number => {
    const v = rows.get(name);
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw new SnapshotError(`its snapshot metadata is damaged (${name})`);
    return v;
  };
  return {
    formatVersion: num('formatVersion'),
    schemaVersion: num('schemaVersion'),
    revision: num('revision'),
    compactedRevision: num('compactedRevision'),
    createdAt: String(rows.get('createdAt') ?? ''),
    ...(typeof rows.get('contentSha256') === 'string' ? { contentSha256: rows.get('contentSha256') as string } : {}),
  };
}
