// Watch fan-out over HTTPS: N watchers on one server (a child process), writes at a fixed rate;
// reports the write rate achieved, delivered events/s, p99 from a write's response to each
// watcher receiving it, and the server's resident memory per idle watcher (RSS delta / N).
// Called from bench/run.ts, with many watchers at a low rate and few at a high rate.

import https from 'node:https';
import { readFileSync } from 'node:fs';

export interface WatchBenchOptions {
  url: string;
  ca: string;
  token: string;
  serverPid: number;
  watchers: number;
  writesPerSecond: number;
  durationMs: number;
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
  idleBytesPerWatcher: number;
}

const SC = '/apis/networking.platform.io/v1/servicecidrs';

const rssBytes = (pid: number): number => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
};

export async function benchWatchFanOut(o: WatchBenchOptions): Promise<WatchBenchResult> {
  const url = new URL(o.url);
  // A label per run, so that one run's watchers never see another run's objects.
  const label = `watch-${o.watchers}-${o.writesPerSecond}`;
  const agent = new https.Agent({ ca: o.ca, keepAlive: false, maxSockets: Infinity });
  const headers = { Authorization: `Bearer ${o.token}` };
  const written = new Map<string, number>();
  const latencies: number[] = [];
  let delivered = 0;
  const requests: ReturnType<typeof https.request>[] = [];

  const rssBefore = rssBytes(o.serverPid);
  const opened = await Promise.all(
    Array.from(
      { length: o.watchers },
      () =>
        new Promise<void>((resolve, reject) => {
          const req = https.request({ agent, host: url.hostname, port: url.port, path: `${SC}?watch=true&resourceVersion=0&labelSelector=bench%3D${label}`, headers }, (res) => {
            let buf = '';
            res.on('data', (c: Buffer) => {
              buf += c.toString();
              let nl: number;
              while ((nl = buf.indexOf('\n')) >= 0) {
                const line = buf.slice(0, nl);
                buf = buf.slice(nl + 1);
                const name = /"name":"(watch-bench-\d+-\d+)"/.exec(line)?.[1];
                if (!name) continue;
                // The event can beat the write's own response to this client: that is 0 ms.
                const at = written.get(name);
                latencies.push(at === undefined ? 0 : performance.now() - at);
                delivered++;
              }
            });
            resolve();
          });
          req.on('error', reject);
          req.setTimeout(30_000, () => req.destroy(new Error('watch did not answer within 30 s')));
          req.end();
          requests.push(req);
        }),
    ),
  );
  void opened;
  await new Promise((r) => setTimeout(r, 1000));
  const idleBytesPerWatcher = Math.max(0, rssBytes(o.serverPid) - rssBefore) / o.watchers;

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
    const name = `watch-bench-${o.writesPerSecond}-${i}`;
    const body = JSON.stringify({ metadata: { name, labels: { bench: label } }, spec: { cidrs: ['10.0.0.0/8'] } });
    const write = new Promise<void>((resolve) => {
      const req = https.request(
        { agent: writeAgent, host: url.hostname, port: url.port, method: 'POST', path: SC, headers: { ...headers, 'Content-Type': 'application/json', 'Content-Length': String(body.length) } },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode === 201) {
              written.set(name, performance.now());
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
  for (let t = 0; t < 100 && delivered < expected; t++) await new Promise((r) => setTimeout(r, 50));
  const elapsed = performance.now() - started;
  for (const req of requests) req.destroy();
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const pct = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { watchers: o.watchers, writes, writesPerSecond: writes / writeSeconds, delivered, deliveredPerSecond: (delivered / elapsed) * 1000, p50Ms: pct(0.5), p99Ms: pct(0.99), idleBytesPerWatcher };
}
