// The overload bench's printout: each figure beside its baseline (the same probes on the idle
// server, same run) and each target of issue #12 with met / NOT met:
// - /readyz and another client's GET during the storm: p99 < 100 ms, none failed;
// - every storm request answered (a 429 is an answer; a connection error or a timeout is not);
// - memory bounded: peak RSS at most PEAK_RSS_TARGET × that of a server holding the same objects
//   at rest (restarted on the storm's data). The storm creates thousands of objects, which any
//   server must hold; what the target bounds is the storm's own share: connections, requests in
//   flight, bodies being written. The ratio to the empty idle server is printed beside it;
// - recovery: the probes back under 100 ms p99 after the storm, and every seat of the in-flight
//   limit given back within the request timeout (a response a client left unread is cut off then).
// The slowest probes are listed with when they happened in the storm (the handshake storm comes
// in its first seconds), so a miss says where to look.

import { SEATS_BACK_WITHIN_MS, type OverloadOptions, type OverloadResult, type ProbeStats } from './overload-bench.js';

const PROBE_TARGET_MS = 100;
/** The memory target: the storm may hold buffers, but not grow the server without bound. */
export const PEAK_RSS_TARGET = 3;

const met = (ok: boolean): string => (ok ? 'met' : 'NOT met');
const mb = (b: number): string => `${(b / 1024 / 1024).toFixed(0)} MB`;

function probe(label: string, x: ProbeStats, base: ProbeStats, target: boolean): string {
  const ratio = base.p99Ms > 0 ? `${(x.p99Ms / base.p99Ms).toFixed(1)}× idle p99 ${base.p99Ms.toFixed(1)} ms` : 'no idle figure';
  const text = `${label} p50 ${x.p50Ms.toFixed(1)} ms p99 ${x.p99Ms.toFixed(1)} ms (${x.samples} probes, ${x.failed} failed; ${ratio})`;
  return target ? `${text} (target p99 < ${PROBE_TARGET_MS} ms: ${met(x.p99Ms < PROBE_TARGET_MS && x.failed === 0)})` : text;
}

const slowest = (x: ProbeStats): string => x.slowest.map((s) => `${s.ms < 0 ? 'failed' : `${s.ms.toFixed(0)} ms`} at ${(s.atMs / 1000).toFixed(1)} s`).join(', ');

export function overloadReport(r: OverloadResult, o: OverloadOptions): string[] {
  const codes = Object.entries(r.byStatus)
    .map(([c, n]) => `${c}: ${n}`)
    .join(', ');
  const peak = r.storm.peakRssBytes / r.baseline.rssBytes;
  const atRest = r.atRest ? r.storm.peakRssBytes / r.atRest.rssBytes : NaN;
  return [
    `\noverload over ${o.protocol === 'h2' ? 'HTTP/2 (h2load)' : 'HTTP/1.1 (autocannon)'}: ${o.connections} connections (half creating, half listing everything) for ${(o.durationMs / 1000).toFixed(0)} s, as an ordinary user: ` +
      `${r.responses} responses (${codes}); answered 429: ${(r.share429 * 100).toFixed(1)}%${r.share429 === 0 ? ' (no limit triggered)' : ''}; ` +
      `creates ${r.createsPerSecond.toFixed(0)}/s, full lists ${r.listsPerSecond.toFixed(0)}/s`,
    `  storm requests unanswered (connection errors, timeouts): ${r.errors} (target 0: ${met(r.errors === 0)})`,
    `  during the storm, another client: ${probe('/readyz', r.storm.readyz, r.baseline.readyz, true)}; ${probe('GET one object', r.storm.get, r.baseline.get, true)}`,
    `    slowest /readyz: ${slowest(r.storm.readyz)}; slowest GET: ${slowest(r.storm.get)} (seconds after the storm began)`,
    r.atRest
      ? `  server RSS: peak ${mb(r.storm.peakRssBytes)}; the same ${r.atRest.objects} objects at rest ${mb(r.atRest.rssBytes)} ` +
        `(peak ${atRest.toFixed(1)}× that; target ≤ ${PEAK_RSS_TARGET}×: ${met(atRest <= PEAK_RSS_TARGET)}); empty and idle ${mb(r.baseline.rssBytes)} (peak ${peak.toFixed(1)}× that)`
      : `  server RSS: ${mb(r.baseline.rssBytes)} idle, peak ${mb(r.storm.peakRssBytes)} (${peak.toFixed(1)}×; target ≤ ${PEAK_RSS_TARGET}×: ${met(peak <= PEAK_RSS_TARGET)})`,
    `  requests still in flight ${((o.recoveryMs + 3000) / 1000).toFixed(0)} s after the storm: ${r.heldAfter}` +
      (r.heldAfter ? `; all over ${Number.isNaN(r.allBackAfterMs) ? `NOT within ${SEATS_BACK_WITHIN_MS / 1000} s` : `${(r.allBackAfterMs / 1000).toFixed(0)} s after`}` : '') +
      ` (target: every seat back within the request timeout: ${met(!Number.isNaN(r.allBackAfterMs))})`,
    `  recovery, ${(o.recoveryMs / 1000).toFixed(0)} s after: ${probe('/readyz', r.recovery.readyz, r.baseline.readyz, true)}; ${probe('GET one object', r.recovery.get, r.baseline.get, true)}; ` +
      `RSS ${mb(r.recovery.rssBytes)} (${(r.recovery.rssBytes / r.baseline.rssBytes).toFixed(1)}× idle)`,
  ];
}
