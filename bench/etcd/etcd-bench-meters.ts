// What the etcd bench reads beside its loads: etcd's own count of gRPC calls by method and its
// CPU (both from etcd's /metrics), a process's CPU from /proc, and a wait until etcd has seen
// no write for a while (the controllers have settled the objects a load created).

import { readFileSync } from 'node:fs';

/** etcd's /metrics text. */
const etcdMetrics = async (clientUrl: string): Promise<string> => (await fetch(`${clientUrl}/metrics`)).text();

/** etcd's count of gRPC calls handled, by method (its Prometheus metrics). */
export async function etcdCalls(clientUrl: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const m of (await etcdMetrics(clientUrl)).matchAll(/^grpc_server_handled_total\{([^}]*)\} (\S+)$/gm)) {
    const method = /grpc_method="([^"]+)"/.exec(m[1]!)?.[1];
    if (method) out[method] = (out[method] ?? 0) + Number(m[2]);
  }
  return out;
}

export const WRITES = ['Txn', 'Put', 'DeleteRange'];

export const sum = (calls: Record<string, number>, methods?: string[]): number =>
  Object.entries(calls).reduce((n, [m, v]) => (methods && !methods.includes(m) ? n : n + v), 0);

/** Calls per unit between two counts, by method ("Range 1.00, Txn 3.00"; "none"). */
export function perUnit(before: Record<string, number>, after: Record<string, number>, units: number): string {
  const parts = Object.entries(after)
    .map(([m, v]) => [m, (v - (before[m] ?? 0)) / units] as const)
    .filter(([, v]) => v > 0)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([m, v]) => `${m} ${v.toFixed(2)}`);
  return parts.length ? parts.join(', ') : 'none';
}

/** CPU seconds etcd has used (user + system, its process_cpu_seconds_total). */
export async function etcdCpuSeconds(clientUrl: string): Promise<number> {
  return Number(/^process_cpu_seconds_total (\S+)$/m.exec(await etcdMetrics(clientUrl))?.[1] ?? NaN);
}

/** CPU seconds a process on this machine has used (Linux /proc; NaN elsewhere). */
export function processCpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    // Fields after the command name: utime and stime are the 12th and 13th, in clock ticks (100/s).
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/**
 * This process's CPU seconds (user + system), with those of its children that have ended: the
 * load generator, whether it runs here (autocannon, the raw etcd client) or as a wrk process.
 */
export const ownCpuSeconds = (): number => {
  const u = process.cpuUsage();
  let children = 0;
  try {
    // cutime and cstime, the 16th and 17th fields: children waited for (wrk after its run).
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
    children = (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    // not Linux: this process only
  }
  return (u.user + u.system) / 1e6 + children;
};

/**
 * Waits until etcd has handled no write for `quietMs` (at most `maxMs`): a create leaves the
 * controllers writing its finalizer and status, and a count or a baseline taken meanwhile holds
 * their writes. Returns the writes seen while waiting and when the last of them came (busyMs).
 */
export async function waitForQuiet(clientUrl: string, quietMs = 2000, maxMs = 120_000): Promise<{ waitedMs: number; busyMs: number; writes: number; quiet: boolean }> {
  const start = Date.now();
  const first = sum(await etcdCalls(clientUrl), WRITES);
  let last = first;
  let lastChange = Date.now();
  while (Date.now() - start < maxMs) {
    await new Promise((r) => setTimeout(r, 250));
    const now = sum(await etcdCalls(clientUrl), WRITES);
    if (now !== last) [last, lastChange] = [now, Date.now()];
    else if (Date.now() - lastChange >= quietMs) return { waitedMs: Date.now() - start, busyMs: Math.max(0, lastChange - start), writes: last - first, quiet: true };
  }
  return { waitedMs: Date.now() - start, busyMs: Date.now() - start, writes: last - first, quiet: false };
}

/** The server's storage requests by operation (its etcd_requests_total, summed over types). */
export function storageRequests(metricsText: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of metricsText.matchAll(/^etcd_requests_total\{([^}]*)\} (\S+)$/gm)) {
    const op = /operation="([^"]+)"/.exec(m[1]!)?.[1];
    if (op) out[op] = (out[op] ?? 0) + Number(m[2]);
  }
  return out;
}

/** CPU seconds the whole machine has been busy, all cores (Linux /proc/stat; NaN elsewhere). */
export function machineBusySeconds(): number {
  try {
    // The first line sums every core: user nice system idle iowait irq softirq steal …, in ticks (100/s).
    const ticks = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const idle = ticks[3]! + ticks[4]!;
    return (ticks.slice(0, 8).reduce((a, b) => a + b, 0) - idle) / 100;
  } catch {
    return NaN;
  }
}
