// Runs one attack against a server process and measures what it costs everyone else: another
// client's GET latency (probe.ts) and the server's open descriptors and RSS (proc.ts), before the
// attack (the baseline), during it, and after it. The attack returns how to stop generating load
// (stop) and how to let go of whatever it still holds (release, after the "after" phase: an
// attacker that keeps its sockets shows whether the server closes them by itself).

import { latencyFigures, Probe, type LatencyFigures, type ProbeOptions } from './probe.js';
import { ProcSampler } from './proc.js';
import type { TestServer } from '../../e2e/harness.js';

export interface Attack {
  /** Stops generating load (the "during" phase is over). */
  stop?(): Promise<void> | void;
  /** Lets go of everything still held (after the "after" phase). */
  release?(): Promise<void> | void;
}

export interface PhaseFigures extends LatencyFigures {
  /** The server's peak RSS (MB) and open descriptors in the phase, and both at its end. */
  peakRssMB: number;
  peakFds: number;
  endRssMB: number;
  endFds: number;
  /** The slowest GETs: when in the phase each started (ms), and how long it took. */
  slowest: { atMs: number; ms: number }[];
}

export interface AttackFigures {
  name: string;
  baseline: PhaseFigures;
  during: PhaseFigures;
  after: PhaseFigures;
}

export interface MeasureOptions {
  name: string;
  server: TestServer;
  /** How long the attack runs (the "during" phase). */
  durationMs: number;
  /** The "after" phase: measured once the attack stopped and `settleMs` passed. */
  afterMs?: number;
  settleMs?: number;
  baselineMs?: number;
  probe?: Partial<ProbeOptions>;
  start(): Promise<Attack | void> | Attack | void;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const MB = 1024 * 1024;

export async function measureAttack(o: MeasureOptions): Promise<AttackFigures> {
  const pid = o.server.pid;
  if (pid === undefined) throw new Error('the attack suite needs a server process of its own');
  const probe = new Probe({ port: o.server.port, caPem: o.server.caCertPem, token: o.server.token, ...o.probe });
  let attack: Attack | void = undefined;
  const windows: { since: number; until: number; sampler: ProcSampler }[] = [];
  let probeStopped = false;
  try {
    const phase = async (ms: number): Promise<void> => {
      const sampler = new ProcSampler(pid);
      const since = Date.now();
      await sleep(ms);
      sampler.stop();
      windows.push({ since, until: Date.now(), sampler });
    };
    await phase(o.baselineMs ?? 1500);
    attack = await o.start();
    await phase(o.durationMs);
    await attack?.stop?.();
    await sleep(o.settleMs ?? 1000);
    await phase(o.afterMs ?? 2000);
    // The GETs still under way finish (or time out) first: a GET that hangs counts in the phase
    // it started in, for as long as it hung.
    await probe.stop();
    probeStopped = true;
    const [baseline, during, after] = windows.map(({ since, until, sampler }) => ({
      ...latencyFigures(probe.between(since, until)),
      slowest: [...probe.between(since, until)].sort((a, b) => b.ms - a.ms).slice(0, 3).map((p) => ({ atMs: p.at - since, ms: Math.round(p.ms) })),
      peakRssMB: sampler.peakRss / MB,
      peakFds: sampler.peakFds,
      endRssMB: sampler.lastRss / MB,
      endFds: sampler.lastFds,
    }));
    return { name: o.name, baseline: baseline!, during: during!, after: after! };
  } finally {
    if (!probeStopped) await probe.stop();
    await attack?.release?.();
  }
}

const f = (n: number, digits = 0): string => (Number.isFinite(n) ? n.toFixed(digits) : '-');

/** One line per phase: the figures the closing note quotes. */
export function formatFigures(x: AttackFigures): string {
  const row = (label: string, p: PhaseFigures): string =>
    `  ${label.padEnd(9)} GET p50 ${f(p.p50, 1).padStart(7)} ms  p99 ${f(p.p99, 1).padStart(7)} ms  max ${f(p.max, 0).padStart(6)} ms  ` +
    `(${p.count} GETs, ${p.failures} failed)  RSS peak ${f(p.peakRssMB, 1)} MB end ${f(p.endRssMB, 1)} MB  fds peak ${p.peakFds} end ${p.endFds}`;
  return [`${x.name}`, row('baseline', x.baseline), row('during', x.during), row('after', x.after)].join('\n');
}

/** For an assertion's message: the figures and what failed. */
export function explain(x: AttackFigures): string {
  const failed = [...x.during.failed.map((s) => `during: ${s}`), ...x.after.failed.map((s) => `after: ${s}`)];
  const slowest = x.during.slowest.map((p) => `${p.ms} ms at ${(p.atMs / 1000).toFixed(1)} s`).join(', ');
  return `${formatFigures(x)}\n  slowest GETs during: ${slowest}${failed.length ? `\n  failed GETs: ${failed.join('; ')}` : ''}`;
}
