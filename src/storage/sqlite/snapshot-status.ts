// `snapshot status`, and the check `snapshot restore` makes first: is the file one of our
// snapshots (not a save's temporary file, a SQLite database, ours by its header and metadata, of
// a format and schema this build reads), exactly as it was sealed (its appended SHA-256, checked
// before SQLite reads a byte of it: an edited, appended, truncated or reordered file is refused
// with both sums), whole (SQLite's integrity check, and the recorded revision matches the data),
// and what it holds: revision, objects per resource, size, free pages. Opens the file read-only:
// checking writes nothing, not even a journal.

import Database from 'better-sqlite3';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { latestRevision } from './sqlite-batch.js';
import { SCHEMA_VERSION } from './sqlite-schema.js';
import { checkChecksum, type ChecksumCheck } from './snapshot-checksum.js';
import { isPartialName, readSnapshotInfo, SNAPSHOT_FORMAT_VERSION, SnapshotError, type SnapshotInfo } from './snapshot-format.js';

export interface ResourceCount {
  /** `<plural>.<group>`, from the keys (`/registry/<group>/<plural>/<name>`). */
  resource: string;
  objects: number;
}

export interface SnapshotStatus extends SnapshotInfo {
  file: string;
  sizeBytes: number;
  totalObjects: number;
  resources: ResourceCount[];
  /** SQLite's integrity check: 'ok' (anything else is refused before a status is made). */
  integrity: 'ok';
  /** The file's SHA-256, as checked against the one appended to it; undefined when not checked. */
  sha256?: string;
  /** 'ok': checked; 'none': a format-1 snapshot, which has none; 'skipped': not checked (--skip-hash-check). */
  checksum: 'ok' | 'none' | 'skipped';
  /** Pages SQLite holds free inside the file (a `VACUUM INTO` copy has none), and their bytes. */
  freePages: number;
  freeBytes: number;
}

export interface InspectOptions {
  /** SQLite's integrity check (default true). */
  integrity?: boolean;
  /** Do not check the appended SHA-256 (etcdutl's --skip-hash-check): for a file whose checksum is known to be wrong or absent. */
  skipHashCheck?: boolean;
}

const SQLITE_MAGIC = 'SQLite format 3\0';
const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * `/registry/<group>/<plural>/[<namespace>/]<name>` → `<plural>.<group>`; a core kind's
 * `/registry/<plural>/<namespace>/<name>` (its "group" has no dot) → `<plural>`; other keys by their prefix.
 */
export function resourceOfKey(key: string): string {
  const parts = key.split('/');
  if (parts[0] !== '' || parts[1] !== 'registry' || parts.length < 4) return key.slice(0, key.lastIndexOf('/') + 1);
  if (!parts[2]) return parts[3]!;
  if (!parts[2].includes('.')) return parts[2];
  if (parts.length === 5 || parts.length === 6) return `${parts[3]}.${parts[2]}`;
  return key.slice(0, key.lastIndexOf('/') + 1);
}

function readMagic(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(16);
    const n = readSync(fd, buf, 0, 16, 0);
    return buf.toString('latin1', 0, n);
  } finally {
    closeSync(fd);
  }
}

/** The checksum, or the refusal of a file that is not as it was sealed (both sums, as etcdutl says it). */
type Checked = Exclude<ChecksumCheck, { kind: 'mismatch' }>;

function checksumOf(file: string, skip: boolean): Checked | undefined {
  if (skip) return undefined;
  let check: ChecksumCheck;
  try {
    check = checkChecksum(file);
  } catch (err) {
    throw new SnapshotError(`${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? messageOf(err)})`);
  }
  if (check.kind === 'mismatch') {
    throw new SnapshotError(`${file} is damaged: its contents do not match its checksum (expected sha256 ${check.expected}, got ${check.actual}); it was changed, cut short or added to after it was saved`);
  }
  return check;
}

/** The file as a snapshot, or a SnapshotError saying in one line why it is not a usable one. */
export function inspectSnapshot(path: string, opts: InspectOptions = {}): SnapshotStatus {
  const file = resolve(path);
  let st;
  try {
    st = statSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new SnapshotError(code === 'ENOENT' ? `${file}: no such file` : `${file}: cannot read it (${code ?? messageOf(err)})`);
  }
  if (st.isDirectory()) throw new SnapshotError(`${file} is a directory, not a snapshot`);
  if (isPartialName(file)) throw new SnapshotError(`${file} is the temporary file of an unfinished save, not a snapshot`);
  let magic: string;
  try {
    magic = readMagic(file);
  } catch (err) {
    throw new SnapshotError(`${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? messageOf(err)})`);
  }
  if (magic !== SQLITE_MAGIC) throw new SnapshotError(`${file} is not a platform-apiserver snapshot (not a SQLite database)`);
  const checksum = checksumOf(file, opts.skipHashCheck ?? false);
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch (err) {
    throw new SnapshotError(`${file} is damaged: ${messageOf(err)}`);
  }
  try {
    return inspectOpen(db, file, st.size, opts.integrity ?? true, checksum);
  } catch (err) {
    if (err instanceof SnapshotError) throw new SnapshotError(`${file} ${err.message}`);
    throw new SnapshotError(`${file} is damaged: ${messageOf(err)}`);
  } finally {
    db.close();
  }
}

/** Our store's own file (the tables a snapshot has, without the snapshot's header and metadata). */
function isStore(db: Database.Database): boolean {
  const tables = new Set(db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'").all().map((r) => r.name));
  return tables.has('log') && tables.has('current') && tables.has('meta');
}

function inspectOpen(db: Database.Database, file: string, sizeBytes: number, integrity: boolean, checksum: Checked | undefined): SnapshotStatus {
  const info = readSnapshotInfo(db);
  if ('foreign' in info && isStore(db)) throw new SnapshotError('is the database of a platform-apiserver store, not a snapshot (make one with: platform-apiserver snapshot save FILE --data-dir DIR)');
  if ('foreign' in info) throw new SnapshotError(`is not a platform-apiserver snapshot (${info.foreign})`);
  if (info.formatVersion > SNAPSHOT_FORMAT_VERSION) throw new SnapshotError(`is a snapshot of format ${info.formatVersion}; this platform-apiserver reads format ${SNAPSHOT_FORMAT_VERSION}`);
  if (info.schemaVersion > SCHEMA_VERSION) throw new SnapshotError(`holds store schema ${info.schemaVersion}; this platform-apiserver knows schema ${SCHEMA_VERSION}`);
  // From format 2 on every snapshot is sealed: one without its checksum was cut short by exactly that much.
  if (checksum?.kind === 'none' && info.formatVersion >= 2) throw new SnapshotError('is damaged: its checksum is missing (the file was cut short?)');
  if (integrity) {
    // Rows like "*** in database main ***\nPage 3: btreeInitPage() returns error code 11": the first real problem, on one line.
    const rows = (db.pragma('integrity_check', { simple: false }) as { integrity_check: string }[]).map((r) => r.integrity_check);
    if (rows[0] !== 'ok') {
      const lines = rows.flatMap((r) => r.split('\n')).filter((l) => l.trim() && !l.startsWith('***'));
      throw new SnapshotError(`is damaged (integrity check: ${lines[0] ?? 'no answer'}${lines.length > 1 ? `; ${lines.length - 1} more problems` : ''})`);
    }
  }
  const held = latestRevision(db);
  if (held !== info.revision) throw new SnapshotError(`is damaged: it records revision ${info.revision} but holds data up to revision ${held}`);
  const counts = new Map<string, number>();
  let total = 0;
  for (const { key } of db.prepare<[], { key: string }>('SELECT key FROM current').iterate()) {
    const r = resourceOfKey(key);
    counts.set(r, (counts.get(r) ?? 0) + 1);
    total++;
  }
  const resources = [...counts].map(([resource, objects]) => ({ resource, objects })).sort((a, b) => a.resource.localeCompare(b.resource));
  const freePages = Number(db.pragma('freelist_count', { simple: true }));
  const freeBytes = freePages * Number(db.pragma('page_size', { simple: true }));
  return {
    ...info,
    file,
    sizeBytes,
    totalObjects: total,
    resources,
    integrity: 'ok',
    ...(checksum?.kind === 'ok' ? { sha256: checksum.sha256 } : {}),
    checksum: checksum === undefined ? 'skipped' : checksum.kind,
    freePages,
    freeBytes,
  };
}
