// `npm run cluster`: a local 3-member etcd and two API server replicas on it, for trying the
// multi-replica set-up by hand. Everything lives in a temp dir (or CLUSTER_DIR) and stops on
// Ctrl-C. Each replica has its own data dir seeded with the same CA, serving certificate and
// admin token (the files an operator would hand every replica), so one kubeconfig reaches either.

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

/** Stops whatever was started (set once etcd runs), for a failure midway. */
let abort: ((code: number) => Promise<void>) | undefined;

async function main(): Promise<void> {
  if (!etcdBinary()) throw new Error('etcd is not installed: apt-get install etcd-server (or set ETCD_BIN)');
  const own = !process.env.CLUSTER_DIR;
  const dir = process.env.CLUSTER_DIR ?? mkdtempSync(join(tmpdir(), 'platform-cluster-'));
  mkdirSync(dir, { recursive: true });
  const etcd = await startEtcdCluster({ size: 3, dir: join(dir, 'etcd') });
  const servers: ChildProcess[] = [];
  let stopping = false;
  const stop = async (code: number): Promise<void> => {
    if (stopping) return;
    stopping = true;
    process.stderr.write('\nstopping replicas and etcd...\n');
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => (s.exitCode !== null ? resolve() : (s.once('exit', () => resolve()), s.kill('SIGTERM'))))));
    await etcd.stop();
    if (own) rmSync(dir, { recursive: true, force: true });
    process.exit(code);
  };
  abort = stop;
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));

  const seed = join(dir, 'seed');
  mkdirSync(seed, { recursive: true });
  const certs = await ensureServingCertificates({ dir: seed, hosts: ['127.0.0.1'] });
  const token = ensureAdminToken(seed);
  const urls: string[] = [];
  for (let i = 0; i < REPLICAS; i++) {
    const dataDir = join(dir, `replica-${i}`);
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    for (const f of SEED_FILES) copyFileSync(join(seed, f), join(dataDir, f));
    const port = await freePort();
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(repo, 'src', 'main.ts'), '--data-dir', dataDir, '--secure-port', String(port), '--storage-backend', 'etcd', '--etcd-servers', etcd.endpoints, '--log-level', 'warn'],
      { cwd: repo, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    servers.push(child);
    child.once('exit', (code) => {
      if (!stopping) {
        process.stderr.write(`replica ${i} exited with ${code}\n`);
        void stop(1);
      }
    });
    await new Promise<void>((resolve) => {
      let out = '';
      child.stdout!.on('data', (c: Buffer) => {
        out += c.toString();
        if (out.includes('ready at')) resolve();
      });
    });
    urls.push(`https://127.0.0.1:${port}`);
  }
  // One kubeconfig per replica, and one with a context for each.
  const kubeconfigs = urls.map((url, i) => {
    const path = join(dir, `replica-${i}.kubeconfig`);
    writeAdminKubeconfig({ path, server: url, caCertPem: certs.caCertPem, token });
    return path;
  });
  writeFileSync(join(dir, 'etcd-endpoints'), `${etcd.endpoints}\n`);
  process.stdout.write(
    [
      '',
      `etcd (3 members): ${etcd.endpoints}`,
      ...urls.map((u, i) => `replica ${i}: ${u}   KUBECONFIG=${kubeconfigs[i]}`),
      '',
      'Try:',
      `  KUBECONFIG=${kubeconfigs[0]} kubectl create -f - <<<'{"apiVersion":"networking.platform.io/v1","kind":"ServiceCIDR","metadata":{"name":"demo"},"spec":{"cidrs":["10.96.0.0/16"]}}'`,
      `  KUBECONFIG=${kubeconfigs[1]} kubectl get servicecidrs demo -o yaml`,
      `  KUBECONFIG=${kubeconfigs[1]} kubectl get servicecidrs --watch`,
      '',
      `Files under ${dir}${own ? ' (removed on exit)' : ''}. Ctrl-C stops everything.`,
      '',
    ].join('\n'),
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`cluster: ${err instanceof Error ? err.message : String(err)}\n`);
  if (abort) void abort(1);
  else process.exit(1);
});
