// `npm run bench -- store`: the SQLite store of a large number of objects (BENCH_STORE_OBJECTS,
// default 100,000 ServiceCIDRs of ~2 KB, as the server and its controllers leave them) on disk
// and through its operator commands, each the real bin as an operator runs it:
// - the file against the JSON it holds, in the old layout (schema 1) and this one (target ≤ 2×);
// - `defrag` offline on the schema-1 file (the rewrite a server also does once at start);
// - every object updated once and the old versions compacted away (free pages), then `defrag` offline;
// - the same again with a server running and a client writing: `defrag` online, beside the
//   writes, which are timed in windows as long as the defrag before it and during it;
// - `snapshot save`, `snapshot status`, `snapshot restore` of the whole store.
// Each figure is a wall time of the command (node's start included).

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fetchBody, SERVER_MAIN, startApiServer, stop } from './bench-server.js';
import { fillSchemaOneStore, fillServiceCidrs, SERVICE_CIDR_KEY } from '../test/support/large-store.js';
import { openSqliteStore } from '../src/storage/sqlite/sqlite-store.js';

const OBJECTS = Number(process.env.BENCH_STORE_OBJECTS ?? 100_000);
const BYTES = 2048;
const SC = '/apis/networking.platform.io/v1/servicecidrs';

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const sec = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const fileSize = (dir: string): number => ['state.db', 'state.db-wal'].reduce((n, f) => n + (() => { try { return statSync(join(dir, f)).size; } catch { return 0; } })(), 0);

/** Runs the bin to its end; its wall time and output (throws on a non-zero exit). */
function timedCli(args: string[]): Promise<{ ms: number; stdout: string }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SERVER_MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('exit', (code) => (code === 0 ? resolve({ ms: performance.now() - started, stdout }) : reject(new Error(`${args.join(' ')}: exit ${code}: ${stderr}`))));
  });
}

/**
 * Updates every object once (same size) and compacts: the old versions' pages, written in
 * revision order, become free pages (churn, as controllers' status writes make it).
 */
async function churn(dataDir: string): Promise<void> {
  const store = openSqliteStore({ path: join(dataDir, 'state.db'), durability: 'normal' });
  try {
    for (let i = 0; i < OBJECTS; i += 500) {
      await Promise.all(
        Array.from({ length: Math.min(500, OBJECTS - i) }, async (_, j) => {
          const key = `${SERVICE_CIDR_KEY}large-${String(i + j).padStart(7, '0')}`;
          const kv = (await store.get(key)).kv!;
          const text = Buffer.from(kv.value).toString('utf8');
          await store.optimisticPut(key, Buffer.from(text.replace(/"note":"(x)/, '"note":"y')), kv.modRevision);
        }),
      );
    }
    await store.compact(await store.currentRevision());
  } finally {
    await store.close();
  }
}

interface Window {
  writes: number;
  maxMs: number;
  p99Ms: number;
}

/** Creates one at a time until `until` settles; each create's latency. */
async function writesUntil(post: () => Promise<void>, until: Promise<unknown>): Promise<Window> {
  let done = false;
  void until.finally(() => (done = true));
  const lat: number[] = [];
  while (!done) {
    const t = performance.now();
    await post();
    lat.push(performance.now() - t);
  }
  lat.sort((a, b) => a - b);
  return { writes: lat.length, maxMs: lat[lat.length - 1] ?? 0, p99Ms: lat[Math.floor(lat.length * 0.99)] ?? 0 };
}

export async function benchStore(opts: { children: ChildProcess[] }): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'platform-bench-store-'));
  try {
    console.log(`\nstore: ${OBJECTS} ServiceCIDRs of ~${BYTES / 1024} KB, each command the real bin (node's start included):`);
    const old = join(root, 'schema-1');
    const json = fillSchemaOneStore(old, OBJECTS, BYTES);
    const oldSize = fileSize(old);
    console.log(`schema 1 (before): file ${mb(oldSize)} = ${(oldSize / json).toFixed(2)}× the ${mb(json)} of JSON`);
    const upgrade = await timedCli(['defrag', '--data-dir', old]);
    const upgraded = fileSize(old);
    console.log(`defrag offline of the schema-1 file (the once-only rewrite a server also does at start): ${sec(upgrade.ms)}; file ${mb(upgraded)} = ${(upgraded / json).toFixed(2)}× the JSON (target ≤ 2×: ${upgraded <= 2 * json ? 'met' : 'NOT met'})`);
    rmSync(old, { recursive: true, force: true });

    const dir = join(root, 'store');
    await fillServiceCidrs(dir, OBJECTS, BYTES);
    const size = fileSize(dir);
    console.log(`schema 2, filled through the store: file ${mb(size)} = ${(size / json).toFixed(2)}× the JSON`);

    const snapshot = join(root, 'snap.db');
    const save = await timedCli(['snapshot', 'save', snapshot, '--data-dir', dir]);
    const status = await timedCli(['snapshot', 'status', snapshot]);
    const restore = await timedCli(['snapshot', 'restore', snapshot, '--data-dir', join(root, 'restored')]);
    console.log(`snapshot save ${sec(save.ms)} (${mb(statSync(snapshot).size)}), status ${sec(status.ms)} (checksum and integrity check), restore ${sec(restore.ms)} (checksum, copy, verification)`);
    rmSync(join(root, 'restored'), { recursive: true, force: true });
    rmSync(snapshot, { force: true });

    await churn(dir);
    const churned = fileSize(dir);
    const offline = await timedCli(['defrag', '--data-dir', dir]);
    console.log(`every object updated once and compacted: file ${mb(churned)}; defrag offline ${sec(offline.ms)}: ${mb(churned)} → ${mb(fileSize(dir))}`);

    // Online: the same churn again while no server runs, then a server starts and a client writes beside the defrag.
    await churn(dir);
    const server = await startApiServer([], ['--controllers=', '--snapshot-schedule-cron', ''], dir);
    opts.children.push(server.child);
    const agent = new https.Agent({ keepAlive: true, ca: server.ca });
    let n = 0;
    const post = async (): Promise<void> =>
      void (await fetchBody(server, SC, 'POST', JSON.stringify({ apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: `bench-${n++}` }, spec: { cidrs: [`172.16.${n % 250}.0/24`] } }), agent));
    let line = '';
    try {
      const beforeSize = fileSize(dir);
      const t0 = performance.now();
      const defrag = timedCli(['defrag', '--data-dir', dir]);
      const during = await writesUntil(post, defrag);
      const online = await defrag;
      const took = performance.now() - t0;
      const baseline = await writesUntil(post, new Promise((r) => setTimeout(r, took)));
      line =
        `defrag online beside the server: ${sec(online.ms)}, ${mb(beforeSize)} → ${mb(statSync(join(dir, 'state.db')).size)} (and a WAL of ${mb(fileSize(dir) - statSync(join(dir, 'state.db')).size)} until the server's next checkpoint); ` +
        `a client's creates during it: ${during.writes} (p99 ${during.p99Ms.toFixed(1)} ms, max ${during.maxMs.toFixed(1)} ms), ` +
        `in as long right after: ${baseline.writes} (p99 ${baseline.p99Ms.toFixed(1)} ms, max ${baseline.maxMs.toFixed(1)} ms): ratio ${(during.writes / Math.max(1, baseline.writes)).toFixed(2)}×`;
    } finally {
      agent.destroy();
      await stop(server.child);
    }
    console.log(`${line}; once the server stopped: ${mb(fileSize(dir))}`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
