// `npm run bench -- overload`: a storm of connections (default 2,000: half creating, half
// listing everything) for a fixed time (default 30 s) against a fresh server, over HTTP/1.1
// (autocannon) or HTTP/2 (h2load, what kubectl and client-go speak), beside a baseline
// taken in the same run on the same server before the storm. Reports the share of requests
// answered 429 (the in-flight limits and load shedding), what another client sees meanwhile (p99
// of /readyz and of a single GET, from a worker thread with its own connection, as another
// ordinary user), the server's peak RSS, and recovery: the same probes and the RSS after the
// storm, and the in-flight requests left once the storm's clients are gone (every seat must come
// back). The storm is an ordinary user: system:masters would be exempt from both by design.

import autocannon from 'autocannon';
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { fetchBody } from '../lib/bench-server.js';
import { runH2load } from '../lib/load-tools.js';

export interface OverloadTarget {
  url: string;
  ca: string;
  /** The storm's bearer token (an ordinary user: system:masters is exempt from the limits). */
  token: string;
  /** The probing client's token: another ordinary user. */
  probeToken: string;
  /** An administrator's token (reads /metrics). */
  adminToken: string;
  pid: number;
  /** A GET the probe times (an existing object). */
  getPath: string;
  listPath: string;
  createPath: string;
  createBody: string;
}

export interface OverloadOptions {
  protocol: 'http/1.1' | 'h2';
  connections: number;
  durationMs: number;
  /** How long after the storm recovery is measured. */
  recoveryMs: number;
}

export interface ProbeStats {
  p50Ms: number;
  p99Ms: number;
  failed: number;
  samples: number;
  /** The slowest probes: when they started (ms after the phase began) and how long they took. */
  slowest: { atMs: number; ms: number }[];
}

export interface OverloadResult {
  responses: number;
  byStatus: Record<string, number>;
  /** Connection errors and timeouts (no response). */
  errors: number;
  share429: number;
  createsPerSecond: number;
  listsPerSecond: number;
  baseline: { readyz: ProbeStats; get: ProbeStats; rssBytes: number };
  storm: { readyz: ProbeStats; get: ProbeStats; peakRssBytes: number };
  recovery: { readyz: ProbeStats; get: ProbeStats; rssBytes: number };
  /** Requests the server still counted in flight after the recovery (the metrics read excluded). */
  heldAfter: number;
  /** When the last of them was over, in ms after the storm ended (NaN: not within SEATS_BACK_WITHIN_MS). */
  allBackAfterMs: number;
  /** A server holding the storm's objects, restarted on its data and idle (filled in by the caller). */
  atRest?: { objects: number; rssBytes: number };
}

/** The server's resident set size, from /proc (Linux). */
export function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const stats = (samples: number[], at: number[], since: number): ProbeStats => {
  const ok = samples.filter((s) => s >= 0).sort((a, b) => a - b);
  const slowest = samples
    .map((ms, i) => ({ atMs: at[i]! - since, ms }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 5);
  return { p50Ms: percentile(ok, 50), p99Ms: percentile(ok, 99), failed: samples.length - ok.length, samples: samples.length, slowest };
};

/** Runs the probe worker while `during` runs; returns its latencies. */
async function probeWhile(t: OverloadTarget, during: () => Promise<void>): Promise<{ readyz: ProbeStats; get: ProbeStats }> {
  const worker = new Worker(new URL('./overload-probe.js', import.meta.url), { workerData: { url: t.url, ca: t.ca, token: t.probeToken, getPath: t.getPath, intervalMs: 20 } });
  type Samples = { readyz: number[]; get: number[]; readyzAt: number[]; getAt: number[] };
  const result = new Promise<Samples>((resolve, reject) => {
    worker.on('message', (m) => {
      if (m !== 'warm') resolve(m as Samples);
    });
    worker.once('error', reject);
  });
  await new Promise<void>((resolve) => worker.once('message', () => resolve()));
  const since = Date.now();
  try {
    await during();
  } finally {
    worker.postMessage('stop');
  }
  const r = await result;
  await worker.terminate();
  return { readyz: stats(r.readyz, r.readyzAt, since), get: stats(r.get, r.getAt, since) };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
/** The server's default --request-timeout (60 s), its seat grace (5 s) and a margin. */
export const SEATS_BACK_WITHIN_MS = 70_000;

/** One half of the storm, as counted: answers by status, 2xx answers, requests never answered. */
interface StormResult {
  byStatus: Record<string, number>;
  ok: number;
  unanswered: number;
}

async function storm(t: OverloadTarget, protocol: OverloadOptions['protocol'], method: 'GET' | 'POST', path: string, connections: number, durationMs: number, body?: string): Promise<StormResult> {
  if (protocol === 'h2') {
    const r = await runH2load({ url: t.url, path, method, connections, durationMs, headers: { authorization: `Bearer ${t.token}` }, ...(body ? { body } : {}) });
    return { byStatus: r.byStatus ?? {}, ok: r.requests, unanswered: r.unanswered ?? 0 };
  }
  const r = await autocannonStorm(t, method, path, connections, durationMs, body);
  const byStatus: Record<string, number> = {};
  for (const [code, s] of Object.entries((r as unknown as { statusCodeStats: Record<string, { count: number }> }).statusCodeStats ?? {})) byStatus[code] = s.count;
  return { byStatus, ok: r['2xx'], unanswered: r.errors + r.timeouts };
}

/** Requests in flight, from the server's own gauge (the metrics read itself is one). */
async function inflightRequests(t: OverloadTarget): Promise<number> {
  const text = (await fetchBody({ url: t.url, ca: t.ca, token: t.adminToken }, '/metrics')).toString();
  let n = 0;
  for (const m of text.matchAll(/^apiserver_current_inflight_requests\{[^}]*\} (\d+)$/gm)) n += Number(m[1]);
  return n - 1;
}

function autocannonStorm(t: OverloadTarget, method: 'GET' | 'POST', path: string, connections: number, durationMs: number, body?: string): Promise<autocannon.Result> {
  return autocannon({
    url: `${t.url}${path}`,
    method,
    connections,
    pipelining: 1,
    duration: durationMs / 1000,
    // A request still unanswered after this long counts as a timeout, not a response.
    timeout: 60,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${t.token}` },
    ...(body ? { body } : {}),
    tlsOptions: { ca: t.ca },
  });
}

export async function benchOverload(t: OverloadTarget, o: OverloadOptions): Promise<OverloadResult> {
  // Baseline: the same probes on the idle server.
  const rssBefore = rssOf(t.pid);
  const baseline = await probeWhile(t, () => sleep(3000));

  let peakRss = rssBefore;
  const sampler = setInterval(() => {
    try {
      peakRss = Math.max(peakRss, rssOf(t.pid));
    } catch {
      // The server is gone; the storm's errors say so.
    }
  }, 250);
  let creates!: StormResult;
  let lists!: StormResult;
  const during = await probeWhile(t, async () => {
    const half = Math.max(1, Math.floor(o.connections / 2));
    [creates, lists] = await Promise.all([
      storm(t, o.protocol, 'POST', t.createPath, half, o.durationMs, t.createBody),
      storm(t, o.protocol, 'GET', t.listPath, o.connections - half, o.durationMs),
    ]);
  });
  const stormEnded = Date.now();
  await sleep(o.recoveryMs);
  const recovery = await probeWhile(t, () => sleep(3000));
  // The peak counts the recovery too: memory freed by the storm's end may be retaken after it.
  clearInterval(sampler);
  const heldAfter = await inflightRequests(t);
  // A response the client can no longer take ends at the latest at the request timeout: wait
  // that long (bounded) for the last seat to come back.
  let held = heldAfter;
  while (held > 0 && Date.now() - stormEnded < SEATS_BACK_WITHIN_MS) {
    await sleep(1000);
    held = await inflightRequests(t);
  }
  const allBackAfterMs = held === 0 ? Date.now() - stormEnded : NaN;

  const byStatus: Record<string, number> = {};
  for (const r of [creates, lists]) for (const [code, n] of Object.entries(r.byStatus)) byStatus[code] = (byStatus[code] ?? 0) + n;
  const responses = Object.values(byStatus).reduce((a, b) => a + b, 0);
  const seconds = o.durationMs / 1000;
  return {
    responses,
    byStatus,
    errors: creates.unanswered + lists.unanswered,
    share429: responses ? (byStatus['429'] ?? 0) / responses : 0,
    createsPerSecond: creates.ok / seconds,
    listsPerSecond: lists.ok / seconds,
    baseline: { ...baseline, rssBytes: rssBefore },
    storm: { ...during, peakRssBytes: peakRss },
    recovery: { ...recovery, rssBytes: rssOf(t.pid) },
    heldAfter,
    allBackAfterMs,
  };
}
