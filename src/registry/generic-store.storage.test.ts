// What the generic store asks of its storage and what it does with the answers, found unpinned
// by mutation testing (issue #35), over the memory backend behind a stand-in that records each
// call, can hold back a cache's copy, fails a call when told, and lets another writer in just
// before a write: the options reads and lists pass, storage errors as Statuses, the bounded
// retries of creates, updates and deletes, and what a lost race leaves to the next round.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AdmissionPlugin } from '../apimachinery/admission.js';
import { internalContext, silentLogger, type RequestContext } from '../apimachinery/request-context.js';
import { isStatusError } from '../apimachinery/status-error.js';
import { GenericStore } from './generic-store.js';
import { MemoryStore } from '../storage/sqlite/memory-store.js';
import { StorageError, type DeleteResult, type GetOptions, type GetResult, type ListOptions, type ListResult, type PutResult, type RevisionedStore, type StoreWatch, type WatchOptions } from '../storage/revisioned-store.js';
import { serviceCIDRs } from '../resources/servicecidrs/index.js';
import type { ServiceCIDR } from '../resources/servicecidrs/types.js';

const ctx = (dryRun = false): RequestContext => ({ ...internalContext({ username: 'admin', groups: ['system:masters'] }, silentLogger), dryRun });
const opts = { fieldManager: 'test' };
const KEY = (name: string) => `/registry/networking.platform.io/servicecidrs/${name}`;

/** 'get~': a get of any recent copy (the cache's) only. */
type Method = 'get' | 'get~' | 'list' | 'put' | 'delete' | 'currentRevision' | 'compactedRevision';

/** The memory store behind a recorder that can fail calls, hold back a cache copy and run code before a write. */
class Scripted implements RevisionedStore {
  readonly store = new MemoryStore();
  /** Each call: consistent gets ('get'), gets any recent ('get~'), lists with their options, writes. */
  readonly calls: string[] = [];
  readonly listOptions: (ListOptions | undefined)[] = [];
  private readonly failing = new Map<Method, { err: StorageError; times: number }>();
  private cache: Map<string, GetResult> | undefined;
  /** Run once just before the next put (or delete) reaches the store: another writer's turn. */
  beforePut: (() => Promise<void>) | undefined;
  beforeDelete: (() => Promise<void>) | undefined;
  afterList: (() => Promise<void>) | undefined;

  fail(method: Method, err: StorageError, times = 1): void {
    this.failing.set(method, { err, times });
  }
  private check(method: Method): void {
    const f = this.failing.get(method);
    if (!f || f.times <= 0) return;
    f.times--;
    throw f.err;
  }
  /** A cache that stops following the store at its current state for these keys. */
  async hold(...keys: string[]): Promise<void> {
    this.cache = new Map();
    for (const k of keys) this.cache.set(k, await this.store.get(k));
  }
  /** How many calls of this kind were recorded. */
  n(of: string): number {
    return this.calls.filter((c) => c === of).length;
  }

  async get(key: string, o?: GetOptions): Promise<GetResult> {
    this.calls.push(o?.anyRecent ? 'get~' : 'get');
    this.check('get');
    if (o?.anyRecent) this.check('get~');
    if (o?.anyRecent && this.cache?.has(key)) return this.cache.get(key)!;
    return this.store.get(key, o);
  }
  async list(prefix: string, o?: ListOptions): Promise<ListResult> {
    this.calls.push('list');
    this.listOptions.push(o && { ...o });
    this.check('list');
    const out = await this.store.list(prefix, o);
    const after = this.afterList;
    this.afterList = undefined;
    await after?.();
    return out;
  }
  count(prefix: string): Promise<number> {
    return this.store.count(prefix);
  }
  async optimisticPut(key: string, value: Uint8Array, expected: number): Promise<PutResult> {
    const before = this.beforePut;
    this.beforePut = undefined;
    await before?.();
    this.calls.push('put');
    this.check('put');
    return this.store.optimisticPut(key, value, expected);
  }
  async optimisticDelete(key: string, expected: number): Promise<DeleteResult> {
    const before = this.beforeDelete;
    this.beforeDelete = undefined;
    await before?.();
    this.calls.push('delete');
    this.check('delete');
    return this.store.optimisticDelete(key, expected);
  }
  watch(prefix: string, o: WatchOptions): StoreWatch {
    return this.store.watch(prefix, o);
  }
  async currentRevision(): Promise<number> {
    this.calls.push('currentRevision');
    this.check('currentRevision');
    return this.store.currentRevision();
  }
  async compactedRevision(): Promise<number> {
    this.calls.push('compactedRevision');
    this.check('compactedRevision');
    return this.store.compactedRevision();
  }
  compact(revision: number): Promise<void> {
    return this.store.compact(revision);
  }
  close(): Promise<void> {
    return this.store.close();
  }
}

function setup(admission: AdmissionPlugin[] = []) {
  const storage = new Scripted();
  const main = new GenericStore<ServiceCIDR>({ definition: serviceCIDRs, strategy: serviceCIDRs.strategy, subresource: '', storage, admission });
  /** A second store over the same data, as another writer (another replica) sees it. */
  const other = new GenericStore<ServiceCIDR>({ definition: serviceCIDRs, strategy: serviceCIDRs.strategy, subresource: '', storage: storage.store, admission: [] });
  return { storage, main, other };
}

const sc = (name: string, i = 0, labels?: Record<string, string>): ServiceCIDR => ({
  apiVersion: 'networking.platform.io/v1',
  kind: 'ServiceCIDR',
  metadata: labels ? { name, labels } : { name },
  spec: { cidrs: [`10.${Math.floor(i / 250)}.${i % 250}.0/24`] },
});
const labelled = (value: string) => (cur: ServiceCIDR | undefined): ServiceCIDR => ({ ...cur!, metadata: { ...cur!.metadata, labels: { l: value } } });

const rejects = (p: Promise<unknown>, code: number, message: string) =>
  assert.rejects(p, (e: unknown) => {
    assert.ok(isStatusError(e), String(e));
    assert.deepEqual([e.code, e.message], [code, message]);
    return true;
  });

const unavailable = () => new StorageError('Unavailable', 'etcdserver: no leader');

describe('GenericStore reads through its storage', () => {
  test('a get at resourceVersion 0 answers from the cache; without one, from the store, unless the cache holds that very version', async () => {
    const { main, storage, other } = setup();
    const first = await main.create(ctx(), sc('a'), opts);
    await storage.hold(KEY('a'), KEY('late'));
    const second = (await other.update(ctx(), 'a', labelled('x'), opts)).object;
    // The cache's (older) copy at "0"; the store's at "" (a cache that is behind is not the answer).
    assert.deepEqual(await main.get(ctx(), 'a', { resourceVersion: '0' }), first);
    assert.deepEqual(await main.get(ctx(), 'a', {}), second);
    // An object the cache does not show yet is still the store's answer.
    const late = await other.create(ctx(), sc('late', 1), opts);
    assert.deepEqual(await main.get(ctx(), 'late', {}), late);
    // Neither asks the store for its revision; a resourceVersion other than 0 does.
    storage.calls.length = 0;
    await main.get(ctx(), 'a', {});
    await main.get(ctx(), 'a', { resourceVersion: '0' });
    assert.equal(storage.n('currentRevision'), 0);
    await main.get(ctx(), 'a', { resourceVersion: second.metadata.resourceVersion! });
    assert.equal(storage.n('currentRevision'), 1);
  });

  test("a get answers the store's version, not the cache's copy of the same bytes at an older revision", async () => {
    const { main, storage, other } = setup();
    await main.create(ctx(), sc('a'), opts);
    await other.update(ctx(), 'a', labelled('x'), opts);
    await storage.hold(KEY('a'));
    await other.update(ctx(), 'a', labelled('y'), opts);
    // Back to the bytes the cache holds, at a newer revision.
    const back = (await other.update(ctx(), 'a', labelled('x'), opts)).object;
    const got = await main.get(ctx(), 'a', {});
    assert.equal(got.metadata.resourceVersion, back.metadata.resourceVersion);
    assert.deepEqual(got, back);
  });

  test("a get whose look at the cache's copy fails answers the store's copy", async () => {
    const { main, storage } = setup();
    const created = await main.create(ctx(), sc('a'), opts);
    storage.fail('get~', unavailable());
    assert.deepEqual(await main.get(ctx(), 'a', {}), created);
    assert.deepEqual(storage.calls.slice(-2), ['get', 'get~']);
  });

  test('storage errors on reads are Statuses (503), not missing objects', async () => {
    const { main, storage } = setup();
    await main.create(ctx(), sc('a'), opts);
    storage.fail('get', unavailable());
    await rejects(main.get(ctx(), 'a', {}), 503, 'etcdserver: no leader');
    storage.fail('currentRevision', unavailable());
    await rejects(main.get(ctx(), 'a', { resourceVersion: '1' }), 503, 'etcdserver: no leader');
    storage.fail('list', unavailable());
    await rejects(main.list(ctx(), {}), 503, 'etcdserver: no leader');
  });

  test('a list that storage refuses names the revision asked for: the exact one as sent, or the continue token\'s', async () => {
    const { main, storage } = setup();
    for (let i = 0; i < 3; i++) await main.create(ctx(), sc(`s${i}`, i), opts);
    // Beyond a double's precision: the revision named is the one sent, digit for digit.
    const huge = '9007199254740993';
    await rejects(
      main.list(ctx(), { resourceVersion: huge, resourceVersionMatch: 'Exact' }),
      504,
      `Timeout: Too large resource version: ${huge}, current: ${await storage.store.currentRevision()}`,
    );
    const page = await main.list(ctx(), { limit: 1 });
    const at = page.resourceVersion;
    storage.fail('list', new StorageError('Compacted', 'compacted', undefined, undefined, 99));
    await rejects(main.list(ctx(), { limit: 1, continue: page.continue }), 410, `too old resource version: ${at} (99)`);
  });

  test('the options a list passes: pages of at least 100 keys, a cache read only at resourceVersion 0 without a snapshot, counts only when limited without selectors', async () => {
    const { main, storage } = setup();
    for (let i = 0; i < 3; i++) await main.create(ctx(), sc(`s${i}`, i), opts);
    const listed = async (q: Parameters<typeof main.list>[1]) => {
      storage.listOptions.length = 0;
      const out = await main.list(ctx(), q);
      return { out, o: storage.listOptions };
    };
    const plain = await listed({});
    assert.equal(plain.o.length, 1, 'one read for an unlimited list');
    assert.deepEqual([plain.o[0]!.anyRecent, plain.o[0]!.countRemaining, plain.o[0]!.limit], [false, false, 0]);
    assert.deepEqual(Object.keys(plain.out), ['items', 'resourceVersion']);
    const zero = await listed({ resourceVersion: '0' });
    assert.equal(zero.o[0]!.anyRecent, true);
    const exact = await listed({ resourceVersion: plain.out.resourceVersion });
    assert.equal(exact.o[0]!.anyRecent, false);
    const limited = await listed({ limit: 2 });
    assert.deepEqual([limited.o[0]!.limit, limited.o[0]!.countRemaining, limited.o[0]!.anyRecent], [100, true, false]);
    // A continue token's snapshot is read exactly, whatever resourceVersion came with it.
    const next = await listed({ limit: 2, continue: limited.out.continue, resourceVersion: '0' });
    assert.deepEqual([next.o[0]!.anyRecent, next.o[0]!.revision], [false, Number(limited.out.resourceVersion)]);
    const selected = await listed({ limit: 1, labelSelector: 'n!=1' });
    assert.equal(selected.o[0]!.countRemaining, false);
    assert.equal(Object.hasOwn(selected.out, 'remainingItemCount'), false, 'no count with a selector');
  });

  test('a negative limit lists everything; a limit of exactly what is there leaves no continue token', async () => {
    const { main } = setup();
    for (let i = 0; i < 3; i++) await main.create(ctx(), sc(`s${i}`, i), opts);
    assert.equal((await main.list(ctx(), { limit: -1 })).items.length, 3);
    const all = await main.list(ctx(), { limit: 3 });
    assert.equal(all.items.length, 3);
    assert.deepEqual([all.continue, Object.hasOwn(all, 'remainingItemCount')], [undefined, false]);
  });

  test("a name selector reads and watches that name's keys only: an undecodable value elsewhere is never decoded", async () => {
    const { main, storage } = setup();
    await main.create(ctx(), sc('a'), opts);
    const garbage = new TextEncoder().encode('not an object');
    await storage.store.optimisticPut(KEY('zz'), garbage, 0);
    assert.deepEqual((await main.list(ctx(), { fieldSelector: 'metadata.name=a' })).items.map((o) => o.metadata.name), ['a']);
    assert.equal(storage.listOptions.length, 1);
    await assert.rejects(main.list(ctx(), {}), 'the whole collection does decode it');
    const w = await main.watch(ctx(), { resourceVersion: String(await storage.store.currentRevision()), fieldSelector: 'metadata.name=c' });
    const seen: string[] = [];
    w.start({ next: (e) => (e.type !== 'BOOKMARK' && seen.push(`${e.type} ${e.object.metadata.name}`), true), end: () => {} });
    await storage.store.optimisticPut(KEY('zy'), garbage, 0);
    await main.create(ctx(), sc('c', 1), opts);
    for (let i = 0; i < 200 && seen.length < 1; i++) await new Promise((r) => setTimeout(r, 10));
    w.stop();
    assert.deepEqual(seen, ['ADDED c']);
  });

  test('a name that sorts before any letter is listed (a list without continue starts at the first key)', async () => {
    const { main } = setup();
    await main.create(ctx(), sc('0-first'), opts);
    await main.create(ctx(), sc('a', 1), opts);
    assert.deepEqual((await main.list(ctx(), {})).items.map((o) => o.metadata.name), ['0-first', 'a']);
  });
});

describe('GenericStore lists over many pages', () => {
  test('a limited list with a selector reads on past the first page; a count covers the keys past the page read', async () => {
    const { main, storage } = setup();
    // Written straight into the store: 130 objects, every tenth labelled.
    for (let i = 0; i < 130; i++) {
      const name = `o${String(i).padStart(3, '0')}`;
      const obj = { ...sc(name, i, i % 10 === 9 ? { pick: 'yes' } : undefined), metadata: { ...sc(name, i).metadata, ...(i % 10 === 9 ? { labels: { pick: 'yes' } } : {}), uid: `u${i}`, creationTimestamp: '2026-01-01T00:00:00Z', generation: 1 } };
      await storage.store.optimisticPut(KEY(name), new TextEncoder().encode(JSON.stringify(obj)), 0);
    }
    const counted = await main.list(ctx(), { limit: 2 });
    assert.deepEqual(counted.items.map((o) => o.metadata.name), ['o000', 'o001']);
    assert.equal(counted.remainingItemCount, 128);
    storage.listOptions.length = 0;
    const picked = await main.list(ctx(), { limit: 12, labelSelector: 'pick=yes' });
    assert.deepEqual(picked.items.map((o) => o.metadata.name), ['o009', 'o019', 'o029', 'o039', 'o049', 'o059', 'o069', 'o079', 'o089', 'o099', 'o109', 'o119']);
    assert.equal(storage.listOptions.length, 2, 'two pages of 100 keys');
    assert.equal(storage.listOptions[1]!.startAfter, KEY('o099'));
    assert.ok(picked.continue);
    const rest = await main.list(ctx(), { limit: 12, labelSelector: 'pick=yes', continue: picked.continue });
    assert.deepEqual(rest.items.map((o) => o.metadata.name), ['o129']);
    assert.equal(rest.continue, undefined);
    // A page after the first refused: the revision named is the snapshot the first page was read at.
    const at = await storage.store.currentRevision();
    storage.afterList = async () => storage.fail('list', new StorageError('Compacted', 'compacted', undefined, undefined, 99));
    await rejects(main.list(ctx(), { limit: 12, labelSelector: 'pick=yes' }), 410, `too old resource version: ${at} (99)`);
    // Unlimited: one read of everything.
    storage.listOptions.length = 0;
    assert.equal((await main.list(ctx(), { labelSelector: 'pick=yes' })).items.length, 13);
    assert.equal(storage.listOptions.length, 1);
  });
});

describe('GenericStore writes through its storage', () => {
  test('a create whose generated name is taken tries another, a bounded number of times; a named one is AlreadyExists at once', async () => {
    const { main, storage } = setup();
    const taken = () => new StorageError('KeyExists', 'key exists');
    storage.fail('put', taken(), 1);
    const made = await main.create(ctx(), { ...sc(''), metadata: { generateName: 'g-' } }, opts);
    assert.match(made.metadata.name!, /^g-[a-z0-9]{5}$/);
    assert.equal(storage.n('put'), 2);
    storage.calls.length = 0;
    storage.fail('put', taken(), 1000);
    await assert.rejects(main.create(ctx(), { ...sc(''), metadata: { generateName: 'g-' } }, opts), (e: unknown) => isStatusError(e) && e.code === 409 && e.reason === 'AlreadyExists');
    assert.equal(storage.n('put'), 9, 'the first try and 8 more');
    storage.calls.length = 0;
    storage.fail('put', taken(), 1);
    // A name given (a generateName beside it changes nothing) is the client's: no other is tried.
    await rejects(main.create(ctx(), { ...sc('named'), metadata: { name: 'named', generateName: 'g-' } }, opts), 409, 'servicecidrs.networking.platform.io "named" already exists');
    assert.equal(storage.n('put'), 1);
  });

  test('an update naming the version it read is a 409 when another write comes first; one naming none is done again', async () => {
    const { main, storage, other } = setup();
    await main.create(ctx(), sc('a'), opts);
    storage.beforePut = async () => void (await other.update(ctx(), 'a', labelled('other'), opts));
    await rejects(main.update(ctx(), 'a', labelled('mine'), opts), 409, 'Operation cannot be fulfilled on servicecidrs.networking.platform.io "a": the object has been modified; please apply your changes to the latest version and try again');
    storage.beforePut = async () => void (await other.update(ctx(), 'a', labelled('other2'), opts));
    const out = await main.update(
      ctx(),
      'a',
      (cur) => {
        const { resourceVersion: _, ...metadata } = cur!.metadata;
        return { ...cur!, metadata: { ...metadata, labels: { l: 'mine' } } };
      },
      opts,
    );
    assert.deepEqual(out.object.metadata.labels, { l: 'mine' });
  });

  test('an apply that loses its compare applies again to the version it lost to; one to an object deleted meanwhile creates it', async () => {
    const { main, storage, other } = setup();
    const config = { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'a', labels: { applied: 'yes' } }, spec: { cidrs: ['10.0.0.0/24'] } };
    await main.apply(ctx(), 'a', config, { fieldManager: 'applier', force: false });
    storage.beforePut = async () => void (await other.update(ctx(), 'a', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, annotations: { by: 'other' } } }), opts));
    const again = await main.apply(ctx(), 'a', { ...config, metadata: { name: 'a', labels: { applied: 'again' } } }, { fieldManager: 'applier', force: false });
    assert.equal(again.created, false);
    assert.deepEqual([again.object.metadata.labels, again.object.metadata.annotations], [{ applied: 'again' }, { by: 'other' }]);
    storage.beforePut = async () => void (await other.delete(ctx(), 'a', {}));
    storage.calls.length = 0;
    const recreated = await main.apply(ctx(), 'a', { ...config, metadata: { name: 'a', labels: { applied: 'third' } } }, { fieldManager: 'applier', force: false });
    assert.equal(recreated.created, true);
    assert.deepEqual(recreated.object.metadata.labels, { applied: 'third' });
    assert.equal(storage.n('get'), 0, 'the failed write said the object is gone: no read');
  });

  test('an apply that would create an object another writer creates first applies to theirs; one that would create an invalid object is a 422', async () => {
    const { main, storage, other } = setup();
    const config = { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'a', labels: { applied: 'yes' } }, spec: { cidrs: ['10.0.0.0/24'] } };
    storage.beforePut = async () => void (await other.create(ctx(), { ...sc('a'), metadata: { name: 'a', annotations: { by: 'other' } } }, opts));
    const out = await main.apply(ctx(), 'a', config, { fieldManager: 'applier', force: false });
    assert.equal(out.created, false);
    assert.deepEqual([out.object.metadata.labels, out.object.metadata.annotations], [{ applied: 'yes' }, { by: 'other' }]);
    storage.calls.length = 0;
    await assert.rejects(
      main.apply(ctx(), 'bad', { ...config, metadata: { name: 'bad' }, spec: { cidrs: ['not-a-cidr'] } }, { fieldManager: 'applier', force: false }),
      (e: unknown) => isStatusError(e) && e.code === 422,
    );
    assert.equal(storage.n('put'), 0);
  });

  test('a lost compare starts the next round from the version it lost to as current: a round that then changes nothing reads nothing', async () => {
    const { main, storage, other } = setup();
    await main.create(ctx(), sc('a'), opts);
    await main.get(ctx(), 'a', {});
    storage.beforePut = async () => void (await other.update(ctx(), 'a', labelled('same'), opts));
    storage.calls.length = 0;
    const out = await main.update(ctx(), 'a', labelled('same'), { ...opts, retryOnConflict: true });
    assert.deepEqual(out.object.metadata.labels, { l: 'same' });
    assert.equal(out.created, false);
    assert.equal(storage.n('get'), 0, 'no read of the store');
  });

  test('an update refused or changing nothing computes once when the copy was current, and a dry run on the store\'s version reads once', async () => {
    const { main, storage } = setup();
    await main.create(ctx(), sc('a'), opts);
    let calls = 0;
    const invalid = (cur: ServiceCIDR | undefined) => (calls++, { ...cur!, metadata: { ...cur!.metadata, labels: { 'not a label': 'x' } } });
    await assert.rejects(main.update(ctx(), 'a', invalid, opts), (e: unknown) => isStatusError(e) && e.code === 422);
    assert.equal(calls, 1);
    calls = 0;
    const same = (cur: ServiceCIDR | undefined) => (calls++, cur!);
    const out = await main.update(ctx(), 'a', same, opts);
    assert.deepEqual([calls, out.created], [1, false]);
    storage.calls.length = 0;
    await assert.rejects(main.update(ctx(true), 'a', invalid, opts), (e: unknown) => isStatusError(e) && e.code === 422);
    assert.equal(storage.n('get'), 1);
    storage.calls.length = 0;
    const dry = await main.update(ctx(true), 'a', same, opts);
    assert.deepEqual([storage.n('get'), dry.created], [1, false]);
  });

  test('an update that always loses its compare ends in a 409 after 101 tries', { timeout: 60_000 }, async () => {
    const { main, storage } = setup();
    const created = await main.create(ctx(), sc('a'), opts);
    const current = (await storage.store.get(KEY('a'))).kv!;
    storage.calls.length = 0;
    storage.fail('put', new StorageError('Conflict', 'lost', KEY('a'), current), 1_000);
    await rejects(main.update(ctx(), 'a', labelled('never'), { ...opts, retryOnConflict: true }), 409, 'Operation cannot be fulfilled on servicecidrs.networking.platform.io "a": the object has been modified; please apply your changes to the latest version and try again');
    assert.equal(storage.n('put'), 101);
    assert.deepEqual(await main.get(ctx(), 'a', {}), created);
  });

  test('a delete that loses its compare reads again and deletes; one that always loses ends in a 409 after 101 tries', { timeout: 60_000 }, async () => {
    const { main, storage, other } = setup();
    await main.create(ctx(), sc('a'), opts);
    storage.beforeDelete = async () => void (await other.update(ctx(), 'a', labelled('meanwhile'), opts));
    const out = await main.delete(ctx(), 'a', {});
    assert.deepEqual([out.deleted, out.object.metadata.labels], [true, { l: 'meanwhile' }]);
    await main.create(ctx(), sc('b'), opts);
    storage.calls.length = 0;
    storage.fail('delete', new StorageError('Conflict', 'lost', KEY('b')), 1_000);
    await rejects(main.delete(ctx(), 'b', {}), 409, 'Operation cannot be fulfilled on servicecidrs.networking.platform.io "b": the object has been modified; please apply your changes to the latest version and try again');
    assert.equal(storage.n('delete'), 101);
  });

  test('delete-collection passes over an object deleted meanwhile, but not a refusal', async () => {
    const { main, storage, other } = setup();
    for (const n of ['a', 'b', 'c']) await main.create(ctx(), sc(n, n.charCodeAt(0)), opts);
    storage.afterList = async () => void (await other.delete(ctx(), 'b', {}));
    const out = await main.deleteCollection(ctx(), {}, {});
    assert.deepEqual(out.items.map((o) => o.metadata.name), ['a', 'c']);
    await main.create(ctx(), sc('d'), opts);
    await rejects(
      main.deleteCollection(ctx(), { preconditions: { uid: 'someone-else' } }, {}),
      409,
      `Operation cannot be fulfilled on servicecidrs.networking.platform.io "d": Precondition failed: UID in precondition: someone-else, UID in object meta: ${(await main.get(ctx(), 'd', {})).metadata.uid}`,
    );
  });

  test('a watch that starts with the current objects at a resourceVersion the store has not reached is a 504', async () => {
    const { main, storage } = setup();
    await main.create(ctx(), sc('a'), opts);
    const ahead = String((await storage.store.currentRevision()) + 1);
    await assert.rejects(
      main.watch(ctx(), { resourceVersion: ahead, sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true }),
      (e: unknown) => isStatusError(e) && e.code === 504,
    );
    storage.listOptions.length = 0;
    const w = await main.watch(ctx(), { resourceVersion: '0' });
    w.stop();
    assert.equal(storage.listOptions[0]!.anyRecent, true, 'resourceVersion 0: the cache as it is');
  });
});
