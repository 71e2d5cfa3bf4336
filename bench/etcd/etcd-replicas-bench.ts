// The last part of `npm run bench -- etcd`: stateless replicas sharing one etcd. Aggregate
// ClusterTrustBundle creates and gets by name through one replica and through two (each its own
// process on the same etcd and prefix), with the same 50 connections either way (two load
// generators of 25, both on the one replica or one per replica), and the cores each process kept
// busy meanwhile. On one machine the replicas, etcd and the load generators share its cores:
// what a second replica can add is what the first left idle.

import { cpus } from 'node:os';
import type { LoadResult } from '../lib/load-tools.js';
import { apiLoad } from './api-load.js';
import { etcdCpuSeconds, machineBusySeconds, ownCpuSeconds, processCpuSeconds, waitForQuiet } from './etcd-bench-meters.js';

/** A running replica (etcd-bench.ts's server, which this file may not import back). */
interface EtcdBenchServer {
  url: string;
  ca: string;
  token: string;
  pid?: number;
}

export interface ReplicaBenchDeps {
  durationMs: number;
  startServer(args: string[]): Promise<EtcdBenchServer & { stop(): Promise<void> }>;
}

const CTB = '/apis/certificates.platform.io/v1beta1/clustertrustbundles';
const PER_GENERATOR = 25;

interface Busy {
  /** Cores each process kept busy over the run. */
  servers: number[];
  etcd: number;
  loadGenerators: number;
  /** Every process on the machine, these included. */
  machine: number;
}

/** Runs one load per target at once; the aggregate and the cores each process used. */
async function together(clientUrl: string, servers: EtcdBenchServer[], targets: EtcdBenchServer[], run: (s: EtcdBenchServer) => Promise<LoadResult>): Promise<{ perSecond: number; p99Ms: number; errors: number; busy: Busy }> {
  const cpu = async () => ({ servers: servers.map((s) => processCpuSeconds(s.pid)), etcd: await etcdCpuSeconds(clientUrl), own: ownCpuSeconds(), machine: machineBusySeconds() });
  const before = await cpu();
  const started = Date.now();
  const results = await Promise.all(targets.map(run));
  const seconds = (Date.now() - started) / 1000;
  const after = await cpu();
  return {
    perSecond: results.reduce((n, r) => n + r.perSecond, 0),
    p99Ms: Math.max(...results.map((r) => r.p99Ms)),
    errors: results.reduce((n, r) => n + r.errors, 0),
    busy: {
      servers: servers.map((_, i) => (after.servers[i]! - before.servers[i]!) / seconds),
      etcd: (after.etcd - before.etcd) / seconds,
      loadGenerators: (after.own - before.own) / seconds,
      machine: (after.machine - before.machine) / seconds,
    },
  };
}

const cores = (b: Busy): string => {
  const total = b.servers.reduce((a, c) => a + c, 0) + b.etcd + b.loadGenerators;
  return `cores busy: ${b.servers.map((c, i) => `replica ${i + 1} ${c.toFixed(2)}`).join(', ')}, etcd ${b.etcd.toFixed(2)}, load generators ${b.loadGenerators.toFixed(2)}: ${total.toFixed(2)}; the whole machine ${b.machine.toFixed(2)} of ${cpus().length}`;
};

export async function benchEtcdReplicas(deps: ReplicaBenchDeps, clientUrl: string, first: EtcdBenchServer, serverArgs: string[], getPath: string): Promise<void> {
  const second = await deps.startServer(serverArgs);
  try {
    const servers = [first, second];
    const ctbBody = JSON.stringify({ apiVersion: 'certificates.platform.io/v1beta1', kind: 'ClusterTrustBundle', metadata: { generateName: 'etcd-replica-' }, spec: { trustBundle: first.ca } });
    const load = (method: 'GET' | 'POST', path: string, body?: string) => (s: EtcdBenchServer) =>
      apiLoad({ url: s.url, ca: s.ca, connections: PER_GENERATOR, durationMs: deps.durationMs, headers: { Authorization: `Bearer ${s.token}` }, method, path, ...(body === undefined ? {} : { body }) });
    console.log('');
    console.log(`etcd, stateless replicas on one etcd: aggregate rate of ${2 * PER_GENERATOR} connections (two load generators of ${PER_GENERATOR}), all on replica 1, then ${PER_GENERATOR} on each of 2 replicas`);
    for (const [label, run] of [
      ['ClusterTrustBundle create', load('POST', CTB, ctbBody)],
      ['get by name (consistent: one etcd range each)', load('GET', getPath)],
    ] as const) {
      await waitForQuiet(clientUrl);
      const one = await together(clientUrl, servers, [first, first], run);
      await waitForQuiet(clientUrl);
      const two = await together(clientUrl, servers, [first, second], run);
      const errs = (n: number) => (n ? `, errors ${n}` : '');
      console.log(`  ${label}: 1 replica ${one.perSecond.toFixed(0)}/s (p99 ${one.p99Ms.toFixed(1)} ms${errs(one.errors)}); 2 replicas ${two.perSecond.toFixed(0)}/s (p99 ${two.p99Ms.toFixed(1)} ms${errs(two.errors)}): ${(two.perSecond / one.perSecond).toFixed(2)}× from 1 to 2`);
      console.log(`    1 replica  ${cores(one.busy)}`);
      console.log(`    2 replicas ${cores(two.busy)}`);
    }
  } finally {
    await second.stop();
  }
}
