// The processes a benchmark talks to: the real server (`node dist/src/main.js`, what `npm start`
// runs, as a child on loopback with a temporary data dir) and the bare baseline server; plus one
// authenticated request and a stop that always ends the child. Shared by every bench section.

import { spawn, type ChildProcess } from 'node:child_process';
import https from 'node:https';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

const here = dirname(fileURLToPath(import.meta.url));
/** The built server entry point: exactly what `npm start` runs. */
export const SERVER_MAIN = join(here, '../../src/main.js');

export interface Started {
  child: ChildProcess;
  url: string;
  ca: string;
  token: string;
  dataDir: string;
}

/** Resolves with the first match of `pattern` in the child's stdout. */
export function waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => reject(new Error(`no line matching ${pattern} within ${timeoutMs} ms: ${buffered}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString();
      const m = buffered.match(pattern);
      if (m) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        resolve(m);
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`process exited with ${code} before it was ready: ${buffered}`));
    });
  });
}

export const READY_LINE = /ready at (https:\/\/\S+) \(kubeconfig: (.+)\)/;

/** The URL, CA and admin token a started server announced (its kubeconfig). */
export function readKubeconfig(path: string): { ca: string; token: string } {
  const kubeconfig = parseYaml(readFileSync(path, 'utf8')) as {
    clusters: { cluster: { 'certificate-authority-data': string } }[];
    users: { user: { token: string } }[];
  };
  return { ca: Buffer.from(kubeconfig.clusters[0]!.cluster['certificate-authority-data'], 'base64').toString(), token: kubeconfig.users[0]!.user.token };
}

export async function startApiServer(nodeArgs: string[] = [], serverArgs: string[] = [], dataDir = mkdtempSync(join(tmpdir(), 'platform-bench-'))): Promise<Started> {
  const child = spawn(process.execPath, [...nodeArgs, SERVER_MAIN, '--data-dir', dataDir, '--secure-port', '0', '--log-level', 'error', ...serverArgs], {
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const m = await waitForLine(child, READY_LINE, 60_000).catch(async (err: unknown) => {
    await stop(child);
    throw err;
  });
  return { child, url: m[1]!, ...readKubeconfig(m[2]!), dataDir };
}

/**
 * The bare baseline: a node:https server answering every request with a same-size body. With
 * `both`, a node:http2 secure server that also accepts HTTP/1.1 (as ours does), for wrk and h2load.
 */
export async function startBareServer(certFile: string, keyFile: string, bodyBytes: number, nodeArgs: string[] = [], protocols: 'h1' | 'both' = 'h1'): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [...nodeArgs, join(here, './bare-server.js'), certFile, keyFile, String(bodyBytes), protocols], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const m = await waitForLine(child, /^(\d+)\n/, 10_000);
  return { child, url: `https://127.0.0.1:${m[1]}` };
}

/** CPU seconds of a process (all its threads) from /proc (Linux). */
export function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime (clock ticks)
}

/** The server's RSS and heap in use after full collections (servers started with the memory probe). */
/** The server's memory after full garbage collections. */
export interface ServerMemory {
  rss: number;
  heapUsed: number;
}

export function measureMemory(child: ChildProcess): Promise<ServerMemory> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the memory probe did not answer')), 30_000);
    child.once('message', (m: ServerMemory) => {
      clearTimeout(timer);
      resolve(m);
    });
    child.send('measure');
  });
}

/** SIGTERM, then SIGKILL if it has not exited within 10 s. */
export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
  });
}

/** One authenticated request over HTTPS/1.1; resolves with the body of a 2xx answer. */
export function fetchBody(server: Pick<Started, 'url' | 'ca' | 'token'>, path: string, method = 'GET', body?: string, agent?: https.Agent): Promise<Buffer> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: url.hostname,
        port: url.port,
        path,
        method,
        ca: server.ca,
        agent,
        headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json', ...(body ? { 'Content-Length': String(Buffer.byteLength(body)) } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => (res.statusCode! < 300 ? resolve(Buffer.concat(chunks)) : reject(new Error(`${method} ${path}: ${res.statusCode} ${Buffer.concat(chunks).toString().slice(0, 300)}`))));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
