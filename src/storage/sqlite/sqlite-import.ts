// Loading a fresh SQLite store from another store's objects (the way back from etcd): each key
// is written once, as a creation, at the next revision after `afterRevision`, and the history
// below the last one is recorded as compacted. So the new store never hands out a
// resourceVersion the old one did, and a client presenting an old one gets 410 Gone (a watch,
// an exact list, a continue token) and re-lists, as after any compaction.
// The file is written without a sync per page and made durable once at the end (checkpoint,
// fsync of the file); the caller renames it into place only after it has verified it.

import Database from 'better-sqlite3';
import { closeSync, fsyncSync, openSync } from 'node:fs';
import { applySchema, prepareNewDatabase } from './sqlite-schema.js';

export interface SqliteImport {
  /** Appends keys (in any order; each key at most once), one transaction per call. */
  add(kvs: readonly { key: string; value: Uint8Array }[]): void;
  /** Keys added so far. */
  readonly added: number;
  /** Records the compacted revision, writes everything to the file and syncs it; returns the last revision. */
  finish(): number;
  /** Closes without finishing (the caller removes the file). */
  abandon(): void;
}

const asBuffer = (v: Uint8Array): Buffer => (Buffer.isBuffer(v) ? v : Buffer.from(v.buffer, v.byteOffset, v.byteLength));

/** Creates the database at `path` (which must not exist); revisions start after `afterRevision`. */
export function createSqliteImport(path: string, afterRevision: number): SqliteImport {
  const db = new Database(path);
  try {
    prepareNewDatabase(db);
    db.pragma('journal_mode = WAL');
    // Durability once, at finish(): a crash before then leaves a file the caller never uses.
    db.pragma('synchronous = OFF');
    applySchema(db);
  } catch (err) {
    db.close();
    throw err;
  }
  const insertLog = db.prepare<[number, string, Buffer, number]>('INSERT INTO log (revision, key, value, create_revision, prev_revision, deleted) VALUES (?, ?, ?, ?, 0, 0)');
  const insertCurrent = db.prepare<[string, number, number]>('INSERT INTO current (key, revision, create_revision) VALUES (?, ?, ?)');
  let revision = afterRevision;
  let added = 0;
  const addAll = db.transaction((kvs: readonly { key: string; value: Uint8Array }[]) => {
    for (const kv of kvs) {
      revision++;
      const value = asBuffer(kv.value);
      insertLog.run(revision, kv.key, value, revision);
      insertCurrent.run(kv.key, revision, revision);
    }
    added += kvs.length;
  });
  return {
    add: (kvs) => addAll(kvs),
    get added() {
      return added;
    },
    finish() {
      db.prepare("UPDATE meta SET value = ? WHERE name = 'compacted'").run(revision);
      db.pragma('wal_checkpoint(TRUNCATE)');
      // Out of WAL mode: the file alone is the database (a read-only reader then needs no -wal or
      // -shm beside it, and none are left behind); the server turns WAL on again when it opens it.
      db.pragma('journal_mode = DELETE');
      db.close();
      const fd = openSync(path, 'r+');
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      return revision;
    },
    abandon() {
      if (db.open) db.close();
    },
  };
}
