// Shared by the controllers' unit tests: the real ServiceCIDR registry stores over an in-memory
// backend, driven by a fake clock, plus a source wrapper that can break watches on demand.
// Nothing in the server imports this file.

import type { KubeObject } from '../../src/apimachinery/object-meta.js';
import { internalContext, silentLogger, type RequestContext } from '../../src/apimachinery/request-context.js';
import { resourceExpired } from '../../src/apimachinery/status-error.js';
import { GenericStore } from '../../src/registry/generic-store.js';
import type { RestStorage } from '../../src/registry/rest-storage.js';
import type { ResourceDefinition } from '../../src/registry/resource-definition.js';
import { MemoryStore } from '../../src/storage/sqlite/memory-store.js';
import { FakeClock, settle } from '../../src/controllers/fake-clock.js';
import type { ServiceCIDRObject } from '../../src/controllers/service-cidr-api.js';

export interface ServiceCIDRFixture {
  clock: FakeClock;
  storage: MemoryStore;
  main: GenericStore<ServiceCIDRObject>;
  status: GenericStore<ServiceCIDRObject>;
  ctx: RequestContext;
}

/** `definition` is the real ServiceCIDR definition (passed in: this layer may not import resources). */
export function serviceCIDRFixture(definition: ResourceDefinition<ServiceCIDRObject>): ServiceCIDRFixture {
  const clock = new FakeClock();
  const storage = new MemoryStore();
  const now = () => clock.now();
  const statusStrategy = definition.subresources.find((s) => s.name === 'status')!.strategy;
  return {
    clock,
    storage,
    main: new GenericStore({ definition, strategy: definition.strategy, subresource: '', storage, admission: [], now }),
    status: new GenericStore({ definition, strategy: statusStrategy, subresource: 'status', storage, admission: [], now }),
    ctx: internalContext({ username: 'admin', groups: ['system:masters'] }, silentLogger),
  };
}

/** The IPAddress and core Event stores beside a fixture's ServiceCIDRs (the real definitions, passed in). */
export function addressesAndEvents(f: ServiceCIDRFixture, ipAddresses: ResourceDefinition<KubeObject>, events: ResourceDefinition<KubeObject>) {
  const now = () => f.clock.now();
  return {
    ipAddresses: new GenericStore({ definition: ipAddresses, strategy: ipAddresses.strategy, subresource: '', storage: f.storage, admission: [], now }),
    events: new GenericStore({ definition: events, strategy: events.strategy, subresource: '', storage: f.storage, admission: [], now }),
  };
}

/** An IPAddress as kube's allocator writes it (managed-by ipallocator.k8s.io, its family label), or with other labels. */
export const ipAddress = (ip: string, labels: Record<string, string> = { 'ipaddress.kubernetes.io/managed-by': 'ipallocator.k8s.io', 'ipaddress.kubernetes.io/ip-family': ip.includes(':') ? 'IPv6' : 'IPv4' }): KubeObject => ({
  apiVersion: 'networking.platform.io/v1',
  kind: 'IPAddress',
  metadata: { name: ip, labels },
  spec: { parentRef: { resource: 'services', namespace: 'default', name: 'svc' } },
} as KubeObject);

export const serviceCIDR = (name: string, cidrs: string[]): ServiceCIDRObject => ({
  apiVersion: 'networking.platform.io/v1',
  kind: 'ServiceCIDR',
  metadata: { name },
  spec: { cidrs },
});

/** Re-checks `cond` while letting the event loop run, a bounded number of times. */
export async function eventually(cond: () => boolean | Promise<boolean>, what: string, rounds = 200): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    if (await cond()) return;
    await settle(2);
  }
  throw new Error(`never happened: ${what}`);
}

/**
 * A source whose next watches fail: `expireNextWatches` makes watch() answer 410 (as after
 * compaction), `endWatches` ends every open watch stream (as when the server restarts).
 */
export class FlakySource<T extends KubeObject> implements RestStorage<T> {
  expireNext = 0;
  watchCalls = 0;
  listCalls = 0;
  private readonly open = new Set<AbortController>();
  constructor(private readonly inner: RestStorage<T>) {}
  get definition() {
    return this.inner.definition;
  }
  get subresource() {
    return this.inner.subresource;
  }
  get: RestStorage<T>['get'] = (...a) => this.inner.get(...a);
  list: RestStorage<T>['list'] = (...a) => {
    this.listCalls++;
    return this.inner.list(...a);
  };
  create: RestStorage<T>['create'] = (...a) => this.inner.create(...a);
  update: RestStorage<T>['update'] = (...a) => this.inner.update(...a);
  apply: RestStorage<T>['apply'] = (...a) => this.inner.apply(...a);
  delete: RestStorage<T>['delete'] = (...a) => this.inner.delete(...a);
  deleteCollection: RestStorage<T>['deleteCollection'] = (...a) => this.inner.deleteCollection(...a);
  watch: RestStorage<T>['watch'] = async (ctx, query, signal) => {
    this.watchCalls++;
    if (this.expireNext > 0) {
      this.expireNext--;
      throw resourceExpired(`too old resource version: ${query.resourceVersion ?? ''} (999)`);
    }
    const ac = new AbortController();
    signal?.addEventListener('abort', () => ac.abort(), { once: true });
    this.open.add(ac);
    return this.inner.watch(ctx, query, ac.signal);
  };
  /** Ends every open watch, as a server going away would. */
  endWatches(): void {
    for (const ac of this.open) ac.abort();
    this.open.clear();
  }
}
