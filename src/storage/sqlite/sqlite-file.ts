// The store's database file as the server opens it: at this version's schema (a file of an
// older one is rewritten first, store-rebuild.ts, then opened again), with the writer's settings;
// and its size on disk and in use, for apiserver_storage_size_bytes.

import Database from 'better-sqlite3';
import { statSync } from 'node:fs';
import { configureWriter } from './sqlite-batch.js';
import { applySchema, OlderSchemaError, prepareNewDatabase } from './sqlite-schema.js';
import { rebuildStore, type RebuiltStore } from './store-rebuild.js';

/** Opens (or creates) the store's database; `onUpgrade` is told when an older file was rewritten. */
export function openDatabase(path: string, durability: 'full' | 'normal', onUpgrade?: (rebuilt: RebuiltStore) => void): Database.Database {
  for (let attempt = 0; ; attempt++) {
    const db = new Database(path);
    try {
      prepareNewDatabase(db);
      configureWriter(db, durability);
      applySchema(db, path);
      return db;
    } catch (err) {
      db.close();
      if (!(err instanceof OlderSchemaError) || attempt > 0) throw err;
    }
    onUpgrade?.(rebuildStore(path));
  }
}

const sizeOf = (file: string): number => {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
};

/** The file and its WAL on disk, and the bytes of the pages in use (not free), as `db` sees them. */
export function fileSizes(db: Database.Database, path: string): { sizeBytes: number; inUseBytes: number } {
  const pragma = (name: string): number => Number(db.pragma(name, { simple: true }));
  return { sizeBytes: sizeOf(path) + sizeOf(`${path}-wal`), inUseBytes: (pragma('page_count') - pragma('freelist_count')) * pragma('page_size') };
}
