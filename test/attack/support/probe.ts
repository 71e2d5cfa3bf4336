// "Another client": a worker thread (its own event loop, so the attacker's work in the test's
// thread does not delay it) that GETs one object again and again, each on a new TLS connection
// unless told to keep one (a client arriving during an attack must connect, hand-shake and be
// answered). Every GET is bounded: one not answered within `timeoutMs` counts as a failure that
// took `timeoutMs`.

import { Worker } from 'node:worker_threads';

export interface ProbeSample {
  /** Date.now() when the GET started. */
  at: number;
  ms: number;
  ok: boolean;
  /** The status, or the error's code/message. */
  outcome: string;
}

export interface ProbeOptions {
  port: number;
  caPem: string;
  token: string;
  /** Default: the ServiceCIDR every server makes ("kubernetes"). */
  path?: string;
  /** Pause between two GETs (default 50 ms). */
  intervalMs?: number;
  /** A GET not answered within this is a failure (default 10 s). */
  timeoutMs?: number;
  /** One kept-alive connection instead of a new one per GET. */
  keepAlive?: boolean;
}

const WORKER = `
const { parentPort, workerData: o } = require('node:worker_threads');
const https = require('node:https');
const agent = o.keepAlive ? new https.Agent({ keepAlive: true, maxSockets: 1 }) : false;
let running = true;
parentPort.on('message', (m) => { if (m === 'stop') running = false; });
function once() {
  return new Promise((resolve) => {
    const at = Date.now();
    const t0 = performance.now();
    let settled = false;
    const done = (ok, outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ at, ms: ok ? performance.now() - t0 : Math.max(performance.now() - t0, outcome === 'timeout' ? o.timeoutMs : 0), ok, outcome });
    };
    const req = https.request({ host: '127.0.0.1', port: o.port, path: o.path, ca: o.caPem, agent, headers: { authorization: 'Bearer ' + o.token } }, (res) => {
      res.resume();
      res.on('end', () => done(res.statusCode === 200, String(res.statusCode)));
      res.on('error', (e) => done(false, e.code || e.message));
    });
    const timer = setTimeout(() => { req.destroy(); done(false, 'timeout'); }, o.timeoutMs);
    req.on('error', (e) => done(false, e.code || e.message));
    req.end();
  });
}
(async () => {
  while (running) {
    parentPort.postMessage(await once());
    await new Promise((r) => setTimeout(r, o.intervalMs));
  }
  if (agent) agent.destroy();
  parentPort.postMessage('stopped');
})();
`;

/** Runs until stop(); `samples` grows as GETs are answered (or fail). */
export class Probe {
  readonly samples: ProbeSample[] = [];
  private readonly worker: Worker;
  private readonly stopped: Promise<void>;

  constructor(o: ProbeOptions) {
    this.worker = new Worker(WORKER, {
      eval: true,
      workerData: {
        port: o.port,
        caPem: o.caPem,
        token: o.token,
        path: o.path ?? '/apis/networking.platform.io/v1/servicecidrs/kubernetes',
        intervalMs: o.intervalMs ?? 50,
        timeoutMs: o.timeoutMs ?? 10_000,
        keepAlive: o.keepAlive ?? false,
      },
      // A plain script: no loader is needed in the worker.
      execArgv: [],
    });
    this.stopped = new Promise((resolve) => {
      this.worker.on('message', (m: ProbeSample | 'stopped') => {
        if (m === 'stopped') resolve();
        else this.samples.push(m);
      });
      this.worker.once('exit', () => resolve());
      this.worker.once('error', () => resolve());
    });
  }

  /** Samples taken from `since` (Date.now()) until `until`. */
  between(since: number, until = Infinity): ProbeSample[] {
    return this.samples.filter((s) => s.at >= since && s.at < until);
  }

  /** Lets the GET under way finish (bounded by its timeout), then ends the worker. */
  async stop(): Promise<void> {
    this.worker.postMessage('stop');
    const timer = setTimeout(() => void this.worker.terminate(), 30_000);
    await this.stopped;
    clearTimeout(timer);
    await this.worker.terminate();
  }
}

export interface LatencyFigures {
  count: number;
  failures: number;
  p50: number;
  p99: number;
  max: number;
  /** The first failures' outcomes, for an assertion's message. */
  failed: string[];
}

export function latencyFigures(samples: readonly ProbeSample[]): LatencyFigures {
  const ms = samples.map((s) => s.ms).sort((a, b) => a - b);
  const at = (q: number): number => (ms.length ? ms[Math.min(ms.length - 1, Math.ceil(q * ms.length) - 1)]! : NaN);
  const failed = samples.filter((s) => !s.ok);
  return { count: samples.length, failures: failed.length, p50: at(0.5), p99: at(0.99), max: ms.length ? ms[ms.length - 1]! : NaN, failed: failed.slice(0, 5).map((s) => `${s.outcome} after ${Math.round(s.ms)} ms`) };
}
