// Reading a whole SQLite store at ONE revision, from outside the server: a read-only connection
// holding one read transaction (a WAL snapshot) for as long as the reader is open, so every page
// and every lookup sees the same committed state, whatever a server writing the file meanwhile
// commits. Pages are by key, in byte order (SQLite's BINARY collation on UTF-8 text is etcd's
// key order), so memory stays bounded by one page however large the store is.
// It first checks that the file is one of ours (the revision log's tables and schema version:
// a schema-1 file, not yet opened by a server of this version, is read as it is).

import Database from 'better-sqlite3';
import { liveRowsSql, SCHEMA_VERSION } from './sqlite-schema.js';
import { latestRevision } from './sqlite-batch.js';

/** One live key and its stored bytes (the value exactly as the server wrote it). */
export interface ExportedKey {
  key: string;
  value: Buffer;
}

export interface SqliteExport {
  /** The revision every read of this export is at. */
  readonly revision: number;
  /** Live keys at `revision`. */
  count(): number;
  /** Live keys after `after` ('' for the first), at most `limit`, in key order. */
  page(after: string, limit: number): ExportedKey[];
  /** One key's value at `revision`, if live. */
  get(key: string): Buffer | undefined;
  close(): void;
}

/** Why a file cannot be read as our store (missing, not SQLite, another program's database). */
export class NotOurStoreError extends Error {}

const REQUIRED_TABLES = ['current', 'log', 'meta'];

/**
 * Opens `path` for reading and starts the read transaction every later read shares. `shared`:
 * another process (a server) has the file open: a read-only connection. Otherwise a connection
 * that can only read (query_only) but, being the last to close, removes the WAL files it needed,
 * so the data dir is left as it was found.
 */
export function openSqliteExport(path: string, opts: { shared?: boolean } = {}): SqliteExport {
  let db: Database.Database;
  try {
    db = new Database(path, { readonly: opts.shared ?? false, fileMustExist: true });
  } catch (err) {
    throw new NotOurStoreError(`cannot open ${path}: ${(err as Error).message}`);
  }
  try {
    if (!opts.shared) db.pragma('query_only = ON');
    db.pragma('busy_timeout = 5000');
    // The read transaction starts with its first read: from here on, one snapshot.
    db.exec('BEGIN');
    const live = liveRowsSql(checkOurs(db, path));
    const revision = latestRevision(db);
    const stmt = {
      count: db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM current'),
      page: db.prepare<[string, number], ExportedKey>(`${live} WHERE c.key > ? ORDER BY c.key LIMIT ?`),
      get: db.prepare<[string], { value: Buffer }>(`${live} WHERE c.key = ?`),
    };
    return {
      revision,
      count: () => stmt.count.get()!.n,
      page: (after, limit) => stmt.page.all(after, limit),
      get: (key) => stmt.get.get(key)?.value,
      close() {
        if (!db.open) return;
        if (db.inTransaction) db.exec('COMMIT');
        db.close();
      },
    };
  } catch (err) {
    db.close();
    if (err instanceof NotOurStoreError) throw err;
    // "file is not a database" and the like: SQLite's own words say it best.
    throw new NotOurStoreError(`${path} is not a platform-apiserver database: ${(err as Error).message}`);
  }
}

/** Checks the file is one of our stores, of a schema this build reads (1 or 2); returns the schema. */
function checkOurs(db: Database.Database, path: string): number {
  const tables = new Set(db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'").all().map((r) => r.name));
  const missing = REQUIRED_TABLES.filter((t) => !tables.has(t));
  if (missing.length) throw new NotOurStoreError(`${path} is not a platform-apiserver database (no ${missing.join(', ')} table${missing.length > 1 ? 's' : ''})`);
  const version = db.prepare<[], { value: number }>("SELECT value FROM meta WHERE name = 'schema_version'").get()?.value;
  if (version === undefined || version < 1 || version > SCHEMA_VERSION) throw new NotOurStoreError(`${path} has schema version ${version ?? 'none'}; this program reads versions 1 to ${SCHEMA_VERSION}`);
  return version;
}
