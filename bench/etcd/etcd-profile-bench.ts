// Part of `npm run bench -- etcd`: what stands under the targets the section misses. A fresh
// server on the same etcd runs under `node --cpu-prof` for one load each (ClusterTrustBundle
// creates, gets by name, 50 connections), and the samples taken during that load are summed by
// where they ran (bench/lib/cpu-profile-summary.ts): the etcd client (grpc-js and Node's HTTP/2
// client), our layers, TLS and the sockets, the garbage collector.

import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatShares, summarizeCpuProfile } from '../lib/cpu-profile-summary.js';
import type { LoadResult } from '../lib/load-tools.js';
import { apiLoad } from './api-load.js';
import { processCpuSeconds, waitForQuiet } from './etcd-bench-meters.js';

interface ProfiledServer {
  url: string;
  ca: string;
  token: string;
  pid?: number;
  stop(): Promise<void>;
}

export interface ProfileBenchDeps {
  durationMs: number;
  startServer(args: string[], nodeArgs?: string[]): Promise<ProfiledServer>;
}

/** Groups whose share counts every sample with one of their frames on the stack. */
const INCLUSIVE = ['@grpc/grpc-js', 'etcd3', 'node:http2', 'src/http', 'src/auth', 'src/registry', 'src/resources', 'src/apimachinery', 'src/storage'];

export async function profileEtcdLoads(deps: ProfileBenchDeps, clientUrl: string, serverArgs: string[], loads: Array<{ label: string; method: 'GET' | 'POST'; path: string; body?: string }>): Promise<void> {
  console.log('');
  console.log('etcd, where the server\'s CPU goes (a fresh server under node --cpu-prof, 50 connections, after a second of warm-up, the samples taken during the load; self: the leaf frame\'s group; with callees: a group anywhere on the stack):');
  for (const load of loads) {
    const dir = mkdtempSync(join(tmpdir(), 'platform-bench-prof-'));
    try {
      const spawned = Date.now();
      const s = await deps.startServer(serverArgs, ['--cpu-prof', '--cpu-prof-dir', dir]);
      let result: LoadResult;
      let from = 0;
      let to = 0;
      let cpu = 0;
      try {
        const run = (durationMs: number) => apiLoad({ url: s.url, ca: s.ca, connections: 50, durationMs, headers: { Authorization: `Bearer ${s.token}` }, method: load.method, path: load.path, ...(load.body === undefined ? {} : { body: load.body }) });
        // A fresh process compiles as it goes: a first second of the same load, not sampled.
        await run(1000);
        await waitForQuiet(clientUrl);
        const before = processCpuSeconds(s.pid);
        from = Date.now() - spawned;
        result = await run(deps.durationMs);
        to = Date.now() - spawned;
        cpu = ((processCpuSeconds(s.pid) - before) * 1e6) / Math.max(1, result.requests);
      } finally {
        await s.stop();
      }
      const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
      if (!file) {
        console.log(`  ${load.label}: no profile written`);
        continue;
      }
      const summary = summarizeCpuProfile(join(dir, file), { fromMs: from, toMs: to }, INCLUSIVE);
      console.log(`  ${load.label}: ${result.perSecond.toFixed(0)}/s, server ${cpu.toFixed(0)} µs of CPU each (profiled, so a little more than unprofiled); ${summary.busyMs.toFixed(0)} ms of busy samples`);
      console.log(`    self:         ${formatShares(summary.self)}`);
      console.log(`    with callees: ${formatShares(summary.inclusive, INCLUSIVE.length)}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
