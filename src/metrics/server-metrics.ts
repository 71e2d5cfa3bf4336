// The server's Prometheus metrics, in one registry: request, storage, authentication, authorization and audit
// metrics (each recorded through the observer interface of the layer that produces it), the
// ClusterTrustBundle expiry gauge (fed by the controllers' expiry reporter), scheduled snapshot
// metrics (fed by the SQLite store's snapshot schedule), plus the
// process and Node.js runtime metrics (CPU, memory, file descriptors, GC, event-loop lag).
// This is the only module that knows prom-client; main wires it, /metrics renders it.

import { hostname } from 'node:os';
import { collectDefaultMetrics, Counter, Registry } from 'prom-client';
import { CollectedHistogram, collectedCounter, newCounterCell, type CounterCell, type HistogramCell } from './collected-metrics.js';
import type { AdmissionObserver } from '../apimachinery/admission.js';
import type { AuditObserver } from '../auth/audit/audit-observer.js';
import { admissionMetrics } from './admission-metrics.js';
import type { AuthenticationObserver, AuthenticationResult } from '../auth/authentication-observer.js';
import { createAuthnMetrics, hashLabel, type AuthnMetrics } from './authn-metrics.js';
import type { AuthorizationObserver } from '../auth/authorization-observer.js';
import { authorizationMetrics } from './authorization-metrics.js';
import { RequestMetrics, type MetricsResource } from './request-metrics.js';
import { StorageMetrics, type StorageMetricsOptions } from './storage-metrics.js';
import { TrustBundleExpiryMetrics } from './trust-bundle-metrics.js';
import { SnapshotMetrics } from './snapshot-metrics.js';
import { registerStorageSizeMetrics, type StorageSizeSource } from './storage-size-metrics.js';

export interface ServerMetrics {
  readonly requests: RequestMetrics;
  readonly storage: StorageMetrics;
  readonly authentication: AuthenticationObserver;
  /** JWT issuers, the authentication configuration file and the token webhook. */
  readonly authn: AuthnMetrics;
  readonly authorization: AuthorizationObserver;
  readonly audit: AuditObserver;
  /** Each ClusterTrustBundle's earliest certificate expiry (the controllers' TrustBundleExpiryObserver). */
  readonly trustBundleExpiry: TrustBundleExpiryMetrics;
  /** Scheduled snapshots of the SQLite store (the schedule's SnapshotObserver). */
  readonly snapshots: SnapshotMetrics;
  /** Admission steps, plugins, webhooks and policies (admission's AdmissionObserver). */
  readonly admission: AdmissionObserver;
  /** The exposition: Prometheus text format 0.0.4. */
  render(): Promise<{ contentType: string; body: string }>;
}

export interface ServerMetricsOptions {
  /** Every resource requests may name (request labels outside these collapse). */
  resources: readonly MetricsResource[];
  /** The resources kept in storage (storage, watch and watch-cache labels). */
  stored: StorageMetricsOptions['resources'];
  countObjects?: StorageMetricsOptions['countObjects'];
  /** This server's identity, hashed into kube's apiserver_id_hash label (default: one per host). */
  apiserverId?: string;
  /** The store's size (apiserver_storage_size_bytes), read when scraped. */
  storageSize?: StorageSizeSource;
}

export function createServerMetrics(opts: ServerMetricsOptions): ServerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 10 });
  const registers = [registry];
  if (opts.storageSize) registerStorageSizeMetrics(registry, opts.storageSize);
  // Every request is authenticated: its two observations go to our own cells, read by prom-client
  // at scrape time (collected-metrics.ts); the three attempt series exist from the start at 0.
  const results = ['success', 'failure', 'error'] as const;
  const attemptCells = results.map((result) => newCounterCell({ result }));
  const attemptsOf = Object.fromEntries(results.map((r, i) => [r, attemptCells[i]!])) as Record<AuthenticationResult, CounterCell<{ result: string }>>;
  collectedCounter(registry, 'authentication_attempts', 'Counter of authenticated attempts.', ['result'], attemptCells);
  const durationCells: HistogramCell<{ result: string }>[] = [];
  const durationOf: Partial<Record<AuthenticationResult, HistogramCell<{ result: string }>>> = {};
  const authDuration = new CollectedHistogram(
    {
      name: 'authentication_duration_seconds',
      help: 'Authentication duration in seconds broken out by result.',
      labelNames: ['result'],
      buckets: Array.from({ length: 15 }, (_, i) => 0.001 * 2 ** i),
      registers,
    },
    durationCells,
  );
  const auditEvents = new Counter({ name: 'apiserver_audit_event_total', help: 'Counter of audit events generated and sent to the audit backend.', registers });
  const auditErrors = new Counter({ name: 'apiserver_audit_error_total', help: 'Counter of audit events that failed to be audited properly.', labelNames: ['plugin'], registers });
  // One identity for both reload families (authentication and authorization configuration), as in kube.
  const apiserverIdHash = hashLabel(opts.apiserverId ?? `platform-apiserver-${hostname()}`);
  return {
    requests: new RequestMetrics(registry, opts.resources),
    storage: new StorageMetrics(registry, { resources: opts.stored, countObjects: opts.countObjects }),
    trustBundleExpiry: new TrustBundleExpiryMetrics(registry),
    authn: createAuthnMetrics(registry, apiserverIdHash),
    authorization: authorizationMetrics(registry, apiserverIdHash),
    snapshots: new SnapshotMetrics(registry),
    admission: admissionMetrics(registry),
    authentication: {
      attempt(result: AuthenticationResult, durationSeconds: number) {
        const attempts = attemptsOf[result];
        if (!attempts) return;
        attempts.value++;
        let cell = durationOf[result];
        if (!cell) durationCells.push((cell = durationOf[result] = authDuration.newCell({ result })));
        authDuration.observeIn(cell, durationSeconds);
      },
    },
    audit: {
      event: () => auditEvents.inc(),
      error: () => auditErrors.inc({ plugin: 'log' }),
    },
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
