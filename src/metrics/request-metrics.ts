// The request-level metrics (kube-apiserver's apiserver_request_* family) as a RequestObserver.
// Label values are bounded here, whatever the caller passes: resources outside the served set,
// unknown verbs, scopes and dryRun values collapse to fixed values, so a hostile client cannot
// grow the series count with made-up paths or names (kube does the same with its allow-lists).

import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
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
/** Label sets remembered (a served API has a few dozen; past this, made afresh each time). */
const MAX_LABEL_SETS = 4096;

type Labels = Record<(typeof REQUEST_LABELS)[number], string>;

/** One request's labels, made once per distinct request description and reused. */
interface LabelSet {
  labels: Labels;
  /** For apiserver_response_sizes (GET and LIST only). */
  sizeLabels: Record<(typeof SIZE_LABELS)[number], string> | undefined;
  /** With each response code. */
  withCode: Map<string, Labels & { code: string }>;
}

export class RequestMetrics implements RequestObserver {
  private readonly known: Set<string>;
  private readonly total: Counter<(typeof REQUEST_LABELS)[number] | 'code'>;
  private readonly duration: Histogram<(typeof REQUEST_LABELS)[number]>;
  private readonly sizes: Histogram<(typeof SIZE_LABELS)[number]>;
  private readonly inflightGauge: Gauge<'request_kind'>;
  private readonly longRunningGauge: Gauge<(typeof SIZE_LABELS)[number]>;
  private readonly rejectedTotal: Counter<'request_kind' | 'reason'>;
  private readonly dropped: Counter<'request_kind'>;
  private readonly labelSets = new Map<string, LabelSet>();

  constructor(registry: Registry, resources: readonly MetricsResource[]) {
    this.known = new Set(resources.flatMap((r) => ['', ...r.subresources].map((s) => `${r.group}/${r.version}/${r.plural}/${s}`)));
    const registers = [registry];
    this.total = new Counter({
      name: 'apiserver_request_total',
      help: 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
      labelNames: [...REQUEST_LABELS, 'code'],
      registers,
    });
    this.duration = new Histogram({
      name: 'apiserver_request_duration_seconds',
      help: 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
      labelNames: REQUEST_LABELS,
      buckets: REQUEST_DURATION_BUCKETS,
      registers,
    });
    this.sizes = new Histogram({
      name: 'apiserver_response_sizes',
      help: 'Response size distribution in bytes for each group, version, verb, resource, subresource, scope and component.',
      labelNames: SIZE_LABELS,
      buckets: RESPONSE_SIZE_BUCKETS,
      registers,
    });
    this.inflightGauge = new Gauge({
      name: 'apiserver_current_inflight_requests',
      help: 'Number of requests currently executing in this apiserver, by request kind (readOnly or mutating).',
      labelNames: ['request_kind'],
      registers,
    });
    for (const kind of KINDS) this.inflightGauge.set({ request_kind: kind }, 0);
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
    const set = this.labelSet(o);
    const code = Number.isInteger(o.code) && o.code >= 100 && o.code <= 599 ? String(o.code) : '0';
    let withCode = set.withCode.get(code);
    if (!withCode) set.withCode.set(code, (withCode = { ...set.labels, code }));
    this.total.inc(withCode);
    this.duration.observe(set.labels, Math.max(0, o.durationSeconds));
    if (set.sizeLabels) this.sizes.observe(set.sizeLabels, Math.max(0, o.responseBytes));
  }

  /** The bounded labels for a request description, made once (observe runs on every request). */
  private labelSet(l: RequestLabels): LabelSet {
    const key = `${l.verb}\0${l.dryRun}\0${l.group}\0${l.version}\0${l.resource}\0${l.subresource}\0${l.scope}`;
    let set = this.labelSets.get(key);
    if (set) return set;
    const labels = this.bounded(l);
    const { dry_run: _omit, ...sizeLabels } = labels;
    set = { labels, sizeLabels: labels.verb === 'GET' || labels.verb === 'LIST' ? sizeLabels : undefined, withCode: new Map() };
    if (this.labelSets.size < MAX_LABEL_SETS) this.labelSets.set(key, set);
    return set;
  }

  inflight(kind: RequestKind, delta: 1 | -1): void {
    this.inflightGauge.inc({ request_kind: KINDS.has(kind) ? kind : 'mutating' }, delta);
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
