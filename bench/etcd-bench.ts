// `npm run bench -- etcd`: the server on etcd. Create, get and list over HTTPS at 1 and 50
// connections, each beside the matching raw etcd operation (put, one-key range, 100-key range)
// through the same etcd3 client library in the same run on the same etcd, printed as ratios.
// Then etcd's requests per API read, counted by etcd itself (its /metrics gRPC counters)
// around a batch of sequential reads: a consistent list should cost one cheap revision read,
// a resourceVersion=0 list none, a get one range.

import { Etcd3 } from 'etcd3';
import type { LoadResult } from './http-load.js';
import { runLoad } from './http-load.js';
import { startEtcdCluster } from '../test/support/etcd-process.js';

export interface EtcdBenchServer {
  url: string;
  ca: string;
  token: string;
}

export interface EtcdBenchDeps {
  durationMs: number;
  /** Starts the API server with these extra flags. */
  startServer(args: string[]): Promise<EtcdBenchServer & { stop(): Promise<void> }>;
  /** One request through the server (throws on a non-2xx answer). */
  request(server: EtcdBenchServer, path: string, method?: string, body?: string): Promise<Buffer>;
  row(label: string, ours: LoadResult, baseline: number, baselineLabel: string, target?: number): void;
}

const SC = '/apis/networking.platform.io/v1/servicecidrs';
const CONNECTIONS = [1, 50];

/** Runs `op` on `concurrency` loops for `durationMs`; operations per second. */
async function rawRate(concurrency: number, durationMs: number, op: (n: number) => Promise<unknown>): Promise<number> {
  const deadline = Date.now() + durationMs;
  let done = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < deadline) {
        await op(next++);
        done++;
      }
    }),
  );
  return done / (durationMs / 1000);
}

/** etcd's count of gRPC calls handled, by method (from its Prometheus metrics). */
async function etcdCalls(clientUrl: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${clientUrl}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^grpc_server_handled_total\{([^}]*)\} (\S+)$/gm)) {
    const method = /grpc_method="([^"]+)"/.exec(m[1]!)?.[1];
    if (method) out[method] = (out[method] ?? 0) + Number(m[2]);
  }
  return out;
}

const WRITES = ['Txn', 'Put', 'DeleteRange'];
const sum = (calls: Record<string, number>, methods?: string[]): number => Object.entries(calls).reduce((n, [m, v]) => (methods && !methods.includes(m) ? n : n + v), 0);

/**
 * Waits until etcd has handled no write for `quietMs` (at most `maxMs`): the creates above leave
 * the controllers settling thousands of objects (a status write each, with its reads), and a
 * count taken meanwhile is theirs, not the reads'. Returns the writes seen while waiting.
 */
async function waitForQuiet(clientUrl: string, quietMs = 2000, maxMs = 120_000): Promise<{ waitedMs: number; writes: number; quiet: boolean }> {
  const start = Date.now();
  const first = sum(await etcdCalls(clientUrl), WRITES);
  let last = first;
  let lastChange = Date.now();
  while (Date.now() - start < maxMs) {
    await new Promise((r) => setTimeout(r, 250));
    const now = sum(await etcdCalls(clientUrl), WRITES);
    if (now !== last) [last, lastChange] = [now, Date.now()];
    else if (Date.now() - lastChange >= quietMs) return { waitedMs: Date.now() - start, writes: last - first, quiet: true };
  }
  return { waitedMs: Date.now() - start, writes: last - first, quiet: false };
}

export async function benchEtcd(deps: EtcdBenchDeps): Promise<void> {
  const etcd = await startEtcdCluster();
  const clientUrl = etcd.members[0]!.clientUrl;
  const client = new Etcd3({ hosts: [clientUrl] });
  let server: (EtcdBenchServer & { stop(): Promise<void> }) | undefined;
  try {
    server = await deps.startServer(['--storage-backend', 'etcd', '--etcd-servers', clientUrl, '--etcd-prefix', '/bench']);
    const headers = { Authorization: `Bearer ${server.token}` };
    const sample = JSON.stringify({ apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'etcd-bench-get', labels: { bench: 'yes' } }, spec: { cidrs: ['10.1.2.0/24'] } });
    await deps.request(server, SC, 'POST', sample);
    const stored = await client.get('/bench/networking.platform.io/servicecidrs/etcd-bench-get').buffer();
    const value = stored ?? Buffer.from(sample);
    // Raw keys of the same size as the stored objects, under their own prefix.
    for (let i = 0; i < 100; i++) await client.put(`/raw/list/${String(i).padStart(3, '0')}`).value(value);
    console.log(`\netcd (one member on this machine; raw = the etcd3 client in this process, ${value.length} B values)`);

    const createBody = JSON.stringify({ ...JSON.parse(sample), metadata: { generateName: 'etcd-bench-', labels: { bench: 'yes' } } });
    for (const c of CONNECTIONS) {
      const raw = await rawRate(c, deps.durationMs, (n) => client.put(`/raw/put/${c}/${n}`).value(value).exec());
      const ours = await runLoad({ url: server.url, ca: server.ca, connections: c, durationMs: deps.durationMs, headers, method: 'POST', path: SC, body: createBody });
      deps.row(`etcd create ${String(c).padStart(2)} conn`, ours, raw, 'raw put', c === 50 ? 0.6 : undefined);
    }
    const N = 200;
    const perRead = async (path: string): Promise<string> => {
      const before = await etcdCalls(clientUrl);
      for (let i = 0; i < N; i++) await deps.request(server!, path);
      const after = await etcdCalls(clientUrl);
      const delta = Object.entries(after)
        .map(([m, v]) => [m, (v - (before[m] ?? 0)) / N] as const)
        .filter(([, v]) => v > 0)
        // the metrics requests themselves are HTTP, not gRPC: nothing to subtract
        .map(([m, v]) => `${m} ${v.toFixed(2)}`);
      return delta.length ? delta.join(', ') : 'none';
    };
    // The count of a get taken at once after the creates: it holds whatever the controllers are
    // still writing for them (the status of each new ServiceCIDR), as the figures before did.
    const unsettled = await perRead(`${SC}/etcd-bench-get`);
    for (const c of CONNECTIONS) {
      const raw = await rawRate(c, deps.durationMs, () => client.kv.range({ key: Buffer.from('/bench/networking.platform.io/servicecidrs/etcd-bench-get') }));
      const ours = await runLoad({ url: server.url, ca: server.ca, connections: c, durationMs: deps.durationMs, headers, method: 'GET', path: `${SC}/etcd-bench-get` });
      deps.row(`etcd get    ${String(c).padStart(2)} conn`, ours, raw, 'raw range 1 key', undefined);
    }
    for (const c of CONNECTIONS) {
      const raw = await rawRate(c, deps.durationMs, () => client.kv.range({ key: Buffer.from('/raw/list/'), range_end: Buffer.from('/raw/list0'), limit: 100 }));
      const ours = await runLoad({ url: server.url, ca: server.ca, connections: c, durationMs: deps.durationMs, headers, method: 'GET', path: `${SC}?limit=100` });
      deps.row(`etcd list100 ${String(c).padStart(2)} conn`, ours, raw, 'raw range 100', undefined);
    }

    // etcd requests per API read, as etcd counts them, once the controllers have settled the
    // creates (counted before that, the reads' figures held the status writes and their reads).
    const settled = await waitForQuiet(clientUrl);
    // What etcd handles with no API request at all (the server's health probe: a range every 3 s).
    const idleBefore = await etcdCalls(clientUrl);
    const idleStart = Date.now();
    await new Promise((r) => setTimeout(r, 3000));
    const idlePerSecond = ((sum(await etcdCalls(clientUrl)) - sum(idleBefore)) * 1000) / (Date.now() - idleStart);
    console.log('');
    console.log(
      `etcd requests per API read (${N} sequential reads, counted by etcd, after ${(settled.waitedMs / 1000).toFixed(1)} s waiting for the controllers to settle the creates: ` +
        `${settled.writes} writes meanwhile${settled.quiet ? '' : ', NOT quiet after 120 s: the counts include background writes'}; background when idle ${idlePerSecond.toFixed(2)} requests/s):`,
    );
    console.log(`  get by name                          ${await perRead(`${SC}/etcd-bench-get`)}   (kube: one range)`);
    console.log(`  get by name, counted at once after the creates (controllers settling): ${unsettled}`);
    console.log(`  get by name, resourceVersion=0       ${await perRead(`${SC}/etcd-bench-get?resourceVersion=0`)}`);
    console.log(`  list (consistent, from the cache)    ${await perRead(`${SC}?limit=100`)}   (target: one revision read)`);
    console.log(`  list resourceVersion=0               ${await perRead(`${SC}?limit=100&resourceVersion=0`)}   (target: none)`);
  } finally {
    await server?.stop();
    client.close();
    await etcd.stop();
  }
}
