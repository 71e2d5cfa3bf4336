// Real etcd processes for tests, the cluster script and the benchmark: single members or a
// cluster of N, each on free loopback ports in a temporary directory, started and stopped by
// whoever asked for them (never left running). Which etcd: $ETCD_BIN, else `etcd` on PATH.

import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { promisify } from 'node:util';
import http from 'node:http';
import https from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findExecutable, requireTool } from '../e2e/require-tool.js';

export interface EtcdMember {
  name: string;
  /** The member's client URL (http://127.0.0.1:port). */
  clientUrl: string;
  peerUrl: string;
  dataDir: string;
  running(): boolean;
  /** Stops the member (SIGTERM, then SIGKILL after 5 s); its data stays for start(). */
  stop(): Promise<void>;
  /** Kills the member at once (SIGKILL: no clean shutdown); its data stays for start(). */
  kill(): Promise<void>;
  /** Starts a stopped member again on the same ports and data. */
  start(): Promise<void>;
  /** SIGSTOP (the process freezes, its sockets stay open) and SIGCONT. */
  pause(): void;
  unpause(): void;
  /**
   * Replaces the (stopped) member's data with a snapshot (`etcdctl snapshot restore`, this
   * member's name, peers and token): the member then starts with the snapshot's history.
   */
  restore(snapshotFile: string): Promise<void>;
  log(): string;
}

/** Runs etcdctl (v3 API) against `endpoints`, with `input` on its stdin; resolves with its stdout. Bounded to 30 s. */
export function etcdctl(endpoints: string, args: string[], input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.env.ETCDCTL_BIN ?? 'etcdctl',
      ['--endpoints', endpoints, ...args],
      { env: { ...process.env, ETCDCTL_API: '3' }, timeout: 30_000, maxBuffer: 256 * 1024 * 1024 },
      (err, stdout, stderr) => (err ? reject(new Error(`etcdctl ${args.join(' ')}: ${stderr || err.message}`)) : resolve(stdout)),
    );
    // etcdctl may exit before reading its stdin (a delete needs none): its exit decides the
    // outcome, so a write to the closed pipe (EPIPE) is not an error of ours.
    child.stdin?.on('error', () => undefined);
    if (input) child.stdin?.end(input);
    else child.stdin?.end();
  });
}

export interface EtcdCluster {
  members: EtcdMember[];
  /** Every member's client URL, comma-separated (the --etcd-servers value). */
  endpoints: string;
  /** Stops every member and removes their data. */
  stop(): Promise<void>;
}

export interface EtcdClusterOptions {
  size?: number;
  /** Parent of the members' data dirs (a fresh temp dir by default, removed on stop). */
  dir?: string;
  /** Extra etcd flags for every member. */
  args?: string[];
  /** Member stdout/stderr to our stderr (the cluster script). */
  inheritOutput?: boolean;
  /** Serve clients over TLS with this certificate, requiring client certificates signed by `caFile`. */
  tls?: EtcdTls;
  /** Client ports chosen beforehand, one per member (a server pointed at them before etcd runs). */
  clientPorts?: number[];
}

export interface EtcdTls {
  certFile: string;
  keyFile: string;
  caFile: string;
  /** A client certificate and key the health check presents. */
  clientCertFile: string;
  clientKeyFile: string;
}

export const etcdBinary = (): string | undefined => findExecutable(process.env.ETCD_BIN ?? 'etcd');

/** The etcd binary, or undefined after a loud SKIPPED notice (a failure when tools are required). */
export const requireEtcd = (why: string): string | undefined => requireTool(process.env.ETCD_BIN ?? 'etcd', why);

/** A port nobody listens on at the moment of asking. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Starts `size` members (1 by default) and waits until the cluster answers on every member. */
export async function startEtcdCluster(opts: EtcdClusterOptions = {}): Promise<EtcdCluster> {
  const bin = etcdBinary();
  if (!bin) throw new Error('etcd is not installed (apt-get install etcd-server, or set ETCD_BIN)');
  const size = opts.size ?? 1;
  const ownDir = !opts.dir;
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'etcd-test-'));
  const specs: { name: string; client: number; peer: number }[] = [];
  for (let i = 0; i < size; i++) specs.push({ name: `m${i}`, client: opts.clientPorts?.[i] ?? (await freePort()), peer: await freePort() });
  const initialCluster = specs.map((s) => `${s.name}=http://127.0.0.1:${s.peer}`).join(',');
  // One token for the whole cluster: members with different tokens refuse each other.
  const token = `t-${process.pid}-${specs[0]!.client}`;
  const members = specs.map((s) =>
    member(bin, {
      name: s.name,
      clientUrl: `${opts.tls ? 'https' : 'http'}://127.0.0.1:${s.client}`,
      peerUrl: `http://127.0.0.1:${s.peer}`,
      dataDir: join(dir, s.name),
      initialCluster,
      token,
      args: [
        ...(opts.tls ? ['--cert-file', opts.tls.certFile, '--key-file', opts.tls.keyFile, '--trusted-ca-file', opts.tls.caFile, '--client-cert-auth'] : []),
        ...(opts.args ?? []),
      ],
      inherit: opts.inheritOutput ?? false,
      tls: opts.tls,
    }),
  );
  const stopAll = async (): Promise<void> => {
    await Promise.all(members.map((m) => m.stop()));
    if (ownDir) rmSync(dir, { recursive: true, force: true });
  };
  try {
    await Promise.all(members.map((m) => m.start()));
  } catch (err) {
    await stopAll();
    throw err;
  }
  return { members, endpoints: members.map((m) => m.clientUrl).join(','), stop: stopAll };
}

interface MemberSpec {
  name: string;
  clientUrl: string;
  peerUrl: string;
  dataDir: string;
  initialCluster: string;
  token: string;
  args: string[];
  inherit: boolean;
  tls?: EtcdTls;
}

function member(bin: string, spec: MemberSpec): EtcdMember {
  let child: ChildProcess | undefined;
  let output = '';
  /** Sends `sig` (then SIGKILL after 5 s) and waits for the exit. */
  const signal = async (sig: NodeJS.Signals): Promise<void> => {
    const c = child;
    if (!c || !m.running()) return;
    const exited = new Promise<void>((resolve) => c.once('exit', () => resolve()));
    c.kill(sig);
    // A paused (SIGSTOPped) member handles the signal only once it runs again.
    if (sig !== 'SIGKILL') c.kill('SIGCONT');
    const force = setTimeout(() => c.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(force);
  };
  const m: EtcdMember = {
    name: spec.name,
    clientUrl: spec.clientUrl,
    peerUrl: spec.peerUrl,
    dataDir: spec.dataDir,
    running: () => child !== undefined && child.exitCode === null && child.signalCode === null,
    log: () => output,
    async start() {
      if (m.running()) return;
      child = spawn(
        bin,
        [
          '--name', spec.name,
          '--data-dir', spec.dataDir,
          '--listen-client-urls', spec.clientUrl,
          '--advertise-client-urls', spec.clientUrl,
          '--listen-peer-urls', spec.peerUrl,
          '--initial-advertise-peer-urls', spec.peerUrl,
          '--initial-cluster', spec.initialCluster,
          '--initial-cluster-token', spec.token,
          '--initial-cluster-state', 'new',
          // Objects up to kube's 3 MiB limit plus framing (etcd's default is 1.5 MiB).
          '--max-request-bytes', String(10 * 1024 * 1024),
          // Tests write fast and never need more than a few MiB.
          '--quota-backend-bytes', String(1024 * 1024 * 1024),
          '--log-level', 'warn',
          '--logger', 'zap',
          ...spec.args,
        ],
        { stdio: ['ignore', spec.inherit ? 'inherit' : 'pipe', spec.inherit ? 'inherit' : 'pipe'] },
      );
      const keep = (c: Buffer): void => {
        output = (output + c.toString()).slice(-64 * 1024);
      };
      child.stdout?.on('data', keep);
      child.stderr?.on('data', keep);
      await waitUntilServing(spec.clientUrl, () => m.running(), () => output, spec.tls);
    },
    stop: () => signal('SIGTERM'),
    kill: () => signal('SIGKILL'),
    pause: () => void (m.running() && child!.kill('SIGSTOP')),
    unpause: () => void (m.running() && child!.kill('SIGCONT')),
    async restore(snapshotFile) {
      await m.stop();
      rmSync(spec.dataDir, { recursive: true, force: true });
      const bin = process.env.ETCDCTL_BIN ?? 'etcdctl';
      await promisify(execFile)(
        bin,
        ['snapshot', 'restore', snapshotFile, '--name', spec.name, '--data-dir', spec.dataDir, '--initial-cluster', spec.initialCluster, '--initial-cluster-token', spec.token, '--initial-advertise-peer-urls', spec.peerUrl],
        { env: { ...process.env, ETCDCTL_API: '3' }, timeout: 60_000 },
      );
    },
  };
  return m;
}

/** Polls the member's /health (bounded) until it reports healthy, i.e. the cluster has a leader. */
async function waitUntilServing(clientUrl: string, alive: () => boolean, log: () => string, tls?: EtcdTls): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (!alive()) throw new Error(`etcd at ${clientUrl} exited during start:\n${log()}`);
    try {
      const body = JSON.parse(await getText(`${clientUrl}/health`, tls)) as { health?: string };
      if (body.health === 'true') return;
    } catch {
      // not listening yet, or no leader yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`etcd at ${clientUrl} did not become healthy within 30 s:\n${log()}`);
}

/** GET over http or https (with the test CA and client certificate), bounded to one second. */
function getText(url: string, tls?: EtcdTls): Promise<string> {
  return new Promise((resolve, reject) => {
    const opts = tls ? { ca: readFileSync(tls.caFile), cert: readFileSync(tls.clientCertFile), key: readFileSync(tls.clientKeyFile) } : {};
    const req = (url.startsWith('https:') ? https : http).get(url, { ...opts, timeout: 1000 }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve(text));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}
