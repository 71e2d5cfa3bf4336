// The API loads of the etcd sections. wrk (C, a process of its own, one thread) when it is
// installed, as the crud section loads: on 2 shared cores the load generator then takes as little
// CPU from the server and etcd as it can, and its CPU is counted apart from this process's raw
// etcd client. Without wrk, autocannon in this process, said once and loudly.

import type { LoadOptions, LoadResult } from '../lib/http-load.js';
import { runLoad as autocannonLoad } from '../lib/http-load.js';
import { missingToolNote, runWrk, toolAvailable } from '../lib/load-tools.js';

let warned = false;

/** Which load generator `apiLoad` uses here. */
export const apiLoadTool = (): string => (toolAvailable('http/1.1') ? 'wrk (HTTP/1.1, one thread)' : 'autocannon (in this process)');

export async function apiLoad(opts: LoadOptions & { method: 'GET' | 'POST' }): Promise<LoadResult> {
  if (toolAvailable('http/1.1')) {
    return runWrk({ url: opts.url, path: opts.path, method: opts.method, headers: opts.headers, connections: opts.connections, durationMs: opts.durationMs, ...(opts.body === undefined ? {} : { body: opts.body }) });
  }
  if (!warned) {
    warned = true;
    console.log(`${missingToolNote('http/1.1')}: the etcd loads run on autocannon in this process instead, which shares the cores with the raw client's figures`);
  }
  return autocannonLoad(opts);
}
