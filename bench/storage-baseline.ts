// Raw better-sqlite3 baselines for the benchmarks, measured in the same run as the server.

import Database from 'better-sqlite3';
import { join } from 'node:path';

export interface RawInsertOptions {
  durability: 'full' | 'normal';
  rows: number;
  rowBytes: number;
  dir: string;
}

/** Single-row inserts, one transaction (and, at 'full', one sync) each: the durable-write ceiling. */
export async function rawSqliteInsertRate(opts: RawInsertOptions): Promise<{ perSecond: number }> {
  const db = new Database(join(opts.dir, `raw-${opts.durability}.db`));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${opts.durability === 'full' ? 'FULL' : 'NORMAL'}`);
    db.exec('CREATE TABLE IF NOT EXISTS kv (k TEXT PRIMARY KEY, v BLOB NOT NULL)');
    const insert = db.prepare('INSERT INTO kv (k, v) VALUES (?, ?)');
    const value = Buffer.alloc(opts.rowBytes, 120);
    const started = performance.now();
    for (let i = 0; i < opts.rows; i++) insert.run(`/registry/bench/${i}`, value);
    const elapsed = performance.now() - started;
    return { perSecond: (opts.rows / elapsed) * 1000 };
  } finally {
    db.close();
  }
}
