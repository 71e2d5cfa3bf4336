// SqliteStore write and list rates beside raw better-sqlite3 on the same disk in the same run:
// puts with 1, 16 and 50 concurrent writers (group commit shares one sync per event-loop turn),
// and a 10k-key list against a raw range read. Run: node --import tsx bench/storage-bench.ts

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '../src/storage/sqlite-store.js';
import { rawSqliteInsertRate, rawSqliteRangeRead } from './storage-baseline.js';

const ROW_BYTES = 2048;

async function storePutRate(dir: string, durability: 'full' | 'normal', writers: number, puts: number): Promise<number> {
  const store = openSqliteStore({ path: join(dir, `store-${durability}-${writers}.db`), durability });
  const value = new Uint8Array(ROW_BYTES).fill(120);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < puts) {
      const i = next++;
      await store.optimisticPut(`/registry/bench/${i}`, value, 0);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: writers }, worker));
  const elapsed = performance.now() - started;
  await store.close();
  return (puts / elapsed) * 1000;
}

async function storeListMs(dir: string, keys: number): Promise<number> {
  const store = openSqliteStore({ path: join(dir, 'store-list.db'), durability: 'normal' });
  const value = new Uint8Array(ROW_BYTES).fill(120);
  await Promise.all(Array.from({ length: keys }, (_, i) => store.optimisticPut(`/registry/list/${String(i).padStart(8, '0')}`, value, 0)));
  const times: number[] = [];
  for (let run = 0; run < 5; run++) {
    const started = performance.now();
    const l = await store.list('/registry/list/');
    times.push(performance.now() - started);
    if (l.kvs.length !== keys) throw new Error(`list returned ${l.kvs.length}`);
  }
  await store.close();
  times.sort((a, b) => a - b);
  return times[2]!;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'storage-bench-'));
  try {
    for (const durability of ['full', 'normal'] as const) {
      const rows = durability === 'full' ? 3000 : 10000;
      const raw = (await rawSqliteInsertRate({ durability, rows, rowBytes: ROW_BYTES, dir })).perSecond;
      console.log(`raw better-sqlite3 single-row insert (${durability}): ${raw.toFixed(0)}/s`);
      for (const writers of [1, 16, 50]) {
        const rate = await storePutRate(dir, durability, writers, rows);
        console.log(`  SqliteStore put, ${String(writers).padStart(2)} writers (${durability}): ${rate.toFixed(0)}/s  ratio ${(rate / raw).toFixed(2)}`);
      }
    }
    const rawRange = (await rawSqliteRangeRead({ rows: 10000, rowBytes: ROW_BYTES, dir })).medianMs;
    const list = await storeListMs(dir, 10000);
    console.log(`raw range read of 10k rows: ${rawRange.toFixed(1)} ms; SqliteStore list of 10k keys: ${list.toFixed(1)} ms  ratio ${(list / rawRange).toFixed(2)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
