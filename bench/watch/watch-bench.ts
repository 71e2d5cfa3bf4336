// Watch fan-out over HTTPS: N watchers on one server (a child process), read by worker threads,
// then writes at fixed rates on the same watchers. For each rate: the write rate achieved,
// events delivered, p50/p99 from a write's response to each watcher receiving it, and the CPU
// the server and this client spent (the client must not be the wall); before the writes, the
// server's resident memory per idle watcher: the growth of its RSS (and heap), read after full
// garbage collections, from N idle watchers to N + M, over M.
// Called from bench/run.ts (watch-report.ts prints it).

import https from 'node:https';
import type { ChildProcess } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import { cpuSecondsOf, measureMemory, type ServerMemory } from '../lib/bench-server.js';
import type { Receipt } from './watch-bench-worker.js';

/** Threads reading the watches. */
const WORKERS = 2;
const SC = '/apis/networking.platform.io/v1/servicecidrs';
/** The objects the writes change, in turn (several, so that writes in flight are not all on one key). */
const OBJECTS = 64;

/** One request; resolves with its status (0: it failed). */
function request(o: { url: string; token: string }, agent: https.Agent, method: string, path: string, body: string): Promise<number> {
  const url = new URL(o.url);
  const type = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
  return new Promise((resolve) => {
    const req = https.request(
      { agent, host: url.hostname, port: url.port, method, path, headers: { Authorization: `Bearer ${o.token}`, 'Content-Type': type, 'Content-Length': String(Buffer.byteLength(body)) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', () => resolve(0));
    req.end(body);
  });
}

export interface WatchClientsOptions {
  url: string;
  ca: string;
  token: string;
  /** The server's memory after full garbage collections. */
  memory: () => Promise<ServerMemory>;
  /** The server's process id, for its CPU time. */
  serverPid: number;
  watchers: number;
  /** Opened beside the N for the memory figure (default N; fewer where connections run short). */
  extraWatchers?: number;
  /**
   * The extra watchers stay open and count among the watchers from then on (the memory figure
   * is then from N to N + M, and the writes reach N + M): for HTTP/1.1, where 2N connections
   * would pass the server's connection limit.
   */
  keepExtra?: boolean;
  /** HTTP/2 with this many watches per connection; 0: HTTP/1.1, a connection each. */
  streamsPerConnection: number;
  /**
   * The server is the bare baseline (bare-server.ts): the watches are its `/watch` and a write is
   * a request to its `/fanout/<n>`, which writes one event line to every held response.
   */
  bare?: boolean;
  /** The watches ask for bookmarks (as client-go's informers do). */
  bookmarks?: boolean;
  /** Called after each idle-memory reading ('first': N watchers, 'second': N + M), e.g. for a heap snapshot. */
  afterReading?: (which: 'first' | 'second') => Promise<void>;
}

/** Where the watches go: a started server's address and credentials, its memory probe and its process. */
export function serverTarget(s: { url: string; ca: string; token: string; child: ChildProcess }): Pick<WatchClientsOptions, 'url' | 'ca' | 'token' | 'memory' | 'serverPid'> {
  return { url: s.url, ca: s.ca, token: s.token, memory: () => measureMemory(s.child), serverPid: s.child.pid! };
}

export interface IdleMemory {
  /** Server RSS per idle watcher, marginal (from N to N + M idle watchers, over M): the first N pay one-off costs. */
  rssBytesPerWatcher: number;
  /** The same for the JavaScript heap in use. */
  heapBytesPerWatcher: number;
  extraWatchers: number;
}

export interface RateResult {
  watchers: number;
  askedPerSecond: number;
  writes: number;
  /** Writes that failed (not 201). */
  refused: number;
  /** Writes that completed per second (did the server keep up with the asked rate?). */
  writesPerSecond: number;
  delivered: number;
  expected: number;
  deliveredPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** The run's length, from the first write to the last event (or the bounded wait's end). */
  seconds: number;
  /** CPU over the run, in cores (1 = one core busy all the time). */
  serverCores: number;
  clientCores: number;
}

/** Writes at this rate met the target: every event delivered, the rate kept, p99 < 100 ms. */
export const meetsTarget = (r: RateResult): boolean => r.delivered === r.expected && r.writesPerSecond >= 0.95 * r.askedPerSecond && r.p99Ms < 100;

const ownCpuSeconds = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** N open watches on one server, kept across write rates. */
export class WatchClients {
  private readonly workers: Worker[];
  private readonly delivered: number[];
  /** The label on the objects the writes change (`<label>-<i>`, i < 64). */
  readonly label: string;
  /** Each write's sequence number (unique on this server) → when its response came. */
  private readonly written = new Map<number, number>();
  private sequence = 0;
  /** The watchers the writes reach. */
  watchers: number;

  private constructor(
    private readonly o: WatchClientsOptions,
    label: string,
    revision: string,
  ) {
    this.label = label;
    this.watchers = o.watchers;
    const threads = Math.max(1, Math.min(WORKERS, o.watchers));
    this.delivered = new Array<number>(threads).fill(0);
    const extra = o.extraWatchers ?? o.watchers;
    const share = (n: number, i: number) => Math.floor(n / threads) + (i < n % threads ? 1 : 0);
    this.workers = Array.from({ length: threads }, (_, i) => {
      const w = new Worker(new URL('./watch-bench-worker.js', import.meta.url), {
        workerData: {
          url: o.url,
          ca: o.ca,
          token: o.token,
          watchers: share(o.watchers, i),
          extraWatchers: share(extra, i),
          streamsPerConnection: o.streamsPerConnection,
          path: o.bare ? '/watch' : `${SC}?watch=true&resourceVersion=${revision}&labelSelector=bench%3D${label}${o.bookmarks ? '&allowWatchBookmarks=true' : ''}`,
        },
      });
      w.on('message', (m: { type: string; delivered?: number }) => {
        if (m.type === 'progress') this.delivered[i] = m.delivered!;
      });
      return w;
    });
  }

  /**
   * Creates the objects the writes will change (before the watches open, so that their creation
   * and the status controller's follow-up writes are not measured), then opens the watches;
   * resolves once every one has its response headers.
   */
  static async open(o: WatchClientsOptions): Promise<WatchClients> {
    // A label per server and protocol, so that these watchers never see another run's objects.
    const label = `watch${o.watchers}p${o.streamsPerConnection}`;
    if (o.bare) {
      const c = new WatchClients(o, label, '');
      await Promise.all(c.workers.map((w) => c.reply(w, 'ready')));
      return c;
    }
    const agent = new https.Agent({ ca: o.ca, keepAlive: true, maxSockets: 16 });
    try {
      await Promise.all(
        Array.from({ length: OBJECTS }, (_, i) =>
          request(o, agent, 'POST', SC, JSON.stringify({ metadata: { name: `${label}-${i}`, labels: { bench: label } }, spec: { cidrs: [`10.${i}.0.0/16`] } })).then((status) => {
            if (status !== 201) throw new Error(`creating the watch benchmark's objects: ${status}`);
          }),
        ),
      );
    } finally {
      agent.destroy();
    }
    await new Promise((r) => setTimeout(r, 1000)); // the status controller's writes
    // Watches from the revision now: changes only, no initial events.
    const list = await new Promise<string>((resolve, reject) => {
      const url = new URL(o.url);
      https
        .get({ ca: o.ca, host: url.hostname, port: url.port, path: `${SC}?limit=1`, headers: { Authorization: `Bearer ${o.token}` } }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (text += d));
          res.on('end', () => resolve(text));
        })
        .on('error', reject);
    });
    const revision = (JSON.parse(list) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    const c = new WatchClients(o, label, revision);
    await Promise.all(c.workers.map((w) => c.reply(w, 'ready')));
    return c;
  }

  private reply<T = unknown>(w: Worker, type: string): Promise<T> {
    return new Promise((resolve, reject) => {
      const on = (m: { type: string; message?: string }): void => {
        if (m.type !== type && m.type !== 'failed') return;
        w.off('message', on);
        w.off('error', reject);
        if (m.type === 'failed') reject(new Error(`watch bench worker: ${m.message}`));
        else resolve(m as T);
      };
      w.on('message', on);
      w.once('error', reject);
    });
  }

  /** Server memory per idle watcher: N idle, then N + M, each after full collections. */
  async idleMemory(): Promise<IdleMemory> {
    const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 1000));
    const extra = this.o.extraWatchers ?? this.o.watchers;
    await settle();
    const first = await this.o.memory();
    await this.o.afterReading?.('first');
    await Promise.all(this.workers.map((w) => (w.postMessage({ type: 'open-extra' }), this.reply(w, 'extra-ready'))));
    await settle();
    const second = await this.o.memory();
    await this.o.afterReading?.('second');
    if (this.o.keepExtra) this.watchers += extra;
    else {
      await Promise.all(this.workers.map((w) => (w.postMessage({ type: 'close-extra' }), this.reply(w, 'extra-closed'))));
      await settle();
    }
    return { rssBytesPerWatcher: Math.max(0, second.rss - first.rss) / extra, heapBytesPerWatcher: Math.max(0, second.heapUsed - first.heapUsed) / extra, extraWatchers: extra };
  }

  /**
   * Changes the objects the watchers see (a label each) at `writesPerSecond` for `durationMs` (open loop, over
   * keep-alive connections, at most 64 in flight), waits (bounded) for every watcher to get
   * every one, and measures.
   */
  async run(writesPerSecond: number, durationMs: number): Promise<RateResult> {
    const nowMs = (): number => performance.timeOrigin + performance.now();
    const writeAgent = new https.Agent({ ca: this.o.ca, keepAlive: true, maxSockets: 64 });
    const interval = 1000 / writesPerSecond;
    const total = Math.max(1, Math.floor((durationMs / 1000) * writesPerSecond));
    // A previous rate's backlog still arriving would be counted here: wait (bounded) until the
    // watches are quiet, and drop what came.
    await this.quiet();
    await this.collect();
    for (let i = 0; i < this.delivered.length; i++) this.delivered[i] = 0;
    const firstSeq = this.sequence;
    const serverCpu0 = cpuSecondsOf(this.o.serverPid);
    const clientCpu0 = ownCpuSeconds();
    const started = performance.now();
    let writes = 0;
    let refused = 0;
    const inFlight = new Set<Promise<void>>();
    for (let i = 0; i < total; i++) {
      const due = started + i * interval;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      if (inFlight.size >= 64) await Promise.race(inFlight);
      const seq = this.sequence++;
      // One MODIFIED event per write (a create would be three: the status controller adds a
      // finalizer and a condition to each new ServiceCIDR), on objects taken in turn.
      const body = JSON.stringify({ metadata: { labels: { 'watch-bench-seq': String(seq) } } });
      const path = this.o.bare ? `/fanout/${seq}` : `${SC}/${this.label}-${seq % OBJECTS}`;
      const write = request(this.o, writeAgent, 'PATCH', path, body).then((status) => {
        if (status === 200) {
          this.written.set(seq, nowMs());
          writes++;
        } else refused++;
      });
      inFlight.add(write);
      void write.then(() => inFlight.delete(write));
    }
    await Promise.all(inFlight);
    const writeSeconds = (performance.now() - started) / 1000;
    writeAgent.destroy();
    // Let the last events arrive (bounded: 15 s).
    const expected = writes * this.watchers;
    const sum = (): number => this.delivered.reduce((a, b) => a + b, 0);
    for (let t = 0; t < 300 && sum() < expected; t++) await new Promise((r) => setTimeout(r, 50));
    const elapsed = performance.now() - started;
    const serverCores = (cpuSecondsOf(this.o.serverPid) - serverCpu0) / (elapsed / 1000);
    const clientCores = (ownCpuSeconds() - clientCpu0) / (elapsed / 1000);

    const latencies: number[] = [];
    for (const [seq, at] of await this.collect()) {
      if (seq < firstSeq) continue; // an earlier rate's, late
      const wrote = this.written.get(seq);
      // The event can beat the write's own response to this client: that is 0 ms.
      latencies.push(wrote === undefined ? 0 : Math.max(0, at - wrote));
    }
    latencies.sort((a, b) => a - b);
    const pct = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
    return {
      watchers: this.watchers,
      askedPerSecond: writesPerSecond,
      writes,
      refused,
      writesPerSecond: writes / writeSeconds,
      delivered: latencies.length,
      expected,
      deliveredPerSecond: (latencies.length / elapsed) * 1000,
      p50Ms: pct(0.5),
      p99Ms: pct(0.99),
      seconds: elapsed / 1000,
      serverCores,
      clientCores,
    };
  }

  /** Every worker's receipts since the last collect. */
  private async collect(): Promise<Receipt[]> {
    const all: Receipt[] = [];
    for (const w of this.workers) {
      const got = this.reply<{ receipts: Receipt[] }>(w, 'receipts');
      w.postMessage({ type: 'collect' });
      for (const r of (await got).receipts) all.push(r);
    }
    return all;
  }

  /** Waits until no event has arrived for a second (at most 60 s). */
  private async quiet(): Promise<void> {
    const sum = (): number => this.delivered.reduce((a, b) => a + b, 0);
    let last = -1;
    for (let t = 0; t < 60 && sum() !== last; t++) {
      last = sum();
      await new Promise((r) => setTimeout(r, 1000));
    }
  }

  async close(): Promise<void> {
    await Promise.all(
      this.workers.map(async (w) => {
        // Bounded: a worker that failed never answers.
        const done = this.reply(w, 'done').catch(() => undefined);
        w.postMessage({ type: 'stop' });
        await Promise.race([done, new Promise((r) => setTimeout(r, 5000))]);
        await w.terminate();
      }),
    );
  }
}

/**
 * The highest write rate that meets the target, after `first` (already run): doubling while
 * met, halving while not (down to `floor`), then one step at the geometric midpoint of the
 * last met and first missed rates.
 */
export async function highestMeetingRate(clients: WatchClients, first: RateResult, durationMs: number, floor = 1, ceiling = 1000): Promise<{ rate: number | undefined; tried: RateResult[] }> {
  const tried: RateResult[] = [first];
  let met = meetsTarget(first) ? first.askedPerSecond : undefined;
  let missed = met === undefined ? first.askedPerSecond : undefined;
  while (met !== undefined && missed === undefined && met * 2 <= ceiling) {
    const r = await clients.run(met * 2, durationMs);
    tried.push(r);
    if (meetsTarget(r)) met = r.askedPerSecond;
    else missed = r.askedPerSecond;
  }
  while (met === undefined && missed !== undefined && missed / 2 >= floor) {
    const r = await clients.run(missed / 2, durationMs);
    tried.push(r);
    if (meetsTarget(r)) met = r.askedPerSecond;
    else missed = r.askedPerSecond;
  }
  if (met !== undefined && missed !== undefined) {
    const mid = Math.round(Math.sqrt(met * missed) * 10) / 10;
    if (mid > met && mid < missed) {
      const r = await clients.run(mid, durationMs);
      tried.push(r);
      if (meetsTarget(r)) met = mid;
    }
  }
  return { rate: met, tried };
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
  const open = async () => {
    for (let i = 0; i < o.count; i += 200) {
      await Promise.all(
        Array.from(
          { length: Math.min(200, o.count - i) },
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
    }
  };
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
