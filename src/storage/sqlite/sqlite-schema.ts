// The SQLite layout of the revision log (kine's proven shape, simplified for one writer process):
// `log` holds every write, keyed by the global revision; `current` holds the live value of each
// key so that reads at the latest revision are one index lookup; `meta` holds the compacted revision (the
// latest revision is the newest log row, or the compacted revision if compaction removed it).

import type Database from 'better-sqlite3';

export const SCHEMA_VERSION = 1;

export function applySchema(db: Database.Database): void {
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
      create_revision INTEGER NOT NULL,
      value           BLOB    NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
    INSERT OR IGNORE INTO meta (name, value) VALUES ('schema_version', ${SCHEMA_VERSION}), ('compacted', 0);
  `);
}

/** The first key greater than every key with this prefix (for range scans in byte order). */
export function prefixEnd(prefix: string): string {
  const last = prefix.charCodeAt(prefix.length - 1);
  return prefix.slice(0, -1) + String.fromCharCode(last + 1);
}
