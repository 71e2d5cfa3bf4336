// Load with the standard C load generators, so that on a 2-core machine the client takes as
// little CPU from the server as possible and the HTTP/1.1 and HTTP/2 figures come from tools
// people know: wrk for HTTP/1.1 and h2load (nghttp2) for HTTP/2 over TLS, with one request in
// flight per connection (as client-go sends them: `-m 1`). Closed loop: N keep-alive connections
// for a fixed time, one load-generator thread (the other core is the server's).
//
// wrk prints its own latency percentiles (`--latency`); h2load prints only min/max/mean, so its
// p50/p99 come from its per-request log (`--log-file`: start, status, microseconds), which also
// gives the exact count of 2xx answers.

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type Protocol = 'http/1.1' | 'h2';

export interface LoadSpec {
  url: string;
  path: string;
  method: 'GET' | 'POST';
  /** A fixed body (POST); every request sends the same one. */
  body?: string;
  headers?: Record<string, string>;
  connections: number;
  durationMs: number;
}

export interface LoadResult {
  /** 2xx answers. */
  requests: number;
  /** Non-2xx answers, socket errors and timeouts. */
  errors: number;
  /** 2xx answers per second. */
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** h2load only: answers by status code, and requests never answered (errored, timed out). */
  byStatus?: Record<string, number>;
  unanswered?: number;
}

const TOOL: Record<Protocol, { command: string; versionArgs: string[]; debianPackage: string }> = {
  'http/1.1': { command: 'wrk', versionArgs: ['--version'], debianPackage: 'wrk' },
  h2: { command: 'h2load', versionArgs: ['--version'], debianPackage: 'nghttp2-client' },
};

const available = new Map<Protocol, boolean>();
/** Whether this protocol's load generator is installed (wrk exits 1 on --version, so any exit counts). */
export function toolAvailable(protocol: Protocol): boolean {
  if (!available.has(protocol)) {
    const r = spawnSync(TOOL[protocol].command, TOOL[protocol].versionArgs, { stdio: 'ignore' });
    available.set(protocol, !r.error);
  }
  return available.get(protocol)!;
}

export function missingToolNote(protocol: Protocol): string {
  const t = TOOL[protocol];
  return `SKIPPED: ${t.command} is not installed (Debian package ${t.debianPackage}); no ${protocol === 'h2' ? 'HTTP/2' : 'HTTP/1.1'} figures`;
}

export function runLoad(protocol: Protocol, spec: LoadSpec): Promise<LoadResult> {
  return protocol === 'h2' ? runH2load(spec) : runWrk(spec);
}

function run(command: string, args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else if (timedOut) reject(new Error(`${command} did not finish within ${timeoutMs} ms (stopped)`));
      else reject(new Error(`${command} exited with ${code}: ${(err || out).slice(-500)}`));
    });
  });
}

/** wrk's durations: `812.00us`, `1.23ms`, `2.00s`, `1.00m`. */
function wrkMs(text: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text.trim());
  if (!m) throw new Error(`wrk printed an unknown duration ${text}`);
  return Number(m[1]) * { us: 0.001, ms: 1, s: 1000, m: 60_000 }[m[2] as 'us' | 'ms' | 's' | 'm'];
}

/** A Lua string literal no JSON body can end early (a long bracket with a level it does not contain). */
function luaLong(text: string): string {
  let eq = '';
  while (text.includes(`]${eq}]`)) eq += '=';
  return `[${eq}[${text}]${eq}]`;
}

export async function runWrk(spec: LoadSpec): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'platform-bench-wrk-'));
  try {
    const args = ['-t1', `-c${spec.connections}`, `-d${Math.max(1, Math.round(spec.durationMs / 1000))}s`, '--latency', '--timeout', '10s'];
    for (const [k, v] of Object.entries(spec.headers ?? {})) args.push('-H', `${k}: ${v}`);
    if (spec.method !== 'GET' || spec.body !== undefined) {
      const script = join(dir, 'request.lua');
      // wrk's request template: method, body and content type; -H adds the rest.
      writeFileSync(script, `wrk.method = "${spec.method}"\nwrk.body = ${luaLong(spec.body ?? '')}\nwrk.headers["Content-Type"] = "application/json"\n`);
      args.push('-s', script);
    }
    args.push(`${spec.url}${spec.path}`);
    const out = await run('wrk', args, spec.durationMs + 30_000);
    const total = /(\d+) requests in ([\d.]+)(us|ms|s|m),/.exec(out);
    if (!total) throw new Error(`could not read wrk's output:\n${out}`);
    const seconds = wrkMs(`${total[2]}${total[3]}`) / 1000;
    const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
    const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
    const socketErrors = socket ? socket.slice(1).reduce((a, b) => a + Number(b), 0) : 0;
    const pct = (p: number) => {
      const m = new RegExp(`^\\s+${p}%\\s+(\\S+)`, 'm').exec(out);
      if (!m) throw new Error(`wrk printed no ${p}th percentile:\n${out}`);
      return wrkMs(m[1]!);
    };
    const ok = Number(total[1]) - non2xx;
    return { requests: ok, errors: non2xx + socketErrors, perSecond: ok / seconds, p50Ms: pct(50), p99Ms: pct(99) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runH2load(spec: LoadSpec): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'platform-bench-h2load-'));
  try {
    const log = join(dir, 'requests.log');
    const seconds = Math.max(1, Math.round(spec.durationMs / 1000));
    const args = ['-t1', `-c${spec.connections}`, '-m1', `-D${seconds}`, `--log-file=${log}`];
    for (const [k, v] of Object.entries(spec.headers ?? {})) args.push('-H', `${k.toLowerCase()}: ${v}`);
    if (spec.method === 'POST') {
      const bodyFile = join(dir, 'body.json');
      writeFileSync(bodyFile, spec.body ?? '');
      // -d makes every request a POST with this body.
      args.push('-d', bodyFile, '-H', 'content-type: application/json');
    }
    args.push(`${spec.url}${spec.path}`);
    const out = await run('h2load', args, spec.durationMs + 30_000);
    const finished = /finished in ([\d.]+)(ms|s),/.exec(out);
    if (!finished) throw new Error(`could not read h2load's output:\n${out}`);
    const elapsed = Number(finished[1]) / (finished[2] === 'ms' ? 1000 : 1);
    const counts = /requests: \d+ total, \d+ started, \d+ done, \d+ succeeded, \d+ failed, (\d+) errored, (\d+) timeout/.exec(out);
    const durations: number[] = [];
    const byStatus: Record<string, number> = {};
    let other = 0;
    for (const line of readFileSync(log, 'utf8').split('\n')) {
      const [, status, micros] = line.split('\t');
      if (status === undefined || micros === undefined) continue;
      byStatus[status] = (byStatus[status] ?? 0) + 1;
      if (status.startsWith('2')) durations.push(Number(micros) / 1000);
      else other++;
    }
    durations.sort((a, b) => a - b);
    const pct = (p: number) => (durations.length ? durations[Math.min(durations.length - 1, Math.floor((p / 100) * durations.length))]! : NaN);
    const unanswered = counts ? Number(counts[1]) + Number(counts[2]) : 0;
    return { requests: durations.length, errors: other + unanswered, perSecond: durations.length / elapsed, p50Ms: pct(50), p99Ms: pct(99), byStatus, unanswered };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
