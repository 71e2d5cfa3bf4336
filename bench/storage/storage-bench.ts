// SqliteStore write and list rates beside raw better-sqlite3 on the same disk in the same run.
// Writes: 1, 16 and 50 concurrent writers, with the commit on the writer thread (the default)
// and on the main thread ('inline', as ':memory:' stores and the store before the writer thread
// did); then 16 writers that each spend CPU time before every write, as request handling does,
// where the thread lets that work overlap the sync of the batch before (pipeline depth 1 and 2).
// Lists: a 10k-key list against a raw range read. Run: node --import tsx bench/storage/storage-bench.ts

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore, type SqliteStoreOptions } from '../../src/storage/sqlite/sqlite-store.js';
import { rawSqliteInsertRate, rawSqliteRangeRead } from '../lib/storage-baseline.js';

const ROW_BYTES = 2048;
/** CPU time each writer spends before each write in the "request work" rows. */
const WORK_MS = 0.5;

type Variant = Pick<SqliteStoreOptions, 'writer' | 'pipelineDepth'>;
const label = (v: Variant): string => (v.writer === 'inline' ? 'inline     ' : `thread, d=${v.pipelineDepth ?? 1}`);

function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

let dbs = 0;
async function storePutRate(dir: string, durability: 'full' | 'normal', variant: Variant, writers: number, puts: number, workMs = 0): Promise<{ rate: number; perTx: number }> {
  const store = openSqliteStore({ path: join(dir, `store-${dbs++}.db`), durability, ...variant });
  const value = new Uint8Array(ROW_BYTES).fill(120);
  await store.optimisticPut('/registry/warm', value, 0); // the writer thread is up
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < puts) {
      const i = next++;
      if (workMs) {
        // Requests arrive spread out (network, parsing in several steps), not in lockstep.
        await new Promise((r) => setTimeout(r, i % 2));
        busy(workMs);
      }
      await store.optimisticPut(`/registry/bench/${i}`, value, 0);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: writers }, worker));
  const elapsed = performance.now() - started;
  const { transactions, writes } = store.stats();
  await store.close();
  return { rate: (puts / elapsed) * 1000, perTx: writes / transactions };
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
  const line = (what: string, r: { rate: number; perTx: number }, raw: number): void =>
    console.log(`  ${what}: ${r.rate.toFixed(0).padStart(6)}/s  ratio ${(r.rate / raw).toFixed(2)}  (${r.perTx.toFixed(1)} writes per transaction)`);
  try {
    for (const durability of (process.env.STORAGE_BENCH_WORK_ONLY ? [] : ["full", "normal"]) as ("full" | "normal")[]) {
      const rows = durability === 'full' ? 2000 : 6000;
      const raw = (await rawSqliteInsertRate({ durability, rows, rowBytes: ROW_BYTES, dir })).perSecond;
      console.log(`raw better-sqlite3 single-row insert (${durability}): ${raw.toFixed(0)}/s`);
      for (const writers of [1, 16, 50]) {
        for (const variant of [{ writer: 'inline' }, { writer: 'thread' }] as Variant[]) {
          line(`SqliteStore put, ${String(writers).padStart(2)} writers, ${label(variant)} (${durability})`, await storePutRate(dir, durability, variant, writers, rows), raw);
        }
      }
    }
    const raw = (await rawSqliteInsertRate({ durability: 'full', rows: 2000, rowBytes: ROW_BYTES, dir: mkdtempSync(join(dir, 'again-')) })).perSecond;
    console.log(`raw better-sqlite3 single-row insert (full), again: ${raw.toFixed(0)}/s; 16 writers, each ${WORK_MS} ms of CPU before every write:`);
    for (const variant of [{ writer: 'inline' }, { writer: 'thread', pipelineDepth: 1 }, { writer: 'thread', pipelineDepth: 2 }] as Variant[]) {
      line(`SqliteStore put, ${label(variant)} (full)`, await storePutRate(dir, 'full', variant, 16, 2000, WORK_MS), raw);
    }
    const rawRange = (await rawSqliteRangeRead({ rows: 10000, rowBytes: ROW_BYTES, dir })).medianMs;
    const list = await storeListMs(dir, 10000);
    console.log(`raw range read of 10k rows: ${rawRange.toFixed(1)} ms; SqliteStore list of 10k keys: ${list.toFixed(1)} ms  ratio ${(list / rawRange).toFixed(2)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
