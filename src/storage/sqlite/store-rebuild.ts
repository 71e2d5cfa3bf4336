// Rewriting a store's file whole, with nobody else using it (the caller holds its lock): every
// log row in revision order and every `current` row in key order into a new file of this
// version's layout (sqlite-schema.ts: schema 2, 16 KiB pages, incremental auto-vacuum), so the
// new file has no free pages and full b-tree pages. It is how a schema-1 file is upgraded when a
// server first opens it, and what `defrag` does offline. Written under a temporary name in the
// same directory, compared with the old file (the same log rows, the same objects by their
// content digest), synced, and renamed over it: killed at any step, the old file is still there,
// whole, and the next run removes the temporary one.

import Database from 'better-sqlite3';
import { renameSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { digestStore } from './content-digest.js';
import { pausePoint } from './pause-point.js';
import { applySchema, SCHEMA_VERSION, schemaVersionOf } from './sqlite-schema.js';
import { partialFamily, partialNameFor } from './snapshot-format.js';
import { fsyncPath, removeStalePartials } from './snapshot-save.js';

export interface RebuiltStore {
  /** The schema the old file held. */
  fromSchema: number;
  /** Bytes of the old file (and its WAL) and of the new one. */
  beforeBytes: number;
  afterBytes: number;
  objects: number;
  logRows: number;
  durationMs: number;
}

const sizeOf = (path: string): number => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};

/** A rebuild that found the old file and the new one different, or could not make the new one. */
export class RebuildError extends Error {
  override name = 'RebuildError';
}

/** Rewrites the store at `dbPath` (the caller holds its lock; nothing else has it open). */
export function rebuildStore(dbPath: string): RebuiltStore {
  const started = performance.now();
  const beforeBytes = sizeOf(dbPath) + sizeOf(`${dbPath}-wal`);
  removeStalePartials(dirname(dbPath));
  // Everything committed into the file itself; closing the last connection removes the WAL.
  const old = new Database(dbPath, { fileMustExist: true });
  let fromSchema: number;
  try {
    old.pragma('busy_timeout = 5000');
    old.pragma('wal_checkpoint(TRUNCATE)');
    fromSchema = schemaVersionOf(old);
    if (fromSchema === 0) throw new RebuildError(`${dbPath} is not a platform-apiserver store`);
    if (fromSchema > SCHEMA_VERSION) throw new RebuildError(`${dbPath} holds store schema ${fromSchema}, newer than this platform-apiserver's (${SCHEMA_VERSION})`);
  } finally {
    old.close();
  }
  // A WAL still holding commits belongs to the old file: renaming a new file under it would corrupt it.
  if (sizeOf(`${dbPath}-wal`) > 0) throw new RebuildError(`${dbPath}-wal still holds commits (is another process using the store?)`);
  const partial = partialNameFor(dbPath);
  try {
    const { objects, logRows } = copyInto(partial, dbPath, fromSchema);
    pausePoint('rebuild:written');
    fsyncPath(partial);
    for (const f of [`${dbPath}-wal`, `${dbPath}-shm`]) rmSync(f, { force: true });
    renameSync(partial, dbPath);
    fsyncPath(dirname(dbPath));
    return { fromSchema, beforeBytes, afterBytes: sizeOf(dbPath), objects, logRows, durationMs: performance.now() - started };
  } catch (err) {
    for (const f of partialFamily(partial)) rmSync(f, { force: true });
    throw err;
  }
}

function copyInto(partial: string, dbPath: string, fromSchema: number): { objects: number; logRows: number } {
  const db = new Database(partial);
  try {
    // A scratch file until renamed: no journal, synced once by the caller.
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    applySchema(db);
    db.prepare('ATTACH DATABASE ? AS old').run(dbPath);
    db.transaction(() => {
      db.exec('INSERT INTO log (revision, key, value, create_revision, prev_revision, deleted) SELECT revision, key, value, create_revision, prev_revision, deleted FROM old.log ORDER BY revision');
      if (fromSchema < 2) {
        // Schema 1 kept each live value in `current` too: any live row the log lacks comes from there.
        db.exec('INSERT OR IGNORE INTO log (revision, key, value, create_revision, prev_revision, deleted) SELECT revision, key, value, create_revision, 0, 0 FROM old.current ORDER BY revision');
      }
      db.exec('INSERT INTO current (key, revision, create_revision) SELECT key, revision, create_revision FROM old.current ORDER BY key');
      db.exec("UPDATE meta SET value = (SELECT value FROM old.meta WHERE name = 'compacted') WHERE name = 'compacted'");
    })();
    pausePoint('rebuild:verifying');
    const logRows = db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM log').get()!.n;
    const oldRows = db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM old.log').get()!.n;
    const now = digestStore(db, SCHEMA_VERSION);
    const before = digestStore(db, fromSchema, 'old');
    if (now.sha256 !== before.sha256 || now.objects !== before.objects || logRows < oldRows) {
      throw new RebuildError(`the rewritten store differs from ${dbPath} (objects ${before.objects} → ${now.objects}, sha256 ${before.sha256} → ${now.sha256}); the store was left as it was`);
    }
    db.exec('DETACH DATABASE old');
    return { objects: now.objects, logRows };
  } finally {
    db.close();
  }
}
