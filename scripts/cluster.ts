// `npm run cluster`: a local 3-member etcd and two API server replicas on it, for trying the
// multi-replica set-up by hand. Everything lives in a temp dir (or CLUSTER_DIR) and stops on
// Ctrl-C. Each replica has its own data dir seeded with the same CA, serving certificate and
// admin token (the files an operator would hand every replica), so one kubeconfig reaches either.
// Each step says what it does on stderr as it starts and when it is done; the summary goes to
// stdout. SIGINT or SIGTERM at any step (to this process, or to npm's whole process group, as
// Ctrl-C sends it) stops what was started and removes the temp dir.

import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureServingCertificates } from '../src/config/certificates.js';
import { ensureAdminToken } from '../src/config/admin-token.js';
import { writeAdminKubeconfig } from '../src/config/kubeconfig.js';
import { etcdBinary, freePort, startEtcdCluster } from '../test/support/etcd-process.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const SEED_FILES = ['ca.crt', 'ca.key', 'apiserver.crt', 'apiserver.key', 'admin.token'];
const REPLICAS = Number(process.env.CLUSTER_REPLICAS ?? 2);
/** A replica loads its TypeScript (tsx) and connects to etcd: seconds, more on a busy machine. */
const REPLICA_READY_TIMEOUT_MS = 120_000;

const progress = (line: string): void => void process.stderr.write(`cluster: ${line}\n`);
const since = (start: number): string => `${((performance.now() - start) / 1000).toFixed(1)} s`;

/** What was started, undone in reverse order by stop(). */
const undo: (() => Promise<void> | void)[] = [];
/** The step under way: stop() lets it settle first, so nothing it starts is left behind. */
let step: Promise<unknown> = Promise.resolve();
let stopping = false;
/**
 * Ctrl-C reaches the whole process group, the replicas too, which then stop by themselves: a
 * second signal from us would make them exit at once. So after SIGINT they get a moment first.
 */
let replicaGraceMs = 0;

async function stop(code: number, signal?: NodeJS.Signals): Promise<void> {
  if (stopping) return;
  stopping = true;
  if (signal === 'SIGINT') replicaGraceMs = 10_000;
  progress('stopping replicas and etcd...');
  await step.catch(() => undefined);
  for (const u of undo.splice(0).reverse()) {
    try {
      await u();
    } catch (err) {
      progress(`while stopping: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  progress('stopped');
  process.exit(code);
}
process.on('SIGINT', () => void stop(0, 'SIGINT'));
process.on('SIGTERM', () => void stop(0, 'SIGTERM'));

/** Runs one step; a stop asked for meanwhile ends the script once the step settled. */
async function run<T>(work: Promise<T>): Promise<T> {
  step = work;
  const value = await work;
  if (stopping) await new Promise(() => undefined);
  return value;
}

/**
 * Stops a replica and waits for it to exit (one already gone, by a signal too, is done): SIGTERM
 * once it had the grace to stop by itself, SIGKILL 15 s later.
 */
function stopReplica(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const term = setTimeout(() => child.kill('SIGTERM'), replicaGraceMs);
    const kill = setTimeout(() => child.kill('SIGKILL'), replicaGraceMs + 15_000);
    child.once('exit', () => {
      clearTimeout(term);
      clearTimeout(kill);
      resolve();
    });
  });
}

/** The replicas started so far: stopped together. */
const replicas: ChildProcess[] = [];

/** Starts one replica; resolves once it printed its ready line. */
function startReplica(i: number, dataDir: string, port: number, etcdEndpoints: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(repo, 'src', 'main.ts'), '--data-dir', dataDir, '--secure-port', String(port), '--storage-backend', 'etcd', '--etcd-servers', etcdEndpoints, '--log-level', 'warn'],
    { cwd: repo, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  replicas.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`replica ${i} was not ready within ${REPLICA_READY_TIMEOUT_MS / 1000} s`)), REPLICA_READY_TIMEOUT_MS);
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('ready at')) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`replica ${i} exited (${signal ?? code}) before it was ready`));
      if (!stopping) {
        progress(`replica ${i} exited (${signal ?? code})`);
        void stop(1);
      }
    });
  });
}

async function main(): Promise<void> {
  if (!etcdBinary()) throw new Error('etcd is not installed: apt-get install etcd-server (or set ETCD_BIN)');
  const given = process.env.CLUSTER_DIR || undefined;
  const own = !given;
  const dir = given ?? mkdtempSync(join(tmpdir(), 'platform-cluster-'));
  mkdirSync(dir, { recursive: true });
  if (own) undo.push(() => rmSync(dir, { recursive: true, force: true }));
  progress(`files under ${dir}${own ? ' (removed on exit)' : ''}`);

  let start = performance.now();
  progress(`etcd: starting 3 members in ${join(dir, 'etcd')}...`);
  const etcd = await run(
    startEtcdCluster({ size: 3, dir: join(dir, 'etcd') }).then((started) => {
      undo.push(() => started.stop());
      return started;
    }),
  );
  progress(`etcd: 3 members healthy at ${etcd.endpoints} (${since(start)})`);

  const seed = join(dir, 'seed');
  mkdirSync(seed, { recursive: true });
  const certs = await run(ensureServingCertificates({ dir: seed, hosts: ['127.0.0.1'] }));
  const token = ensureAdminToken(seed);
  progress('certificates: one CA, serving certificate and admin token for every replica');

  const ports = await run(Promise.all(Array.from({ length: REPLICAS }, () => freePort())));
  const urls = ports.map((p) => `https://127.0.0.1:${p}`);
  start = performance.now();
  progress(`replicas: starting ${REPLICAS} (${urls.join(', ')})...`);
  undo.push(async () => void (await Promise.all(replicas.map(stopReplica))));
  await run(
    Promise.all(
      ports.map(async (port, i) => {
        const dataDir = join(dir, `replica-${i}`);
        mkdirSync(dataDir, { recursive: true, mode: 0o700 });
        for (const f of SEED_FILES) copyFileSync(join(seed, f), join(dataDir, f));
        await startReplica(i, dataDir, port, etcd.endpoints);
        progress(`replica ${i} ready at ${urls[i]} (${since(start)})`);
      }),
    ),
  );
  // One kubeconfig per replica.
  const kubeconfigs = urls.map((url, i) => {
    const path = join(dir, `replica-${i}.kubeconfig`);
    writeAdminKubeconfig({ path, server: url, caCertPem: certs.caCertPem, token });
    return path;
  });
  writeFileSync(join(dir, 'etcd-endpoints'), `${etcd.endpoints}\n`);
  const other = kubeconfigs[1] ?? kubeconfigs[0];
  process.stdout.write(
    [
      '',
      `etcd (3 members): ${etcd.endpoints}`,
      ...urls.map((u, i) => `replica ${i}: ${u}   KUBECONFIG=${kubeconfigs[i]}`),
      '',
      'Try:',
      `  KUBECONFIG=${kubeconfigs[0]} kubectl create -f - <<<'{"apiVersion":"networking.platform.io/v1","kind":"ServiceCIDR","metadata":{"name":"demo"},"spec":{"cidrs":["10.96.0.0/16"]}}'`,
      `  KUBECONFIG=${other} kubectl get servicecidrs demo -o yaml`,
      `  KUBECONFIG=${other} kubectl get servicecidrs --watch`,
      '',
      `Files under ${dir}${own ? ' (removed on exit)' : ''}. Ctrl-C stops everything.`,
      '',
    ].join('\n'),
  );
}

main().catch((err: unknown) => {
  if (stopping) return;
  progress(`failed: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
  void stop(1);
});
