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

export interface RawRangeReadOptions {
  rows: number;
  rowBytes: number;
  dir: string;
  /** Timed repetitions; the median is reported. */
  runs?: number;
}

/** One ordered range read of `rows` keys under a prefix: the floor a LIST of that many objects is compared to. */
export async function rawSqliteRangeRead(opts: RawRangeReadOptions): Promise<{ medianMs: number }> {
  const db = new Database(join(opts.dir, 'raw-range.db'));
  try {
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE IF NOT EXISTS kv (k TEXT PRIMARY KEY, v BLOB NOT NULL) WITHOUT ROWID');
    const insert = db.prepare('INSERT OR REPLACE INTO kv (k, v) VALUES (?, ?)');
    const value = Buffer.alloc(opts.rowBytes, 120);
    db.transaction(() => {
      for (let i = 0; i < opts.rows; i++) insert.run(`/registry/range/${String(i).padStart(8, '0')}`, value);
    })();
    const range = db.prepare<[string, string], { k: string; v: Buffer }>('SELECT k, v FROM kv WHERE k >= ? AND k < ? ORDER BY k');
    const times: number[] = [];
    for (let run = 0; run < (opts.runs ?? 5); run++) {
      const started = performance.now();
      const rows = range.all('/registry/range/', '/registry/range0');
      times.push(performance.now() - started);
      if (rows.length !== opts.rows) throw new Error(`range read returned ${rows.length} rows, expected ${opts.rows}`);
    }
    times.sort((a, b) => a - b);
    return { medianMs: times[Math.floor(times.length / 2)]! };
  } finally {
    db.close();
  }
}
