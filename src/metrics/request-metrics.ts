// The request-level metrics (kube-apiserver's apiserver_request_* family) as a RequestObserver.
// Label values are bounded here, whatever the caller passes: resources outside the served set,
// unknown verbs, scopes and dryRun values collapse to fixed values, so a hostile client cannot
// grow the series count with made-up paths or names (kube does the same with its allow-lists).

import { Counter, Gauge, type Registry } from 'prom-client';
import { CollectedHistogram, collectedCounter, newCounterCell, type CounterCell, type HistogramCell } from './collected-metrics.js';
import type { RequestKind, RequestLabels, RequestObservation, RequestObserver } from '../apimachinery/request-observer.js';

/** A resource the server serves, as metrics name it. */
export interface MetricsResource {
  group: string;
  version: string;
  kind: string;
  plural: string;
  subresources: readonly string[];
}

/** kube's apiserver_request_duration_seconds buckets. */
export const REQUEST_DURATION_BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];
/** kube's apiserver_response_sizes buckets: 1 kB to 1 GB by powers of ten. */
const RESPONSE_SIZE_BUCKETS = [1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9];

const VERBS = new Set(['GET', 'LIST', 'WATCH', 'POST', 'PUT', 'PATCH', 'APPLY', 'DELETE', 'DELETECOLLECTION', 'HEAD', 'OPTIONS', 'CONNECT']);
const SCOPES = new Set(['', 'resource', 'namespace', 'cluster']);
const DRY_RUN = new Set(['', 'All']);
const KINDS = new Set<RequestKind>(['readOnly', 'mutating']);
const REJECT_REASONS = new Set(['too-many-requests', 'time-out']);

const REQUEST_LABELS = ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const;
const SIZE_LABELS = ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const;
/** Request descriptions remembered (a served API has a few dozen; past this, bounded afresh each time). */
const MAX_LABEL_SETS = 4096;

type Labels = Record<(typeof REQUEST_LABELS)[number], string>;

type SizeLabels = Record<(typeof SIZE_LABELS)[number], string>;

/**
 * One series of the request families: the bounded labels (a few dozen distinct sets on a served
 * API) and their counts, held here and read by prom-client when /metrics is scraped
 * (collected-metrics.ts), so a request costs one map lookup, not three label hashes.
 */
interface Series {
  labels: Labels;
  duration: HistogramCell<Labels>;
  /** apiserver_response_sizes (GET and LIST only), shared by the series that differ only in dry_run. */
  sizes: HistogramCell<SizeLabels> | undefined;
  /** apiserver_request_total, by response code. */
  byCode: Map<string, CounterCell<Labels & { code: string }>>;
}

export class RequestMetrics implements RequestObserver {
  private readonly known: Set<string>;
  private readonly duration: CollectedHistogram<(typeof REQUEST_LABELS)[number]>;
  private readonly sizes: CollectedHistogram<(typeof SIZE_LABELS)[number]>;
  private readonly longRunningGauge: Gauge<(typeof SIZE_LABELS)[number]>;
  private readonly rejectedTotal: Counter<'request_kind' | 'reason'>;
  private readonly dropped: Counter<'request_kind'>;
  /** Requests holding in-flight seats now, by kind (read by the gauge at collect time). */
  private readonly inflightNow: Record<RequestKind, number> = { readOnly: 0, mutating: 0 };
  /** Series by the request description as given (raw label values; at most MAX_LABEL_SETS remembered). */
  private readonly byDescription = new Map<string, Series>();
  /** Series by bounded labels: two descriptions that bound alike (two unserved paths) are one series. */
  private readonly byLabels = new Map<string, Series>();
  private readonly sizeCells = new Map<string, HistogramCell<SizeLabels>>();
  // The series of each family in order of first observation (prom-client's order).
  private readonly totalCells: CounterCell<Labels & { code: string }>[] = [];
  private readonly durationCells: HistogramCell<Labels>[] = [];
  private readonly sizeCellList: HistogramCell<SizeLabels>[] = [];

  constructor(registry: Registry, resources: readonly MetricsResource[]) {
    this.known = new Set(resources.flatMap((r) => ['', ...r.subresources].map((s) => `${r.group}/${r.version}/${r.plural}/${s}`)));
    const registers = [registry];
    collectedCounter(
      registry,
      'apiserver_request_total',
      'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
      [...REQUEST_LABELS, 'code'],
      this.totalCells,
    );
    this.duration = new CollectedHistogram(
      {
        name: 'apiserver_request_duration_seconds',
        help: 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
        labelNames: REQUEST_LABELS,
        buckets: REQUEST_DURATION_BUCKETS,
        registers,
      },
      this.durationCells,
    );
    this.sizes = new CollectedHistogram(
      {
        name: 'apiserver_response_sizes',
        help: 'Response size distribution in bytes for each group, version, verb, resource, subresource, scope and component.',
        labelNames: SIZE_LABELS,
        buckets: RESPONSE_SIZE_BUCKETS,
        registers,
      },
      this.sizeCellList,
    );
    const inflightNow = this.inflightNow;
    new Gauge({
      name: 'apiserver_current_inflight_requests',
      help: 'Number of requests currently executing in this apiserver, by request kind (readOnly or mutating).',
      labelNames: ['request_kind'],
      registers,
      collect() {
        for (const kind of KINDS) this.set({ request_kind: kind }, inflightNow[kind]);
      },
    });
    this.longRunningGauge = new Gauge({
      name: 'apiserver_longrunning_requests',
      help: 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component.',
      labelNames: SIZE_LABELS,
      registers,
    });
    this.rejectedTotal = new Counter({
      name: 'apiserver_rejected_requests_total',
      help: 'Requests turned away before their handler ran, by request kind and reason (too-many-requests: 429, time-out: 504).',
      labelNames: ['request_kind', 'reason'],
      registers,
    });
    this.dropped = new Counter({
      name: 'apiserver_dropped_requests_total',
      help: 'Number of requests dropped with a 429 by the max-in-flight limits, by request kind.',
      labelNames: ['request_kind'],
      registers,
    });
  }

  observe(o: RequestObservation): void {
    const series = this.series(o);
    const code = Number.isInteger(o.code) && o.code >= 100 && o.code <= 599 ? String(o.code) : '0';
    let total = series.byCode.get(code);
    if (!total) {
      series.byCode.set(code, (total = newCounterCell({ ...series.labels, code })));
      this.totalCells.push(total);
    }
    total.value++;
    this.duration.observeIn(series.duration, Math.max(0, o.durationSeconds));
    if (series.sizes) this.sizes.observeIn(series.sizes, Math.max(0, o.responseBytes));
  }

  /** The series of a request description, found once per request (observe runs on every request). */
  private series(l: RequestLabels): Series {
    const key = `${l.verb}\0${l.dryRun}\0${l.group}\0${l.version}\0${l.resource}\0${l.subresource}\0${l.scope}`;
    let series = this.byDescription.get(key);
    if (series) return series;
    const labels = this.bounded(l);
    const labelsKey = REQUEST_LABELS.map((n) => labels[n]).join('\0');
    series = this.byLabels.get(labelsKey);
    if (!series) {
      series = { labels, duration: this.duration.newCell(labels), sizes: labels.verb === 'GET' || labels.verb === 'LIST' ? this.sizeCell(labels) : undefined, byCode: new Map() };
      this.byLabels.set(labelsKey, series);
      this.durationCells.push(series.duration);
    }
    if (this.byDescription.size < MAX_LABEL_SETS) this.byDescription.set(key, series);
    return series;
  }

  private sizeCell(labels: Labels): HistogramCell<SizeLabels> {
    const { dry_run: _omit, ...sizeLabels } = labels;
    const key = SIZE_LABELS.map((n) => sizeLabels[n]).join('\0');
    let cell = this.sizeCells.get(key);
    if (!cell) {
      this.sizeCells.set(key, (cell = this.sizes.newCell(sizeLabels)));
      this.sizeCellList.push(cell);
    }
    return cell;
  }

  inflight(kind: RequestKind, delta: 1 | -1): void {
    this.inflightNow[KINDS.has(kind) ? kind : 'mutating'] += delta;
  }

  longRunning(labels: RequestLabels, delta: 1 | -1): void {
    const { dry_run: _omit, ...l } = this.bounded(labels);
    this.longRunningGauge.inc(l, delta);
  }

  rejected(kind: RequestKind, reason: 'too-many-requests' | 'time-out'): void {
    const requestKind = KINDS.has(kind) ? kind : 'mutating';
    this.rejectedTotal.inc({ request_kind: requestKind, reason: REJECT_REASONS.has(reason) ? reason : 'other' });
    if (reason === 'too-many-requests') this.dropped.inc({ request_kind: requestKind });
  }

  /** The labels, each from a fixed set: an unserved resource is counted like a non-resource request. */
  private bounded(l: RequestLabels): Labels {
    const verb = VERBS.has(l.verb) ? l.verb : 'other';
    const dryRun = DRY_RUN.has(l.dryRun) ? l.dryRun : 'invalid';
    const served = this.known.has(`${l.group}/${l.version}/${l.resource}/${l.subresource}`) && l.resource !== '';
    if (!served) return { verb, dry_run: dryRun, group: '', version: '', resource: '', subresource: '', scope: '', component: 'apiserver' };
    const scope = SCOPES.has(l.scope) ? l.scope : '';
    return { verb, dry_run: dryRun, group: l.group, version: l.version, resource: l.resource, subresource: l.subresource, scope, component: 'apiserver' };
  }
}
