// Watch fan-out over HTTPS: N watchers on one server (a child process), writes at a fixed rate;
// reports the write rate achieved, delivered events/s, p99 from a write's response to each
// watcher receiving it, and the server's resident memory per idle watcher: the growth of its
// RSS, read after full garbage collections, from N to 2N idle watchers, over N.
// Called from bench/run.ts, with many watchers at a low rate and few at a high rate.

import https from 'node:https';
import { Worker } from 'node:worker_threads';
import type { Receipt } from './watch-bench-worker.js';

/** Threads reading the watches. */
const WORKERS = 2;

export interface WatchBenchOptions {
  url: string;
  ca: string;
  token: string;
  /** The server's memory after full garbage collections. */
  memory: () => Promise<ServerMemory>;
  watchers: number;
  writesPerSecond: number;
  durationMs: number;
  /** HTTP/2 with this many watches per connection; 0 (default): HTTP/1.1, a connection each. */
  streamsPerConnection?: number;
}

export interface ServerMemory {
  rss: number;
  heapUsed: number;
}

export interface WatchBenchResult {
  watchers: number;
  writes: number;
  /** Writes that completed per second (did the server keep up with the asked rate?). */
  writesPerSecond: number;
  delivered: number;
  deliveredPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /**
   * Server RSS per idle watcher, marginal: the growth from N to 2N idle watchers, divided by N.
   * The first N pay one-off costs (the young generation's pages first touched, code compiled),
   * which are not per watcher.
   */
  idleBytesPerWatcher: number;
  /** The same for the JavaScript heap in use. */
  idleHeapBytesPerWatcher: number;
}

const SC = '/apis/networking.platform.io/v1/servicecidrs';

export async function benchWatchFanOut(o: WatchBenchOptions): Promise<WatchBenchResult> {
  const url = new URL(o.url);
  // A label per run, so that one run's watchers never see another run's objects.
  const label = `watch-${o.watchers}-${o.writesPerSecond}-${o.streamsPerConnection ?? 0}`;
  const headers = { Authorization: `Bearer ${o.token}` };
  const written = new Map<number, number>();
  const nowMs = (): number => performance.timeOrigin + performance.now();

  // Watchers in worker threads (reading many TLS streams is the load generator's biggest cost).
  const threads = Math.max(1, Math.min(WORKERS, o.watchers));
  const delivered = new Array<number>(threads).fill(0);
  const workers = Array.from({ length: threads }, (_, i) => {
    const share = Math.floor(o.watchers / threads) + (i < o.watchers % threads ? 1 : 0);
    const w = new Worker(new URL('./watch-bench-worker.js', import.meta.url), {
      workerData: { url: o.url, ca: o.ca, token: o.token, watchers: share, streamsPerConnection: o.streamsPerConnection ?? 0, path: `${SC}?watch=true&resourceVersion=0&labelSelector=bench%3D${label}` },
    });
    w.on('message', (m: { type: string; delivered?: number }) => {
      if (m.type === 'progress') delivered[i] = m.delivered!;
    });
    return w;
  });
  const reply = (w: Worker, type: string): Promise<void> =>
    new Promise((resolve) => {
      const on = (m: { type: string }): void => {
        if (m.type !== type) return;
        w.off('message', on);
        resolve();
      };
      w.on('message', on);
    });
  const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 1000));
  await Promise.all(workers.map((w) => reply(w, 'ready')));
  await settle();
  const first = await o.memory();
  await Promise.all(workers.map((w) => (w.postMessage({ type: 'open-extra' }), reply(w, 'extra-ready'))));
  await settle();
  const second = await o.memory();
  await Promise.all(workers.map((w) => (w.postMessage({ type: 'close-extra' }), reply(w, 'extra-closed'))));
  await settle();
  const idleBytesPerWatcher = Math.max(0, second.rss - first.rss) / o.watchers;
  const idleHeapBytesPerWatcher = Math.max(0, second.heapUsed - first.heapUsed) / o.watchers;

  // Writes at a fixed rate (open loop, over keep-alive connections, at most 64 in flight);
  // each watcher must see each one.
  const writeAgent = new https.Agent({ ca: o.ca, keepAlive: true, maxSockets: 64 });
  const interval = 1000 / o.writesPerSecond;
  const total = Math.floor((o.durationMs / 1000) * o.writesPerSecond);
  const started = performance.now();
  let writes = 0;
  const inFlight = new Set<Promise<void>>();
  for (let i = 0; i < total; i++) {
    const due = started + i * interval;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    if (inFlight.size >= 64) await Promise.race(inFlight);
    const body = JSON.stringify({ metadata: { name: `watch-bench-${o.writesPerSecond}${o.streamsPerConnection ?? 0}-${i}`, labels: { bench: label } }, spec: { cidrs: ['10.0.0.0/8'] } });
    const write = new Promise<void>((resolve) => {
      const req = https.request(
        { agent: writeAgent, host: url.hostname, port: url.port, method: 'POST', path: SC, headers: { ...headers, 'Content-Type': 'application/json', 'Content-Length': String(body.length) } },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode === 201) {
              written.set(i, nowMs());
              writes++;
            }
            resolve();
          });
        },
      );
      req.on('error', () => resolve());
      req.end(body);
    });
    inFlight.add(write);
    void write.then(() => inFlight.delete(write));
  }
  await Promise.all(inFlight);
  const writeSeconds = (performance.now() - started) / 1000;
  writeAgent.destroy();
  // Let the last events arrive (bounded).
  const expected = writes * o.watchers;
  const sum = (): number => delivered.reduce((a, b) => a + b, 0);
  for (let t = 0; t < 200 && sum() < expected; t++) await new Promise((r) => setTimeout(r, 50));
  const elapsed = performance.now() - started;

  const latencies: number[] = [];
  let count = 0;
  await Promise.all(
    workers.map(async (w) => {
      const done = new Promise<Receipt[]>((resolve) => w.on('message', (m: { type: string; receipts?: Receipt[] }) => m.type === 'done' && resolve(m.receipts!)));
      w.postMessage({ type: 'stop' });
      for (const [index, at] of await done) {
        const wrote = written.get(index);
        // The event can beat the write's own response to this client: that is 0 ms.
        latencies.push(wrote === undefined ? 0 : Math.max(0, at - wrote));
        count++;
      }
      await w.terminate();
    }),
  );
  latencies.sort((a, b) => a - b);
  const pct = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { watchers: o.watchers, writes, writesPerSecond: writes / writeSeconds, delivered: count, deliveredPerSecond: (count / elapsed) * 1000, p50Ms: pct(0.5), p99Ms: pct(0.99), idleBytesPerWatcher, idleHeapBytesPerWatcher };
}

export interface IdleStreamsOptions {
  url: string;
  ca: string;
  path: string;
  count: number;
  memory: () => Promise<ServerMemory>;
}

/**
 * Memory per open HTTP/1.1 streaming response (a TLS connection each) of any server: `count`
 * requests held open, then `count` more; the growth between the two, over `count`.
 */
export async function benchIdleStreams(o: IdleStreamsOptions): Promise<{ rssBytesPerStream: number; heapBytesPerStream: number }> {
  const url = new URL(o.url);
  const agent = new https.Agent({ ca: o.ca, keepAlive: false, maxSockets: Infinity });
  const open = () =>
    Promise.all(
      Array.from(
        { length: o.count },
        () =>
          new Promise<void>((resolve, reject) => {
            const req = https.request({ agent, host: url.hostname, port: url.port, path: o.path }, (res) => {
              res.resume();
              resolve();
            });
            req.on('error', reject);
            req.end();
          }),
      ),
    );
  try {
    await open();
    await new Promise((r) => setTimeout(r, 1000));
    const first = await o.memory();
    await open();
    await new Promise((r) => setTimeout(r, 1000));
    const second = await o.memory();
    return { rssBytesPerStream: Math.max(0, second.rss - first.rss) / o.count, heapBytesPerStream: Math.max(0, second.heapUsed - first.heapUsed) / o.count };
  } finally {
    agent.destroy();
  }
}
