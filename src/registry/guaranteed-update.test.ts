// Updates start from the watch cache's copy (or the version this process wrote, if the cache has
// not shown it yet) and read the store only when the copy turns out not to be current (issue
// #34), on the memory backend under a stand-in cache whose copy the test holds back.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { internalContext, silentLogger, type RequestContext } from '../apimachinery/request-context.js';
import { isStatusError } from '../apimachinery/status-error.js';
import { GenericStore } from './generic-store.js';
import { RecentWrites } from './recent-writes.js';
import { MemoryStore } from '../storage/sqlite/memory-store.js';
import { isStorageError, type DeleteResult, type GetOptions, type GetResult, type ListOptions, type ListResult, type PutResult, type RevisionedStore, type StoreWatch, type WatchOptions } from '../storage/revisioned-store.js';
import { serviceCIDRs } from '../resources/servicecidrs/index.js';
import type { ServiceCIDR } from '../resources/servicecidrs/types.js';

const ctx = (dryRun = false): RequestContext => ({ ...internalContext({ username: 'admin', groups: ['system:masters'] }, silentLogger), dryRun });
const opts = { fieldManager: 'test' };

/**
 * The store with a cache in front whose copy can be held back: while `held`, a read "any recent"
 * answers from the copy taken when it was held; else from the store. Counts what reached the store.
 */
class HeldBackCache implements RevisionedStore {
  readonly store = new MemoryStore();
  private copy: Map<string, GetResult> | undefined;
  storeGets = 0;
  puts = 0;
  lostCompares = 0;

  /** The cache stops following the store at its current state for these keys. */
  async hold(...keys: string[]): Promise<void> {
    this.copy = new Map();
    for (const k of keys) this.copy.set(k, await this.store.get(k));
  }

  release(): void {
    this.copy = undefined;
  }

  async get(key: string, o?: GetOptions): Promise<GetResult> {
    if (o?.anyRecent && !o.revision) {
      const held = this.copy?.get(key);
      if (held) return held;
      if (!this.copy) return this.store.get(key);
    }
    this.storeGets++;
    return this.store.get(key, o);
  }
  list(prefix: string, o?: ListOptions): Promise<ListResult> {
    return this.store.list(prefix, o);
  }
  count(prefix: string): Promise<number> {
    return this.store.count(prefix);
  }
  async optimisticPut(key: string, value: Uint8Array, expected: number): Promise<PutResult> {
    this.puts++;
    try {
      return await this.store.optimisticPut(key, value, expected);
    } catch (err) {
      if (isStorageError(err, 'Conflict')) this.lostCompares++;
      throw err;
    }
  }
  optimisticDelete(key: string, expected: number): Promise<DeleteResult> {
    return this.store.optimisticDelete(key, expected);
  }
  watch(prefix: string, o: WatchOptions): StoreWatch {
    return this.store.watch(prefix, o);
  }
  currentRevision(): Promise<number> {
    return this.store.currentRevision();
  }
  compactedRevision(): Promise<number> {
    return this.store.compactedRevision();
  }
  compact(revision: number): Promise<void> {
    return this.store.compact(revision);
  }
  close(): Promise<void> {
    return this.store.close();
  }
}

const statusStrategy = serviceCIDRs.subresources.find((s) => s.name === 'status')!.strategy;

/** One process's stores of the kind (main and /status sharing what they wrote), over `storage`. */
function stores(storage: RevisionedStore) {
  const recentWrites = new RecentWrites();
  return {
    main: new GenericStore<ServiceCIDR>({ definition: serviceCIDRs, strategy: serviceCIDRs.strategy, subresource: '', storage, admission: [], recentWrites }),
    status: new GenericStore<ServiceCIDR>({ definition: serviceCIDRs, strategy: statusStrategy, subresource: 'status', storage, admission: [], recentWrites }),
  };
}

const KEY = '/registry/networking.platform.io/servicecidrs/a';
const sc = (name: string): ServiceCIDR => ({ apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name }, spec: { cidrs: ['10.0.0.0/24'] } });
const addFinalizer = (o: ServiceCIDR | undefined): ServiceCIDR => ({ ...o!, metadata: { ...o!.metadata, finalizers: ['example.com/f'] } });
const readyConfig = (resourceVersion: string) => ({
  apiVersion: 'networking.platform.io/v1',
  kind: 'ServiceCIDR',
  metadata: { name: 'a', resourceVersion },
  status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z', reason: '', message: 'ready' }] },
});

async function setup() {
  const cache = new HeldBackCache();
  const mine = stores(cache);
  const created = await mine.main.create(ctx(), sc('a'), opts);
  cache.storeGets = 0;
  cache.puts = 0;
  return { cache, ...mine, created };
}

describe('updates start from the cache, read the store only when the copy is not current', () => {
  test('a current cache: one write, no read', async () => {
    const { cache, main } = await setup();
    const out = await main.update(ctx(), 'a', addFinalizer, { ...opts, retryOnConflict: true });
    assert.deepEqual(out.object.metadata.finalizers, ['example.com/f']);
    assert.deepEqual({ gets: cache.storeGets, puts: cache.puts }, { gets: 0, puts: 1 });
  });

  test('two writes in a row before the cache shows the first (the status controller): no read, no lost compare', async () => {
    const { cache, main, status } = await setup();
    await cache.hold(KEY);
    const first = await main.update(ctx(), 'a', addFinalizer, { ...opts, retryOnConflict: true });
    // The condition apply names the version it was decided on: the one the first write returned.
    const second = await status.apply(ctx(), 'a', readyConfig(first.object.metadata.resourceVersion!), { fieldManager: 'ctrl', force: true });
    assert.deepEqual(second.object.metadata.finalizers, ['example.com/f']);
    assert.equal(second.object.status?.conditions?.[0]?.type, 'Ready');
    assert.deepEqual({ gets: cache.storeGets, puts: cache.puts, lost: cache.lostCompares }, { gets: 0, puts: 2, lost: 0 });
  });

  test('a copy behind another writer costs one lost compare, no read, and keeps both writes', async () => {
    const { cache, main } = await setup();
    await cache.hold(KEY);
    // Another replica (its own stores, nothing shared with ours) writes meanwhile.
    await stores(cache).main.update(ctx(), 'a', (o) => ({ ...o!, metadata: { ...o!.metadata, labels: { by: 'other' } } }), opts);
    cache.puts = 0;
    const out = await main.update(ctx(), 'a', addFinalizer, { ...opts, retryOnConflict: true });
    assert.deepEqual(out.object.metadata.labels, { by: 'other' });
    assert.deepEqual(out.object.metadata.finalizers, ['example.com/f']);
    assert.deepEqual({ gets: cache.storeGets, puts: cache.puts, lost: cache.lostCompares }, { gets: 0, puts: 2, lost: 1 });
  });

  test('a replace naming the current version succeeds though the cache is behind (read, not a 409)', async () => {
    const { cache, main } = await setup();
    await cache.hold(KEY);
    const moved = await stores(cache).main.update(ctx(), 'a', (o) => ({ ...o!, metadata: { ...o!.metadata, labels: { by: 'other' } } }), opts);
    const rv = moved.object.metadata.resourceVersion!;
    const out = await main.update(ctx(), 'a', () => ({ ...sc('a'), metadata: { name: 'a', resourceVersion: rv, labels: { by: 'me' } } }), opts);
    assert.deepEqual(out.object.metadata.labels, { by: 'me' });
    assert.equal(cache.storeGets, 1);
  });

  test('a replace naming an old version is a 409, whatever the cache shows', async () => {
    const { cache, main, created } = await setup();
    await stores(cache).main.update(ctx(), 'a', (o) => ({ ...o!, metadata: { ...o!.metadata, labels: { by: 'other' } } }), opts);
    await cache.hold(KEY); // the cache now holds the newer version
    const stale = created.metadata.resourceVersion!;
    await assert.rejects(main.update(ctx(), 'a', () => ({ ...sc('a'), metadata: { name: 'a', resourceVersion: stale } }), opts), (e: unknown) => isStatusError(e) && e.code === 409);
  });

  test('an update that changes nothing on a copy that is behind answers with the current version', async () => {
    const { cache, main } = await setup();
    await cache.hold(KEY);
    const moved = await stores(cache).main.update(ctx(), 'a', addFinalizer, { ...opts, retryOnConflict: true });
    cache.puts = 0;
    // Nothing to change on the held copy (no finalizer there, none wanted): the store decides.
    const out = await main.update(ctx(), 'a', (o) => o!, { ...opts, retryOnConflict: true });
    assert.equal(out.object.metadata.resourceVersion, moved.object.metadata.resourceVersion);
    assert.deepEqual(out.object.metadata.finalizers, ['example.com/f']);
    assert.equal(cache.puts, 0);
  });

  test('an object the cache does not show yet is read from the store; one the store no longer has is a 404', async () => {
    const cache = new HeldBackCache();
    const mine = stores(cache);
    await cache.hold(KEY); // before the create: the cache shows nothing
    await stores(cache).main.create(ctx(), sc('a'), opts);
    const out = await mine.main.update(ctx(), 'a', addFinalizer, { ...opts, retryOnConflict: true });
    assert.deepEqual(out.object.metadata.finalizers, ['example.com/f']);

    await cache.hold(KEY); // the cache shows it; the store then loses it
    await cache.store.optimisticDelete(KEY, Number(out.object.metadata.resourceVersion));
    await assert.rejects(stores(cache).main.update(ctx(), 'a', addFinalizer, { ...opts, retryOnConflict: true }), (e: unknown) => isStatusError(e) && e.code === 404);
  });

  test('a dry run reads the store', async () => {
    const { cache, main } = await setup();
    await main.update(ctx(true), 'a', addFinalizer, { ...opts, retryOnConflict: true });
    assert.equal(cache.storeGets, 1);
    assert.equal(cache.puts, 0);
  });
});

describe('RecentWrites', () => {
  test('a version is kept until the cache reaches it, and at most maxKeys of them', () => {
    const r = new RecentWrites(2);
    const kv = (key: string, rev: number) => ({ key, value: new Uint8Array(), createRevision: 1, modRevision: rev });
    r.wrote(kv('a', 5));
    assert.equal(r.ahead('a', 4)?.modRevision, 5);
    assert.equal(r.ahead('a', 5), undefined);
    assert.equal(r.size, 0);
    r.wrote(kv('a', 6));
    r.wrote(kv('b', 7));
    r.wrote(kv('c', 8));
    assert.equal(r.size, 2);
    assert.equal(r.ahead('a', 0), undefined, 'the oldest went first');
    r.forget('b');
    assert.equal(r.ahead('b', 0), undefined);
  });

  test('bounded by the bytes held, and a lookup drops every write the cache has shown', () => {
    const r = new RecentWrites(100, 10);
    const kv = (key: string, rev: number, bytes: number) => ({ key, value: new Uint8Array(bytes), createRevision: 1, modRevision: rev });
    r.wrote(kv('a', 1, 4));
    r.wrote(kv('b', 2, 4));
    r.wrote(kv('c', 3, 4));
    assert.deepEqual({ size: r.size, bytes: r.heldBytes }, { size: 2, bytes: 8 }, 'the oldest went to stay within 10 bytes');
    r.wrote(kv('d', 4, 1));
    r.wrote(kv('e', 5, 1));
    assert.equal(r.ahead('e', 4)?.modRevision, 5);
    assert.deepEqual({ size: r.size, bytes: r.heldBytes }, { size: 1, bytes: 1 }, 'b, c and d, which the cache has shown, are gone');
    r.wrote(kv('e', 6, 2));
    assert.deepEqual({ size: r.size, bytes: r.heldBytes }, { size: 1, bytes: 2 }, 'a key written again is counted once');
  });
});

describe('a read the store answers uses the cache\'s copy of the same version', () => {
  test('decoded once for every read of a version, and never a copy whose bytes differ', async () => {
    const { cache, main } = await setup();
    await cache.hold(KEY);
    const a = await main.get(ctx(), 'a', {});
    const b = await main.get(ctx(), 'a', {});
    assert.equal(cache.storeGets, 2, 'both reads went to the store');
    assert.equal(a, b, 'the same shared object: decoded once');

    // A copy at the same revision with other bytes (a store whose history went back): not used.
    const held = (await cache.store.get(KEY)).kv!;
    const other = { ...held, value: new TextEncoder().encode(JSON.stringify({ ...JSON.parse(new TextDecoder().decode(held.value)), spec: { cidrs: ['10.9.9.0/24'] } })) };
    (cache as unknown as { copy: Map<string, GetResult> }).copy.set(KEY, { kv: other, revision: held.modRevision });
    assert.deepEqual((await main.get(ctx(), 'a', {})).spec?.cidrs, ['10.0.0.0/24']);
  });
});

describe('a stale decision on a copy older than this process\'s own write', () => {
  test('is a 409 without a read (the status controller deciding on its informer\'s older copy)', async () => {
    const { cache, main, status, created } = await setup();
    await cache.hold(KEY);
    await main.update(ctx(), 'a', addFinalizer, { ...opts, retryOnConflict: true });
    // Decided on the version before the finalizer (the informer has not shown the write yet).
    await assert.rejects(status.apply(ctx(), 'a', readyConfig(created.metadata.resourceVersion!), { fieldManager: 'ctrl', force: true }), (e: unknown) => isStatusError(e) && e.code === 409);
    assert.equal(cache.storeGets, 0);
  });
});
