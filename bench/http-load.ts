// A closed-loop HTTPS load generator: N keep-alive connections, each sending its next request
// as soon as the previous answer arrives, for a fixed time. Reports throughput and latency.

import https from 'node:https';

export interface LoadOptions {
  url: string;
  ca: string;
  connections: number;
  durationMs: number;
  headers?: Record<string, string>;
  /** Builds request i (method, path, body); called once per request. */
  request: (i: number) => { method: string; path: string; body?: string };
  /** Status codes counted as success. */
  okStatus?: readonly number[];
}

export interface LoadResult {
  requests: number;
  errors: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  const agent = new https.Agent({ keepAlive: true, maxSockets: opts.connections, ca: opts.ca });
  const base = new URL(opts.url);
  const ok = opts.okStatus ?? [200, 201];
  const latencies: number[] = [];
  let errors = 0;
  let counter = 0;
  const started = performance.now();
  const deadline = started + opts.durationMs;

  const one = (i: number): Promise<boolean> =>
    new Promise((resolve) => {
      const { method, path, body } = opts.request(i);
      const req = https.request(
        { agent, host: base.hostname, port: base.port, method, path, headers: { 'Content-Type': 'application/json', ...opts.headers } },
        (res) => {
          res.on('data', () => {});
          res.on('end', () => resolve(ok.includes(res.statusCode ?? 0)));
        },
      );
      req.on('error', () => resolve(false));
      req.end(body);
    });

  const loop = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      const success = await one(counter++);
      latencies.push(performance.now() - t0);
      if (!success) errors++;
    }
  };
  await Promise.all(Array.from({ length: opts.connections }, loop));
  const elapsed = performance.now() - started;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const pct = (q: number): number => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { requests: latencies.length, errors, perSecond: (latencies.length / elapsed) * 1000, p50Ms: pct(0.5), p99Ms: pct(0.99) };
}
