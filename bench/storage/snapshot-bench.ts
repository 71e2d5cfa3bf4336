// `npm run bench -- snapshot`: the SQLite store's snapshots. (1) Save time of `snapshot save`
// (the real bin) on a store of 10,000 objects. (2) The server's write throughput (merge patches,
// 16 connections, autocannon) while snapshots are saved back to back by another process, with
// VACUUM INTO (the default) and with the online backup API, beside the same load with no snapshot
// running, measured in the same run (target ≥ 0.8×). (3) Restore time for 10,000 and 100,000
// objects: the restore itself, and the whole `snapshot restore` command (node start, the
// integrity check, the restore).

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fetchBody, SERVER_MAIN, startApiServer, stop, type Started } from '../lib/bench-server.js';
import { scidr } from '../crud/crud-bench.js';
import { runLoad, type LoadResult } from '../lib/http-load.js';
import { openSqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import { saveSnapshot } from '../../src/storage/sqlite/snapshot-save.js';
import { restoreSnapshot } from '../../src/storage/sqlite/snapshot-restore.js';

const here = dirname(fileURLToPath(import.meta.url));
const SC = '/apis/networking.platform.io/v1/servicecidrs';
const SC_PREFIX = '/registry/networking.platform.io/servicecidrs/';
const CONNECTIONS = 16;
const SLOTS = 100;

export interface SnapshotBenchOptions {
  durationMs: number;
  children: import('node:child_process').ChildProcess[];
}

const ms = (n: number): string => `${n.toFixed(0)} ms`;
const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** Runs the bin; resolves with its wall time (throws on a non-zero exit). */
function timedCli(args: string[]): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SERVER_MAIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('exit', (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`${args.join(' ')}: exit ${code}: ${stderr}`))));
  });
}

async function createObjects(s: Started, count: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < count) {
        const i = next++;
        await fetchBody(s, SC, 'POST', JSON.stringify(scidr(`obj-${i}`, i)));
      }
    }),
  );
}

const patchLoad = (s: Started, durationMs: number): Promise<LoadResult> =>
  runLoad({
    url: s.url,
    ca: s.ca,
    headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/merge-patch+json' },
    connections: CONNECTIONS,
    durationMs,
    method: 'PATCH',
    path: `${SC}/obj-[<slot>]`,
    slots: SLOTS,
    body: '{"metadata":{"labels":{"n":"[<id>]"}}}',
  });

/** The write load while another process saves snapshots back to back with `method`. */
async function loadDuringSaves(s: Started, method: 'vacuum' | 'backup', durationMs: number, scratch: string): Promise<{ load: LoadResult; saves: number; busyMs: number }> {
  const child = spawn(process.execPath, [join(here, './snapshot-save-loop.js'), join(s.dataDir, 'state.db'), scratch, method], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  const load = await patchLoad(s, durationMs);
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
  const { saves, busyMs } = JSON.parse(out) as { saves: number; busyMs: number };
  return { load, saves, busyMs };
}

/** A store of `count` ServiceCIDRs (the server's stored JSON of one, renamed), written through the real SQLite store. */
async function makeStore(dataDir: string, count: number, sample: Buffer): Promise<void> {
  const store = openSqliteStore({ path: join(dataDir, 'state.db'), durability: 'normal' });
  const text = sample.toString();
  for (let i = 0; i < count; i += 1000) {
    await Promise.all(
      Array.from({ length: Math.min(1000, count - i) }, (_, j) => store.optimisticPut(`${SC_PREFIX}obj-${i + j}`, Buffer.from(text.replaceAll('"obj-0"', `"obj-${i + j}"`)), 0)),
    );
  }
  await store.close();
}

export async function benchSnapshot(o: SnapshotBenchOptions): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'platform-bench-snap-'));
  const durationMs = Math.max(o.durationMs, 8000);
  try {
    console.log('');
    const s = await startApiServer([], ['--snapshot-schedule-cron', '']);
    o.children.push(s.child);
    try {
      await createObjects(s, 10_000);
      const file = join(scratch, 'save.db');
      const saveMs = await timedCli(['snapshot', 'save', file, '--data-dir', s.dataDir]);
      const inProcess = await saveSnapshot({ dbPath: join(s.dataDir, 'state.db'), file });
      console.log(`snapshot save, 10000 objects (${mib(inProcess.sizeBytes)}): the command ${ms(saveMs)} (node start included), the save itself ${ms(inProcess.durationMs)}`);

      // Interleaved (none, backup, none, vacuum, none): each method beside the mean of the runs
      // around it, so that drift in a machine shared with other work weighs on neither side.
      const before = await patchLoad(s, durationMs);
      const backup = await loadDuringSaves(s, 'backup', durationMs, scratch);
      const between = await patchLoad(s, durationMs);
      const vacuum = await loadDuringSaves(s, 'vacuum', durationMs, scratch);
      const afterwards = await patchLoad(s, durationMs);
      const rows = [
        ['online backup API', backup, (before.perSecond + between.perSecond) / 2],
        ['VACUUM INTO (default)', vacuum, (between.perSecond + afterwards.perSecond) / 2],
      ] as const;
      for (const [label, r, baseline] of rows) {
        const ratio = r.load.perSecond / baseline;
        console.log(
          `writes during back-to-back snapshots, ${label}: ${r.load.perSecond.toFixed(0)}/s p99 ${r.load.p99Ms.toFixed(1)} ms (${r.saves} saves, ${ms(r.busyMs / Math.max(1, r.saves))} each) ` +
            `vs ${baseline.toFixed(0)}/s without (the runs before and after it): ratio ${ratio.toFixed(2)}× (target ≥ 0.8×: ${ratio >= 0.8 ? 'met' : 'NOT met'})`,
        );
      }
      console.log(`  (writes with no snapshot running: ${[before, between, afterwards].map((r) => `${r.perSecond.toFixed(0)}/s`).join(', ')})`);
      const sample = await fetchBody(s, `${SC}/obj-0`);
      await stop(s.child);
      for (const count of [10_000, 100_000]) {
        const data = join(scratch, `store-${count}`);
        await makeStore(data, count, sample);
        const snap = join(scratch, `snap-${count}.db`);
        const saved = await saveSnapshot({ dbPath: join(data, 'state.db'), file: snap });
        const restored = restoreSnapshot({ file: snap, dataDir: join(scratch, `restored-${count}`) });
        const cliMs = await timedCli(['snapshot', 'restore', snap, '--data-dir', join(scratch, `restored-cli-${count}`)]);
        console.log(
          `restore, ${count} objects of ${sample.length} bytes (${mib(saved.sizeBytes)}): ${ms(restored.durationMs)} (integrity check included; ${(count / (restored.durationMs / 1000)).toFixed(0)} objects/s), ` +
            `the command ${ms(cliMs)} (node start included); save of the same store ${ms(saved.durationMs)}`,
        );
      }
    } finally {
      await stop(s.child);
      rmSync(s.dataDir, { recursive: true, force: true });
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
