// The server's health checks, named as kube-apiserver names them so probes and dashboards carry
// over. The store is `etcd` whatever the backend (SQLite included): `etcd` (livez, readyz) = it
// answers a read; `etcd-readiness` (readyz) = its last write committed, so a full disk fails
// readiness without failing liveness (a restart would not free the disk). `informer-sync`
// (readyz) = every watch cache follows the store, and `watch-cache/<plural>` says which one
// does not. `shutdown` (readyz) fails once a graceful stop has begun.

import type { HealthCheck, HealthChecks } from '../http/routes/health.js';
import { alwaysOk } from '../http/routes/health.js';

/**
 * A store's health: SQLite knows its own at once (storage's StoreHealth); etcd is asked when a
 * check runs (storage/etcd/etcd-health.ts), so its answers may come later.
 */
interface StoreHealthAnswers {
  liveness(): string | undefined | Promise<string | undefined>;
  readiness(): string | undefined | Promise<string | undefined>;
}

const answersHealth = (store: unknown): store is StoreHealthAnswers =>
  typeof (store as Partial<StoreHealthAnswers>)?.liveness === 'function' && typeof (store as Partial<StoreHealthAnswers>)?.readiness === 'function';

export interface HealthWiring {
  /** The backend store (not a decorator) or etcd's health checks, asked when it offers them. */
  store: unknown;
  /** Each watch cache's state (WatchCache#health()). */
  caches: () => readonly { name: string; ready: boolean; lastError?: string }[];
  /** Present with --authorization-policy-file: '' when the file is good. */
  policyFileProblem?: () => string;
  shuttingDown: () => boolean;
  /** Further checks, e.g. controllers' post-start hooks: poststarthook/<name>. */
  extra?: readonly HealthCheck[];
  /** Checks on /readyz only: a broken file reloaded while serving (a restart would not help). */
  readinessOnly?: readonly HealthCheck[];
}

export function buildHealthChecks(w: HealthWiring): HealthChecks {
  const store = answersHealth(w.store) ? w.store : undefined;
  const etcd: HealthCheck = { name: 'etcd', check: () => store?.liveness() };
  const etcdReadiness: HealthCheck = { name: 'etcd-readiness', check: () => store?.readiness() };
  const informerSync: HealthCheck = {
    name: 'informer-sync',
    check: () => {
      const lagging = w.caches().filter((c) => !c.ready).map((c) => c.name);
      return lagging.length ? `watch caches not following the store: ${lagging.join(', ')}` : undefined;
    },
  };
  // One check per cache as well, so `/readyz?verbose` shows which one and `/readyz/watch-cache/<plural>` why.
  const perCache: HealthCheck[] = w.caches().map(({ name }) => ({
    name: `watch-cache/${name}`,
    check: () => {
      const c = w.caches().find((x) => x.name === name);
      return !c || c.ready ? undefined : (c.lastError ?? 'not ready');
    },
  }));
  const policy: HealthCheck[] = w.policyFileProblem ? [{ name: 'authorization-policy-file', check: () => w.policyFileProblem!() || undefined }] : [];
  const hooks = [alwaysOk('poststarthook/rbac/bootstrap-roles'), alwaysOk('poststarthook/start-watch-caches'), ...(w.extra ?? [])];
  const shutdown: HealthCheck = { name: 'shutdown', check: () => (w.shuttingDown() ? 'process is shutting down' : undefined) };
  return {
    livez: [alwaysOk('ping'), alwaysOk('log'), etcd, ...hooks],
    readyz: [alwaysOk('ping'), alwaysOk('log'), etcd, etcdReadiness, informerSync, ...perCache, ...policy, ...(w.readinessOnly ?? []), ...hooks, shutdown],
  };
}
