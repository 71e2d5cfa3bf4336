// Load over HTTPS with autocannon (a widely used, low-overhead load generator), so that on a
// 2-core machine the client takes as little CPU from the server as possible. Closed loop:
// N keep-alive connections, one request in flight on each, for a fixed time.

import autocannon from 'autocannon';
import type { LoadResult } from './load-tools.js';

export interface LoadOptions {
  url: string;
  ca: string;
  connections: number;
  durationMs: number;
  headers?: Record<string, string>;
  method: string;
  path: string;
  /** A body; `[<id>]` in it is replaced by a fresh number per request (so every write changes something). */
  body?: string;
  /** `[<slot>]` in the path and body cycles through 0 … slots-1 (spreads writes over objects). */
  slots?: number;
}

const ID = '[<id>]';
const SLOT = '[<slot>]';

// The same figures as the wrk and h2load runs report (load-tools.ts).
export type { LoadResult } from './load-tools.js';

export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  let next = 0;
  const body = opts.body;
  // autocannon's own idReplacement sends nothing here, so vary the body per request ourselves.
  const varies = !!body?.includes(ID) || opts.path.includes(SLOT);
  const fill = (text: string, n: number) => text.replaceAll(ID, String(n)).replaceAll(SLOT, String(n % (opts.slots ?? 1)));
  const requests = varies
    ? [{ setupRequest: (req: autocannon.Request) => { const n = ++next; return { ...req, path: fill(opts.path, n), ...(body ? { body: fill(body, n) } : {}) }; } }]
    : undefined;
  const result = await autocannon({
    url: `${opts.url}${opts.path}`,
    method: opts.method as 'GET',
    connections: opts.connections,
    pipelining: 1,
    duration: opts.durationMs / 1000,
    headers: { 'content-type': 'application/json', ...opts.headers },
    body,
    ...(requests ? { requests } : {}),
    tlsOptions: { ca: opts.ca },
  });
  const ok = result['2xx'];
  return {
    requests: ok,
    errors: result.non2xx + result.errors + result.timeouts,
    perSecond: ok / (opts.durationMs / 1000),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
  };
}
