// SIGTERM with requests in flight: uploads whose bodies are still arriving when the signal comes
// (finished a moment later), on kept-alive HTTP/1.1 connections or HTTP/2 streams, beside idle
// kept-alive connections. As Go's Shutdown: every request in flight is answered (HTTP/1.1 with
// `Connection: close`: keep-alives stop), idle connections are closed, and the process exits as
// soon as the last answer is out. Before the fix an HTTP/1.1 answer said keep-alive and the
// connection, idle afterwards, was never closed: the stop waited the whole --shutdown-timeout.

import https from 'node:https';
import http2 from 'node:http2';
import { startServer } from '../../e2e/harness.js';
import { ProcSampler } from '../support/proc.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';

export interface SigtermOptions {
  protocol: 'http/1.1' | 'h2';
  /** Requests in flight at the signal. */
  inFlight: number;
  /** Kept-alive connections (HTTP/2: sessions) that made one request and sit idle. */
  idle: number;
}

export interface SigtermFigures {
  name: string;
  /** What each request in flight got: its status and Connection header, or its error. */
  answers: { status?: number; connection?: string; error?: string }[];
  exitCode: number | null;
  /** From the signal to the process's exit. */
  exitMs: number;
  peakRssMB: number;
  peakFds: number;
  log: string;
}

const body = (name: string): string => JSON.stringify({ apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name }, spec: { cidrs: ['10.66.0.0/24'] } });
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Upload {
  /** Sends the rest of the body. */
  finish(): void;
  answer: Promise<SigtermFigures['answers'][number]>;
}

function http1Upload(agent: https.Agent, port: number, ca: string, token: string, name: string): Upload {
  const payload = body(name);
  let finish = (): void => undefined;
  const answer = new Promise<SigtermFigures['answers'][number]>((resolve) => {
    const req = https.request(
      { host: '127.0.0.1', port, method: 'POST', path: SC, ca, agent, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode, connection: String(res.headers.connection) }));
      },
    );
    req.on('error', (e) => resolve({ error: (e as NodeJS.ErrnoException).code ?? e.message }));
    req.write(payload.slice(0, 10));
    finish = () => req.end(payload.slice(10));
  });
  return { finish: () => finish(), answer };
}

function h2Upload(session: http2.ClientHttp2Session, token: string, name: string): Upload {
  const payload = body(name);
  const stream = session.request({ ':method': 'POST', ':path': SC, authorization: `Bearer ${token}`, 'content-type': 'application/json' });
  const answer = new Promise<SigtermFigures['answers'][number]>((resolve) => {
    let status: number | undefined;
    stream.on('response', (h) => (status = Number(h[':status'])));
    stream.resume();
    stream.on('end', () => resolve({ status }));
    stream.on('error', (e) => resolve({ error: (e as NodeJS.ErrnoException).code ?? e.message }));
  });
  stream.write(payload.slice(0, 10));
  return { finish: () => stream.end(payload.slice(10)), answer };
}

export async function sigtermInFlight(o: SigtermOptions): Promise<SigtermFigures> {
  const server = await startServer();
  const pid = server.pid!;
  const closers: (() => void)[] = [];
  try {
    const uploads: Upload[] = [];
    if (o.protocol === 'http/1.1') {
      const agent = new https.Agent({ keepAlive: true });
      closers.push(() => agent.destroy());
      // Each upload on a connection that has already served a request (as a client's pool has them).
      await Promise.all(Array.from({ length: o.inFlight + o.idle }, () => new Promise<void>((resolve) => https.get({ host: '127.0.0.1', port: server.port, path: '/readyz', ca: server.caCertPem, agent }, (res) => res.resume().on('end', resolve)))));
      for (let i = 0; i < o.inFlight; i++) uploads.push(http1Upload(agent, server.port, server.caCertPem, server.token, `sigterm-h1-${i}`));
    } else {
      const sessions = Array.from({ length: Math.max(1, Math.ceil(o.inFlight / 10)) + o.idle }, () => http2.connect(server.url, { ca: server.caCertPem }));
      for (const s of sessions) {
        s.on('error', () => undefined);
        closers.push(() => s.destroy());
      }
      await Promise.all(sessions.map((s) => new Promise<void>((resolve) => s.request({ ':path': '/readyz' }).resume().on('end', resolve).on('error', () => resolve()))));
      for (let i = 0; i < o.inFlight; i++) uploads.push(h2Upload(sessions[i % (sessions.length - o.idle)]!, server.token, `sigterm-h2-${i}`));
    }
    // The uploads' heads have reached the server; their bodies have not.
    await sleep(500);
    const sampler = new ProcSampler(pid);
    const exited = new Promise<number | null>((resolve) => server.process!.once('exit', (code) => resolve(code)));
    const t0 = Date.now();
    server.process!.kill('SIGTERM');
    await sleep(300);
    for (const u of uploads) u.finish();
    const answers = await Promise.all(uploads.map((u) => u.answer));
    // Bounded: the default --shutdown-timeout (60 s) and a little more.
    let timer: NodeJS.Timeout | undefined;
    const exitCode = await Promise.race([exited, new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), 90_000)))]);
    clearTimeout(timer);
    const exitMs = Date.now() - t0;
    sampler.stop();
    return { name: `SIGTERM with ${o.inFlight} ${o.protocol} uploads in flight and ${o.idle} idle connections`, answers, exitCode, exitMs, peakRssMB: sampler.peakRss / (1024 * 1024), peakFds: sampler.peakFds, log: server.log() };
  } finally {
    for (const c of closers) c();
    await server.stop();
  }
}

export function formatSigterm(x: SigtermFigures): string {
  const ok = x.answers.filter((a) => a.status === 201).length;
  return `${x.name}\n  exit ${x.exitCode} after ${x.exitMs} ms; ${ok} of ${x.answers.length} in-flight requests answered 201; server peak RSS ${x.peakRssMB.toFixed(1)} MB, fds ${x.peakFds}`;
}
