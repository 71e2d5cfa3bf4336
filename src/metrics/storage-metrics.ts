// Storage, watch and watch-cache metrics (kube's etcd_request_*, apiserver_storage_objects,
// apiserver_registered_watchers, apiserver_watch_events_total, apiserver_watch_cache_*) as a
// StorageObserver. The resource labels come from the wiring (a fixed set), never from keys.

import { Counter, Gauge, type Registry } from 'prom-client';
import { CollectedHistogram, collectedCounter, newCounterCell, type CounterCell, type HistogramCell } from './collected-metrics.js';
import type { StorageObserver, StorageOperation } from '../storage/storage-observer.js';
import { REQUEST_DURATION_BUCKETS, type MetricsResource } from './request-metrics.js';

/** kube's name for a resource in storage metrics: `<plural>.<group>` (just the plural in the core group). */
export const storageResourceLabel = (r: Pick<MetricsResource, 'plural' | 'group'>): string => (r.group ? `${r.plural}.${r.group}` : r.plural);

export interface StorageMetricsOptions {
  resources: readonly MetricsResource[];
  /** Live objects of a resource (storage-label), read when /metrics is scraped. */
  countObjects?: (resource: string) => Promise<number>;
}

type OperationLabels = Record<'operation' | 'type', string>;

/** One operation on one type: its series of the etcd_request_* families, found once per store request. */
interface OperationSeries {
  duration: HistogramCell<OperationLabels>;
  requests: CounterCell<OperationLabels>;
  /** Made on the first failure (no series before one, as prom-client would have it). */
  errors: CounterCell<OperationLabels> | undefined;
}

export class StorageMetrics implements StorageObserver {
  private readonly byLabel: Map<string, MetricsResource>;
  // Every store request is counted: the series are ours, read by prom-client at scrape time (collected-metrics.ts).
  private readonly duration: CollectedHistogram<'operation' | 'type'>;
  private readonly operations = new Map<string, OperationSeries>();
  private readonly durationCells: HistogramCell<OperationLabels>[] = [];
  private readonly requestCells: CounterCell<OperationLabels>[] = [];
  private readonly errorCells: CounterCell<OperationLabels>[] = [];
  private readonly registered: Gauge<'group' | 'version' | 'kind'>;
  private readonly events: Counter<'group' | 'version' | 'kind'>;
  private readonly cacheInits: Counter<'resource'>;
  private readonly cacheEvents: Counter<'resource'>;
  private readonly cacheRevision: Gauge<'resource'>;

  constructor(registry: Registry, opts: StorageMetricsOptions) {
    this.byLabel = new Map(opts.resources.map((r) => [storageResourceLabel(r), r]));
    const registers = [registry];
    this.duration = new CollectedHistogram(
      {
        name: 'etcd_request_duration_seconds',
        help: 'Storage request latency in seconds for each operation and object type (the SQLite or etcd store alike).',
        labelNames: ['operation', 'type'],
        buckets: REQUEST_DURATION_BUCKETS,
        registers,
      },
      this.durationCells,
    );
    collectedCounter(registry, 'etcd_requests_total', 'Storage request counts for each operation and object type.', ['operation', 'type'], this.requestCells);
    collectedCounter(registry, 'etcd_request_errors_total', 'Storage request error counts for each operation and object type.', ['operation', 'type'], this.errorCells);
    const countObjects = opts.countObjects;
    const labels = [...this.byLabel.keys()];
    new Gauge({
      name: 'apiserver_storage_objects',
      help: 'Number of stored objects at the time of last check split by kind.',
      labelNames: ['resource'],
      registers,
      async collect() {
        if (!countObjects) return;
        const counts = await Promise.all(labels.map((l) => countObjects(l).catch(() => -1)));
        labels.forEach((resource, i) => this.set({ resource }, counts[i]!));
      },
    });
    this.registered = new Gauge({ name: 'apiserver_registered_watchers', help: 'Number of currently registered watchers for a given resource.', labelNames: ['group', 'version', 'kind'], registers });
    this.events = new Counter({ name: 'apiserver_watch_events_total', help: 'Number of events sent in watch clients.', labelNames: ['group', 'version', 'kind'], registers });
    this.cacheInits = new Counter({ name: 'apiserver_watch_cache_initializations_total', help: 'Counter of watch cache initializations broken by resource type.', labelNames: ['resource'], registers });
    this.cacheEvents = new Counter({ name: 'apiserver_watch_cache_events_received_total', help: 'Counter of events received in watch cache broken by resource type.', labelNames: ['resource'], registers });
    this.cacheRevision = new Gauge({ name: 'apiserver_watch_cache_resource_version', help: 'Current resource version of watch cache broken by resource type.', labelNames: ['resource'], registers });
    for (const [resource, r] of this.byLabel) {
      this.registered.set(this.gvk(r), 0);
      this.cacheRevision.set({ resource }, 0);
    }
  }

  request(operation: StorageOperation, type: string, durationSeconds: number, failed: boolean): void {
    const known = this.byLabel.has(type) ? type : 'unknown';
    const key = `${operation}\0${known}`;
    let series = this.operations.get(key);
    if (!series) {
      const labels = { operation, type: known };
      series = { duration: this.duration.newCell(labels), requests: newCounterCell(labels), errors: undefined };
      this.operations.set(key, series);
      this.durationCells.push(series.duration);
      this.requestCells.push(series.requests);
    }
    this.duration.observeIn(series.duration, durationSeconds);
    series.requests.value++;
    if (failed) {
      if (!series.errors) this.errorCells.push((series.errors = newCounterCell(series.duration.labels)));
      series.errors.value++;
    }
  }

  watchers(resource: string, delta: 1 | -1): void {
    const r = this.byLabel.get(resource);
    if (r) this.registered.inc(this.gvk(r), delta);
  }

  watchEvent(resource: string, count = 1): void {
    const r = this.byLabel.get(resource);
    if (r) this.events.inc(this.gvk(r), count);
  }

  cacheInitialized(resource: string): void {
    if (this.byLabel.has(resource)) this.cacheInits.inc({ resource });
  }

  cacheFeedEnded(): void {
    // Readiness reports it (informer-sync); kube has no metric for it.
  }

  cacheEvent(resource: string, revision: number): void {
    if (!this.byLabel.has(resource)) return;
    this.cacheEvents.inc({ resource });
    this.cacheRevision.set({ resource }, revision);
  }

  private gvk(r: MetricsResource): { group: string; version: string; kind: string } {
    return { group: r.group, version: r.version, kind: r.kind };
  }
}
