// `npm run bench -- startup`: time from spawning `node dist/src/main.js` (what `npm start` runs,
// on this built checkout) to ready, i.e. its "ready at" line and then the first 200 from
// /readyz, with an empty data dir (first start: CA, certificates, token and database made),
// restarted on it (0 objects), and restarted on a store of 10,000 objects (half ServiceCIDRs,
// whose status the controllers write, half ClusterTrustBundles, whose expiry the reporter reads),
// which includes the watch caches' fill and the controllers' first sync. Beside it, the
// server's RSS holding those objects and the raw size of what is stored. Target: < 1 s.
// Then a large store (BENCH_STARTUP_LARGE_OBJECTS, default 100,000 ServiceCIDRs of ~2 KB, as the
// server and its controllers leave them, written straight into the store: 100,000 creates
// through HTTPS would take minutes): restarts timed to ready (target < 3 s) and the RSS at the
// ready line, at /readyz 200 and after the controllers' first pass, 10 s later (target ≤ 2× the
// JSON bytes held), beside the file's size against those bytes, with the latency of GETs made
// during that pass (the controllers' workers share the event loop with requests); then once
// with --controllers= (the store and the watch caches alone).

import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fetchBody, READY_LINE, readKubeconfig, SERVER_MAIN, stop, waitForLine, type Started } from '../lib/bench-server.js';
import { scidr } from './crud-bench.js';
import { fillServiceCidrs } from '../../test/support/large-store.js';

const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 3);
const OBJECTS = Number(process.env.BENCH_STARTUP_OBJECTS ?? 10_000);
const TARGET_MS = 1000;
const LARGE_OBJECTS = Number(process.env.BENCH_STARTUP_LARGE_OBJECTS ?? 100_000);
const LARGE_TARGET_MS = 3000;
/** BENCH_STARTUP_CPU_PROF=<dir>: the restarts on the full store write CPU profiles there (node --cpu-prof), to see what scales with the objects. */
const CPU_PROF_DIR = process.env.BENCH_STARTUP_CPU_PROF;
const SC = '/apis/networking.platform.io/v1/servicecidrs';
const CTB = '/apis/certificates.platform.io/v1beta1/clustertrustbundles';

interface Timed {
  server: Started;
  readyLineMs: number;
  readyzMs: number;
  /** The server's RSS when it printed its ready line. */
  rssAtReadyLine: number | undefined;
}

/** GET /readyz (public) until it answers 200; bounded. */
async function waitReadyz(url: string, ca: string, deadline: number): Promise<void> {
  const agent = new https.Agent({ keepAlive: true, ca });
  try {
    for (;;) {
      const code = await new Promise<number>((resolve) => {
        https.get(`${url}/readyz`, { agent }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        }).on('error', () => resolve(0));
      });
      if (code === 200) return;
      if (performance.now() > deadline) throw new Error(`/readyz did not answer 200 (last ${code})`);
      await new Promise((r) => setTimeout(r, 2));
    }
  } finally {
    agent.destroy();
  }
}

/** Spawns the server as `npm start` does (default log level, its log discarded) and times it to ready. */
async function timedStart(dataDir: string, nodeArgs: string[] = [], serverArgs: string[] = []): Promise<Timed> {
  const started = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, SERVER_MAIN, '--data-dir', dataDir, '--secure-port', '0', ...serverArgs], { stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    const m = await waitForLine(child, READY_LINE, 60_000);
    const readyLineMs = performance.now() - started;
    const rssAtReadyLine = rssBytes(child.pid!);
    const { ca, token } = readKubeconfig(m[2]!);
    await waitReadyz(m[1]!, ca, started + 120_000);
    return { server: { child, url: m[1]!, ca, token, dataDir }, readyLineMs, readyzMs: performance.now() - started, rssAtReadyLine };
  } catch (err) {
    await stop(child);
    throw err;
  }
}

/** The resident set size of a process, from /proc (Linux); undefined elsewhere. */
function rssBytes(pid: number): number | undefined {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** GETs one at a time, `pauseMs` apart, for `forMs`: their latencies' p50, p99 and max. */
async function getLatencies(server: Started, forMs: number, path: (i: number) => string, pauseMs = 50): Promise<{ count: number; p50: number; p99: number; max: number }> {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  const end = performance.now() + forMs;
  try {
    for (let i = 0; performance.now() < end; i++) {
      const start = performance.now();
      await fetchBody(server, path(i), 'GET', undefined, agent);
      times.push(performance.now() - start);
      await new Promise((r) => setTimeout(r, pauseMs));
    }
  } finally {
    agent.destroy();
  }
  times.sort((a, b) => a - b);
  const at = (q: number): number => times[Math.min(times.length - 1, Math.floor(times.length * q))] ?? 0;
  return { count: times.length, p50: at(0.5), p99: at(0.99), max: times[times.length - 1] ?? 0 };
}

/** `count` creates with `concurrency` in flight over keep-alive HTTPS/1.1 connections. */
async function createMany(server: Started, count: number, concurrency: number, body: (i: number) => { path: string; json: string }): Promise<void> {
  const agent = new https.Agent({ keepAlive: true, maxSockets: concurrency });
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < count) {
          const { path, json } = body(next++);
          await fetchBody(server, path, 'POST', json, agent);
        }
      }),
    );
  } finally {
    agent.destroy();
  }
}

/** Waits until the store's revision has not moved for `quietMs` (the controllers' status writes are done). */
async function settle(server: Started, quietMs: number, timeoutMs: number): Promise<void> {
  const revision = async () => (JSON.parse((await fetchBody(server, `${SC}?limit=1`)).toString()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
  const deadline = Date.now() + timeoutMs;
  let last = await revision();
  for (;;) {
    await new Promise((r) => setTimeout(r, quietMs));
    const now = await revision();
    if (now === last || Date.now() > deadline) return;
    last = now;
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** Starts `runs` times on the data dir, stopping each; prints the median and the spread. Returns the last start, still running. */
async function report(label: string, dataDir: string, runs: number, children: ChildProcess[], nodeArgs: string[] = [], targetMs = TARGET_MS, serverArgs: string[] = []): Promise<Timed> {
  const times: Timed[] = [];
  for (let i = 0; i < runs; i++) {
    const t = await timedStart(dataDir, nodeArgs, serverArgs);
    children.push(t.server.child);
    times.push(t);
    if (i < runs - 1) await stop(t.server.child);
  }
  const lines = times.map((t) => t.readyLineMs);
  const readyz = times.map((t) => t.readyzMs);
  const m = median(readyz);
  console.log(
    `${label.padEnd(44)} ready line ${median(lines).toFixed(0).padStart(5)} ms, /readyz 200 ${m.toFixed(0).padStart(5)} ms ` +
      `(median of ${runs}; /readyz ${Math.min(...readyz).toFixed(0)}–${Math.max(...readyz).toFixed(0)} ms)  (target < ${targetMs} ms: ${m < targetMs ? 'met' : 'NOT met'})`,
  );
  return times[times.length - 1]!;
}

/** The large store: filled straight into SQLite, then restarted on; ready time, RSS, file size. */
async function benchLargeStore(children: ChildProcess[]): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-bench-startup-large-'));
  try {
    const filling = performance.now();
    const json = await fillServiceCidrs(dataDir, LARGE_OBJECTS, 2048);
    const file = statSync(join(dataDir, 'state.db')).size;
    console.log(
      `\nstartup on a large store: ${LARGE_OBJECTS} ServiceCIDRs of ~2 KB (${mb(json)} of JSON), written into the store in ${((performance.now() - filling) / 1000).toFixed(1)} s; ` +
        `SQLite file ${mb(file)} = ${(file / json).toFixed(2)}× the JSON (target ≤ 2×: ${file <= 2 * json ? 'met' : 'NOT met'})`,
    );
    // The first start makes the CA, certificates and token; the restarts are what is timed.
    const first = await timedStart(dataDir);
    children.push(first.server.child);
    await stop(first.server.child);
    const t = await report(`restart, ${LARGE_OBJECTS} objects`, dataDir, RUNS, children, CPU_PROF_DIR ? ['--cpu-prof', '--cpu-prof-dir', CPU_PROF_DIR] : [], LARGE_TARGET_MS);
    const atReadyz = rssBytes(t.server.child.pid!);
    // The controllers look at every ServiceCIDR once after the start (and write nothing here):
    // GETs of single objects meanwhile show whether they hold the server's other requests.
    const during = await getLatencies(t.server, 10_000, (i) => `${SC}/large-${String((i * 7919) % LARGE_OBJECTS).padStart(7, '0')}`);
    const settled = rssBytes(t.server.child.pid!);
    await stop(t.server.child);
    const verdict = (rss: number | undefined): string => (rss === undefined ? 'unknown (no /proc)' : `${mb(rss)} = ${(rss / json).toFixed(2)}× the JSON (target ≤ 2×: ${rss <= 2 * json ? 'met' : 'NOT met'})`);
    console.log(`  /readyz 200 ${(t.readyzMs - t.readyLineMs).toFixed(0)} ms after the ready line (last start; target: within the 3 s)`);
    console.log(
      `  GET of one ServiceCIDR during the controllers' first pass (10 s from /readyz 200, one every 50 ms): ${during.count} GETs, p50 ${during.p50.toFixed(1)} ms, p99 ${during.p99.toFixed(1)} ms, max ${during.max.toFixed(0)} ms`,
    );
    console.log(`server RSS with ${LARGE_OBJECTS} objects: at the ready line ${verdict(t.rssAtReadyLine)}; at /readyz 200 ${verdict(atReadyz)}; after the controllers' pass (10 s later) ${verdict(settled)}`);
    // The same store with the controllers off: what the store and the watch caches alone take.
    const bare = await report(`restart, ${LARGE_OBJECTS} objects, --controllers=`, dataDir, 1, children, [], LARGE_TARGET_MS, ['--controllers=']);
    console.log(`  (without the controllers: RSS at /readyz 200 ${verdict(rssBytes(bare.server.child.pid!))})`);
    await stop(bare.server.child);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function benchStartup(opts: { children: ChildProcess[] }): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-bench-startup-'));
  try {
    console.log(`\nstartup: spawn of node ${SERVER_MAIN.replace(/.*\/dist\//, 'dist/')} (as npm start) to its ready line and to the first 200 from /readyz:`);
    const first = await timedStart(dataDir);
    opts.children.push(first.server.child);
    await stop(first.server.child);
    console.log(`${'first start, empty data dir (makes CA, certs)'.padEnd(44)} ready line ${first.readyLineMs.toFixed(0).padStart(5)} ms, /readyz 200 ${first.readyzMs.toFixed(0).padStart(5)} ms  (target < ${TARGET_MS} ms: ${first.readyzMs < TARGET_MS ? 'met' : 'NOT met'})`);
    const empty = await report('restart, 0 objects (the default ServiceCIDR)', dataDir, RUNS, opts.children);
    const emptyRss = rssBytes(empty.server.child.pid!);

    // Fill once through the server, as clients would; then restart on the full store.
    const filling = Date.now();
    const ca = readFileSync(join(dataDir, 'ca.crt'), 'utf8');
    const half = Math.floor(OBJECTS / 2);
    await createMany(empty.server, OBJECTS, 16, (i) =>
      i < half
        ? { path: SC, json: JSON.stringify(scidr(`fill-${i}`, 4096 + i)) }
        : { path: CTB, json: JSON.stringify({ apiVersion: 'certificates.platform.io/v1beta1', kind: 'ClusterTrustBundle', metadata: { name: `fill-${i}` }, spec: { trustBundle: ca } }) },
    );
    await settle(empty.server, 1000, 120_000);
    await stop(empty.server.child);
    console.log(`  (filled ${OBJECTS} objects, ${half} ServiceCIDRs and ${OBJECTS - half} ClusterTrustBundles, through the server in ${((Date.now() - filling) / 1000).toFixed(1)} s)`);

    const full = await report(`restart, ${OBJECTS} objects`, dataDir, RUNS, opts.children, CPU_PROF_DIR ? ['--cpu-prof', '--cpu-prof-dir', CPU_PROF_DIR] : []);
    const rss = rssBytes(full.server.child.pid!);
    await stop(full.server.child);
    const db = new Database(join(dataDir, 'state.db'), { readonly: true, fileMustExist: true });
    let stored: { objects: number; bytes: number };
    try {
      stored = db.prepare('SELECT count(*) AS objects, sum(length(l.value)) AS bytes FROM current AS c JOIN log AS l ON l.revision = c.revision').get() as { objects: number; bytes: number };
    } finally {
      db.close();
    }
    const fileBytes = ['state.db', 'state.db-wal'].reduce((sum, f) => {
      try {
        return sum + statSync(join(dataDir, f)).size;
      } catch {
        return sum;
      }
    }, 0);
    console.log(
      `server RSS with ${stored.objects} objects, just ready: ${rss === undefined ? 'unknown (no /proc)' : mb(rss)}` +
        `${emptyRss === undefined ? '' : ` (${mb(emptyRss)} with 0 objects)`}; raw data: ${mb(stored.bytes)} of stored values, SQLite file ${mb(fileBytes)} (history included)`,
    );
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  if (LARGE_OBJECTS > 0) await benchLargeStore(opts.children);
}
