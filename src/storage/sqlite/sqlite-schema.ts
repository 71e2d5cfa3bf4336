// The SQLite layout of the revision log (kine's proven shape, simplified for one writer process):
// `log` holds every write, keyed by the global revision, with its value; `current` maps each live
// key to the revision of its latest write (its value is that log row's), so that reads at the
// latest revision are one index lookup and one rowid lookup; `meta` holds the schema version and
// the compacted revision (the latest revision is the newest log row, or the compacted revision
// if compaction removed it). Compaction never removes the log row a `current` row points at:
// that row is nobody's previous revision.
//
// Schema 2 stores each value once (schema 1 kept a second copy in `current`, a WITHOUT ROWID
// table whose rows over ~1 KB spill into overflow pages: 100,000 objects of 2 KB took 4.3× their
// JSON bytes). Pages are 16 KiB (a 2 KB log row filled a 4 KiB page alone: 7 fit in 16 KiB), and
// the file is in incremental auto-vacuum mode, so `defrag` can give free pages back to the file
// system in small steps beside a running server. A schema-1 file is rebuilt once, when a
// server first opens it (store-rebuild.ts).

import type Database from 'better-sqlite3';

export const SCHEMA_VERSION = 2;
/** The page size of files this version creates. */
export const PAGE_SIZE = 16384;

/** The file holds a store of an older schema: it must be rebuilt (store-rebuild.ts) before use. */
export class OlderSchemaError extends Error {
  constructor(
    readonly path: string,
    readonly version: number,
  ) {
    super(`${path} holds store schema ${version}; this platform-apiserver uses schema ${SCHEMA_VERSION}`);
  }
}

/** The store schema a database holds: 0 for a new, empty one. */
export function schemaVersionOf(db: Database.Database): number {
  const meta = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get();
  if (!meta) return 0;
  return db.prepare<[], { value: number }>("SELECT value FROM meta WHERE name = 'schema_version'").get()?.value ?? 0;
}

/**
 * Page size and auto-vacuum mode of a database that holds nothing yet; must run before anything
 * is written to it (WAL mode included). On an existing file it changes nothing.
 */
export function prepareNewDatabase(db: Database.Database): void {
  if (db.prepare("SELECT 1 FROM sqlite_master LIMIT 1").get()) return;
  db.pragma(`page_size = ${PAGE_SIZE}`);
  db.pragma('auto_vacuum = INCREMENTAL');
}

/**
 * Creates the tables in a new database; an existing one must already be at this schema
 * (OlderSchemaError for an older one, which the caller rebuilds; a newer one is refused).
 */
export function applySchema(db: Database.Database, path = db.name): void {
  const version = schemaVersionOf(db);
  if (version && version < SCHEMA_VERSION) throw new OlderSchemaError(path, version);
  if (version > SCHEMA_VERSION) throw new Error(`${path} holds store schema ${version}, newer than this platform-apiserver's (${SCHEMA_VERSION}): use a newer platform-apiserver`);
  if (version === SCHEMA_VERSION) return;
  prepareNewDatabase(db);
  db.exec(`
    CREATE TABLE IF NOT EXISTS log (
      revision        INTEGER PRIMARY KEY,
      key             TEXT    NOT NULL,
      value           BLOB,
      create_revision INTEGER NOT NULL,
      prev_revision   INTEGER NOT NULL,
      deleted         INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX IF NOT EXISTS log_key_revision ON log (key, revision);
    CREATE TABLE IF NOT EXISTS current (
      key             TEXT    PRIMARY KEY,
      revision        INTEGER NOT NULL,
      create_revision INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
    INSERT OR IGNORE INTO meta (name, value) VALUES ('schema_version', ${SCHEMA_VERSION}), ('compacted', 0);
  `);
}

/**
 * The live rows (key, revision, create_revision, value) of a store of either schema, as a SELECT
 * over `current` aliased `c` (schema 2 joins the log for the value). `db` names an attached database.
 */
export function liveRowsSql(schemaVersion: number, db = 'main'): string {
  return schemaVersion >= 2
    ? `SELECT c.key AS key, c.revision AS revision, c.create_revision AS create_revision, l.value AS value FROM ${db}.current AS c JOIN ${db}.log AS l ON l.revision = c.revision`
    : `SELECT c.key AS key, c.revision AS revision, c.create_revision AS create_revision, c.value AS value FROM ${db}.current AS c`;
}

/** The first key greater than every key with this prefix (for range scans in byte order). */
export function prefixEnd(prefix: string): string {
  const last = prefix.charCodeAt(prefix.length - 1);
  return prefix.slice(0, -1) + String.fromCharCode(last + 1);
}
