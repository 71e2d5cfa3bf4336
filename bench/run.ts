// `npm run bench`: HTTPS create/get/list throughput and latency of the real server (a child
// process on loopback, SQLite, durable writes), each beside a baseline measured in the same run:
// get and list beside a bare node:https server answering a same-size body, create beside raw
// better-sqlite3 single-row inserts at the same durability; plus trust-bundle validation cost
// beside Node's own X.509 parse. Prints figures and ratios; targets are ratios, never timings.

import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadResult } from './lib/http-load.js';
import { fetchBody, measureMemory, startApiServer, startBareServer, stop } from './lib/bench-server.js';
import { benchCrud, scidr } from './crud/crud-bench.js';
import { benchStartup } from './crud/startup-bench.js';
import { benchCtbValidation } from './validation/ctb-validation-bench.js';
import { watchSection } from './watch/watch-report.js';
import { benchPatchTypes } from './crud/patch-bench.js';
import { benchListFromCache } from './crud/list-bench.js';
import { benchLabelSelectedList } from './crud/label-list-bench.js';
import { benchOverload, rssOf, type OverloadOptions } from './overload/overload-bench.js';
import { missingToolNote, toolAvailable } from './lib/load-tools.js';
import { overloadReport } from './overload/overload-report.js';
import { benchEtcd } from './etcd/etcd-bench.js';
import { benchSnapshot } from './storage/snapshot-bench.js';
import { benchStore } from './storage/store-bench.js';
import { benchMigrate, migrateReport } from './storage/migrate-bench.js';
import { benchJwtAuthentication } from './auth/authn-bench.js';
import { benchChain } from './auth/chain-bench.js';

const here = dirname(fileURLToPath(import.meta.url));
const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 3000);
/** `npm run bench -- watch list`: only these sections (all when none are named). */
const SECTIONS = ['crud', 'startup', 'patch', 'watch', 'list', 'ctb', 'overload', 'etcd', 'snapshot', 'migrate', 'authn', 'chain', 'store'] as const;
const asked = process.argv.slice(2);
for (const a of asked) if (!(SECTIONS as readonly string[]).includes(a)) throw new Error(`unknown bench section ${a}; sections: ${SECTIONS.join(', ')}`);
const runs = (section: (typeof SECTIONS)[number]): boolean => asked.length === 0 || asked.includes(section);
const SC = '/apis/networking.platform.io/v1/servicecidrs';
/** RBAC for the overload section's ordinary users: ServiceCIDRs, all verbs. */
const OVERLOAD_POLICY = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: cidr-user}
rules: [{verbs: ["*"], apiGroups: [networking.platform.io], resources: [servicecidrs]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: cidr-users}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cidr-user}
subjects: [{kind: User, name: storm}, {kind: User, name: prober}]
`;

// Rows of the sections that still generate load with autocannon (patch, etcd): they need a
// body varying per request, or compare with a raw client in Node, and report ratios only.
const fmt = (r: LoadResult): string =>
  `${r.perSecond.toFixed(0).padStart(7)}/s  p50 ${r.p50Ms.toFixed(2).padStart(6)} ms  p99 ${r.p99Ms.toFixed(2).padStart(7)} ms${r.errors ? `  errors ${r.errors}` : ''}`;

function row(label: string, ours: LoadResult, baseline: number, baselineLabel: string, target?: number): void {
  const ratio = ours.perSecond / baseline;
  const verdict = target === undefined ? '' : ratio >= target ? `  (target ≥ ${target}×: met)` : `  (target ≥ ${target}×: NOT met)`;
  console.log(`${label.padEnd(22)} ${fmt(ours)}   vs ${baselineLabel} ${baseline.toFixed(0)}/s  ratio ${ratio.toFixed(2)}×${verdict}`);
}

async function main(): Promise<void> {
  const server = await startApiServer();
  const headers = { Authorization: `Bearer ${server.token}` };
  const scratch = mkdtempSync(join(tmpdir(), 'platform-bench-raw-'));
  const children: ChildProcess[] = [server.child];
  const watchDataDirs: string[] = [];
  try {
    console.log(`platform-apiserver benchmark (each run ${DURATION_MS} ms; server and load share this machine)\n`);

    if (runs('crud')) await benchCrud({ server, durationMs: DURATION_MS, scratch, children });

    if (runs('startup')) await benchStartup({ children });

    if (runs('etcd')) {
      await benchEtcd({
        durationMs: DURATION_MS,
        startServer: async (args, nodeArgs) => {
          // BENCH_ETCD_PROF=dir: a CPU profile of the server on etcd, written there when it stops.
          const s = await startApiServer(nodeArgs ?? (process.env.BENCH_ETCD_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_ETCD_PROF] : []), args);
          return { ...s, pid: s.child.pid, stop: async () => { await stop(s.child); rmSync(s.dataDir, { recursive: true, force: true }); } };
        },
        request: (s, path, method, body) => fetchBody(s, path, method, body),
        row,
      });
    }

    // The migration rate belongs to the data-lifecycle figures (`snapshot`) and has its own name.
    if (runs('migrate') || runs('snapshot')) console.log(`\n${migrateReport(await benchMigrate())}`);

    if (runs('patch')) {
      console.log('');
      for (const connections of [1, 16]) {
        const rows = await benchPatchTypes({
          url: server.url,
          ca: server.ca,
          token: server.token,
          durationMs: DURATION_MS,
          connections,
          create: async (name) => {
            // A second pass reuses the objects the first created.
            await fetchBody(server, SC, 'POST', JSON.stringify({ ...scidr(name, 200), spec: { cidrs: ['10.200.0.0/24'] } })).catch(() => undefined);
          },
        });
        for (const r of rows) {
          const verdict = r.label === 'server-side apply' ? `  (target: costs ≤ 3× an update, i.e. ratio ≥ 0.33: ${r.ratioToUpdate >= 1 / 3 ? 'met' : 'NOT met'})` : '';
          console.log(`${`${r.label} ${String(connections).padStart(2)} conn`.padEnd(26)} ${fmt(r.result)}   ratio to update ${r.ratioToUpdate.toFixed(2)}×${verdict}`);
        }
      }
    }

    if (runs('watch')) {
      // Watch fan-out, each on a fresh server: memory per watcher is an RSS delta, which a
      // heap already grown by earlier runs would hide. Memory is read after full collections
      // (the memory probe), and V8's young generation, which it sizes by the recent allocation
      // rate (up to 2 × 16 MB), is fixed at its largest size: RSS deltas then measure memory
      // kept, not garbage or the nursery's resizing.
      const probed = ['--expose-gc', '--import', join(here, './lib/memory-probe.js'), '--min-semi-space-size=16', '--max-semi-space-size=16', ...(process.env.BENCH_WATCH_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_WATCH_PROF}`] : [])];
      const fresh = async () => {
        const s = await startApiServer(probed);
        children.push(s.child);
        watchDataDirs.push(s.dataDir);
        return s;
      };
      await watchSection({ fresh, probed, children });
    }

    if (runs('list')) {
      const l = await benchListFromCache();
      console.log(
        `\nlist of ${l.objects} objects (limit 500, ${l.pages} pages, following continue) through the registry and watch cache: ${l.cacheMs.toFixed(1)} ms ` +
          `vs reading the same rows from SQLite (SELECT + JSON.parse) ${l.rawSqliteMs.toFixed(1)} ms: ratio ${l.ratio.toFixed(2)}× (target ≤ 1.0×: ${l.ratio <= 1 ? 'met' : 'NOT met'})`,
      );
      const s = await benchLabelSelectedList();
      console.log(
        `label-selected list of ${s.selected} among ${s.objects} objects (registry + watch cache, in process): with the label index ${s.indexedPerSecond.toFixed(0)} lists/s, ` +
          `the unselected limit=100 page ${s.pagePerSecond.toFixed(0)} lists/s: ratio ${(s.indexedPerSecond / s.pagePerSecond).toFixed(2)}×; ` +
          `without the index (every object's labels matched) ${s.scanPerSecond.toFixed(1)} lists/s (${(s.indexedPerSecond / s.scanPerSecond).toFixed(0)}× slower than indexed); ` +
          `index built on the first selected list in ${s.buildMs.toFixed(0)} ms, ${s.indexBytesPerObject.toFixed(0)} B of heap per object (3 labels each)`,
      );
    }

    if (runs('overload')) {
      // On a fresh server: the storm's objects and memory must not weigh on the other sections.
      // The storm and the probing client are ordinary users (a token file and RBAC), not the
      // kubeconfig's system:masters, whom the limits let through by design: the bench measures
      // what a misbehaving client gets and what a well-behaved one still gets.
      const users = mkdtempSync(join(tmpdir(), 'platform-bench-users-'));
      watchDataDirs.push(users);
      writeFileSync(join(users, 'tokens.csv'), 'storm-token,storm,uid-storm\nprobe-token,prober,uid-prober\n');
      writeFileSync(join(users, 'policy.yaml'), OVERLOAD_POLICY);
      const userArgs = ['--token-auth-file', join(users, 'tokens.csv'), '--authorization-policy-file', join(users, 'policy.yaml')];
      const connections = Number(process.env.BENCH_OVERLOAD_CONNECTIONS ?? 2000);
      const durationMs = Number(process.env.BENCH_OVERLOAD_DURATION_MS ?? 30_000);
      const recoveryMs = Number(process.env.BENCH_OVERLOAD_RECOVERY_MS ?? 10_000);
      // HTTP/1.1 (autocannon) and HTTP/2 (h2load: kubectl's and client-go's protocol), each on a fresh server.
      const protocols = (process.env.BENCH_OVERLOAD_PROTOCOLS ?? 'http/1.1,h2').split(',') as OverloadOptions['protocol'][];
      for (const protocol of protocols) {
        if (protocol === 'h2' && !toolAvailable('h2')) {
          console.log(`\noverload over HTTP/2: ${missingToolNote('h2')}`);
          continue;
        }
        const s = await startApiServer(process.env.BENCH_OVERLOAD_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_OVERLOAD_PROF] : [], userArgs);
        children.push(s.child);
        watchDataDirs.push(s.dataDir);
        await fetchBody(s, SC, 'POST', JSON.stringify(scidr('probe-target', 3)));
        const options: OverloadOptions = { protocol, connections, durationMs, recoveryMs };
        const createBody = JSON.stringify({ ...scidr('', 1), metadata: { generateName: 'storm-' } });
        const r = await benchOverload(
          { url: s.url, ca: s.ca, token: 'storm-token', probeToken: 'probe-token', adminToken: s.token, pid: s.child.pid!, getPath: `${SC}/probe-target`, listPath: SC, createPath: SC, createBody },
          options,
        );
        // The same objects at rest: the storm leaves thousands of objects behind, which any server
        // holding them needs memory for. Restarted on the storm's data, listed once, then measured.
        await stop(s.child);
        const rest = await startApiServer([], userArgs, s.dataDir);
        children.push(rest.child);
        const objects = (JSON.parse((await fetchBody(rest, SC)).toString()) as { items: unknown[] }).items.length;
        await new Promise((resolve) => setTimeout(resolve, 3000));
        r.atRest = { objects, rssBytes: rssOf(rest.child.pid!) };
        await stop(rest.child);
        for (const line of overloadReport(r, options)) console.log(line);
      }
    }

    if (runs('snapshot')) await benchSnapshot({ durationMs: DURATION_MS, children });

    if (runs('store')) await benchStore({ children });

    if (runs('ctb')) {
      const v = await benchCtbValidation();
      console.log(
        `\nClusterTrustBundle validation, 100-certificate bundle: ${v.validateMs.toFixed(2)} ms vs Node X509Certificate parse ${v.nodeParseMs.toFixed(2)} ms: ratio ${v.ratio.toFixed(2)}× (target ≤ 1.5×: ${v.ratio <= 1.5 ? 'met' : 'NOT met'})`,
      );
    }

    if (runs('authn')) {
      const a = await benchJwtAuthentication();
      console.log(
        `\nJWT authentication on a cache miss (RS256, 4 CEL expressions): ${a.authMs.toFixed(3)} ms vs jose jwtVerify ${a.joseMs.toFixed(3)} ms: ratio ${a.ratio.toFixed(2)}× (target ≤ 1.5×: ${a.ratio <= 1.5 ? 'met' : 'NOT met'}); one CEL map over 3 claims ${a.celUs.toFixed(1)} µs`,
      );
    }

    if (runs('chain')) {
      const c = await benchChain();
      console.log(
        `\nfilter chain alone, a GET in process (every filter, request metrics; fake exchange): ${c.chainUs.toFixed(2)} µs per request vs the handler called directly ${c.handlerUs.toFixed(2)} µs: the chain's own ${(c.chainUs - c.handlerUs).toFixed(2)} µs`,
      );
    }
  } finally {
    await Promise.all(children.map(stop));
    rmSync(server.dataDir, { recursive: true, force: true });
    for (const dir of watchDataDirs) rmSync(dir, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
