// Starts the real server (src/main.ts, as `npm start` runs it) on a free loopback port with a
// temporary data dir, and talks to it over real HTTPS with the generated CA and admin token.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body parsed as JSON, when it is JSON. */
  json: any;
}

export interface RequestOptions {
  body?: string | Buffer | object;
  headers?: Record<string, string | string[]>;
  /** Send no Authorization header (default: the admin token). */
  anonymous?: boolean;
  token?: string;
  /** Fail (instead of waiting on) an answer that does not come within this time. */
  timeoutMs?: number;
}

/** A response body as text, and as JSON when it is JSON. */
export function bodyOf(chunks: Buffer[]): { text: string; json: any } {
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return { text, json: JSON.parse(text) };
  } catch {
    return { text, json: undefined };
  }
}

export interface TestServer {
  url: string;
  port: number;
  kubeconfigPath: string;
  dataDir: string;
  token: string;
  caCertPem: string;
  /** The server's process id (a child process; absent for a server in the test's own process). */
  pid?: number;
  /** What the server wrote to stderr (its log). */
  log(): string;
  /** The server process (to signal it; absent for a server in the test's own process). */
  process?: ChildProcess;
  request(method: string, path: string, opts?: RequestOptions): Promise<HttpResult>;
  /** Stops the server; the data dir is removed unless `keepData` (e.g. to restart on it). */
  stop(opts?: { keepData?: boolean }): Promise<void>;
}

export interface StartOptions {
  /** Reuse a data dir (a restart); it is then removed on stop only if removeOnStop. */
  dataDir?: string;
  removeOnStop?: boolean;
  args?: string[];
  /** Added to the server process's environment (NODE_OPTIONS, say). */
  env?: Record<string, string>;
  timeoutMs?: number;
}

export async function startServer(opts: StartOptions = {}): Promise<TestServer> {
  const removeOnStop = opts.removeOnStop ?? !opts.dataDir;
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'platform-e2e-'));
  // Load shedding on event-loop delay is off unless a test turns it on (its own tests do): on a
  // CI machine busy with the rest of the suite, the lag alone would shed a test's requests.
  const args = ['--data-dir', dataDir, '--secure-port', '0', '--log-level', 'warn', '--max-event-loop-delay', '0', ...(opts.args ?? [])];
  const child = spawn(process.execPath, ['--import', 'tsx', join(repo, 'src', 'main.ts'), ...args], {
    cwd: repo,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(opts.env ? { env: { ...process.env, ...opts.env } } : {}),
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const ready = await waitForReady(child, opts.timeoutMs ?? 60_000, () => stderr);
  const kubeconfig = parseYaml(readFileSync(ready.kubeconfigPath, 'utf8')) as {
    clusters: { cluster: { 'certificate-authority-data': string } }[];
    users: { user: { token: string } }[];
  };
  const caCertPem = Buffer.from(kubeconfig.clusters[0]!.cluster['certificate-authority-data'], 'base64').toString();
  const token = kubeconfig.users[0]!.user.token;
  const url = new URL(ready.url);
  const agent = new https.Agent({ ca: caCertPem, keepAlive: true });
  let stopped = false;
  return {
    url: ready.url,
    port: Number(url.port),
    kubeconfigPath: ready.kubeconfigPath,
    dataDir,
    token,
    caCertPem,
    pid: child.pid,
    log: () => stderr,
    process: child,
    request: (method, path, o = {}) => httpRequest(agent, url, method, path, o, token),
    async stop(o = {}) {
      if (stopped) return;
      stopped = true;
      agent.destroy();
      await stopProcess(child);
      if (removeOnStop && !o.keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function waitForReady(child: ChildProcess, timeoutMs: number, log: () => string): Promise<{ url: string; kubeconfigPath: string }> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server not ready within ${timeoutMs} ms\n${log()}`));
    }, timeoutMs);
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /ready at (https:\/\/\S+) \(kubeconfig: (.+)\)\n/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1]!, kubeconfigPath: m[2]! });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before it was ready\n${log()}`));
    });
  });
}

function stopProcess(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', () => {
      clearTimeout(killer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

export function httpRequest(agent: https.Agent, base: URL, method: string, path: string, o: RequestOptions, adminToken: string): Promise<HttpResult> {
  const headers: Record<string, string | string[]> = { ...o.headers };
  if (!o.anonymous) headers.Authorization = `Bearer ${o.token ?? adminToken}`;
  let payload: Buffer | undefined;
  if (o.body !== undefined) {
    payload = Buffer.isBuffer(o.body) ? o.body : Buffer.from(typeof o.body === 'string' ? o.body : JSON.stringify(o.body));
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['Content-Type'] = 'application/json';
    // Node sends DELETE bodies without framing unless told the length (kubectl always sends it).
    headers['Content-Length'] = String(payload.length);
  }
  return new Promise((resolve, reject) => {
    const req = https.request({ agent, host: base.hostname, port: base.port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, ...bodyOf(chunks) }));
    });
    if (o.timeoutMs !== undefined) req.setTimeout(o.timeoutMs, () => req.destroy(new Error(`${method} ${path}: no answer within ${o.timeoutMs} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * Reads a watch's newline-delimited events until `count` arrived, the stream ended, or
 * `timeoutMs` passed (then it resolves with the events so far, for the caller's assertion to
 * show what was missing, instead of waiting for ever).
 */
export function watchEvents(server: TestServer, path: string, count: number, timeoutMs = 60_000): Promise<{ status: number; events: any[] }> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = https.request({ host: url.hostname, port: url.port, path, ca: server.caCertPem, headers: { Authorization: `Bearer ${server.token}` } }, (res) => {
      const events: any[] = [];
      let buf = '';
      const timer = setTimeout(() => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, events });
      }, timeoutMs);
      res.once('close', () => clearTimeout(timer));
      res.on('data', (c: Buffer) => {
        buf += c.toString();
        for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
          events.push(JSON.parse(buf.slice(0, nl)));
          buf = buf.slice(nl + 1);
          if (events.length >= count) {
            req.destroy();
            resolve({ status: res.statusCode ?? 0, events });
          }
        }
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, events }));
    });
    req.on('error', (e) => (e.message.includes('socket hang up') ? undefined : reject(e)));
    req.end();
  });
}

/** Where `kubectl auth whoami` asks: a SelfSubjectReview, answered with the requester's user. */
export const WHOAMI_PATH = '/apis/authentication.k8s.io/v1/selfsubjectreviews';

/** POSTs a SelfSubjectReview as `token` and returns the answer (bounded: 60 s unless `opts.timeoutMs`). */
export function whoami(server: Pick<TestServer, 'request'>, token: string, opts: Omit<RequestOptions, 'token' | 'body'> = {}): Promise<HttpResult> {
  return server.request('POST', WHOAMI_PATH, { timeoutMs: 60_000, ...opts, token, body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } });
}
