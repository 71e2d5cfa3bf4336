// The generic store over the memory backend with the real ServiceCIDR definition: the
// registry's semantics (order of work, concurrency, finalizers, lists) without HTTP.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { internalContext, silentLogger, type RequestContext } from '../../src/apimachinery/request-context.js';
import { isStatusError } from '../../src/apimachinery/status-error.js';
import { GenericStore } from '../../src/registry/generic-store.js';
import { MemoryStore } from '../../src/storage/sqlite/memory-store.js';
import type { GetOptions } from '../../src/storage/revisioned-store.js';
import { serviceCIDRs } from '../../src/resources/servicecidrs/index.js';
import type { ServiceCIDR } from '../../src/resources/servicecidrs/types.js';

const ctx = (dryRun = false): RequestContext => ({ ...internalContext({ username: 'admin', groups: ['system:masters'] }, silentLogger), dryRun });
const opts = { fieldManager: 'test' };

function setup() {
  const storage = new MemoryStore();
  const main = new GenericStore<ServiceCIDR>({ definition: serviceCIDRs, strategy: serviceCIDRs.strategy, subresource: '', storage, admission: [] });
  const status = new GenericStore<ServiceCIDR>({ definition: serviceCIDRs, strategy: serviceCIDRs.subresources[0]!.strategy, subresource: 'status', storage, admission: [] });
  return { storage, main, status };
}

const sc = (name: string, cidr = '10.0.0.0/24', labels?: Record<string, string>): ServiceCIDR => ({
  apiVersion: 'networking.platform.io/v1',
  kind: 'ServiceCIDR',
  metadata: labels ? { name, labels } : { name },
  spec: { cidrs: [cidr] },
});

const rejects = (p: Promise<unknown>, code: number, reason: string, message?: string) =>
  assert.rejects(p, (e: unknown) => {
    assert.ok(isStatusError(e), String(e));
    assert.equal(e.code, code);
    assert.equal(e.reason, reason);
    if (message) assert.equal(e.message, message);
    return true;
  });

describe('GenericStore', () => {
  test('create fills system fields; get returns it; duplicates are AlreadyExists', async () => {
    const { main } = setup();
    const created = await main.create(ctx(), { ...sc('a'), metadata: { name: 'a', namespace: 'ignored', uid: 'client' } }, opts);
    assert.match(created.metadata.uid!, /^[0-9a-f-]{36}$/);
    assert.notEqual(created.metadata.uid, 'client');
    assert.equal(created.metadata.namespace, undefined);
    assert.equal(created.metadata.generation, 1);
    assert.match(created.metadata.creationTimestamp!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.deepEqual(await main.get(ctx(), 'a', {}), created);
    await rejects(main.create(ctx(), sc('a'), opts), 409, 'AlreadyExists', 'servicecidrs.networking.platform.io "a" already exists');
    await rejects(main.get(ctx(), 'nope', {}), 404, 'NotFound', 'servicecidrs.networking.platform.io "nope" not found');
  });

  test('generated names stay random across refills of the pooled random bytes', async () => {
    const { main } = setup();
    const names = new Set<string>();
    // 1,000 names draw 5,000 bytes: more than one page of the pool.
    for (let i = 0; i < 1000; i++) {
      const g = await main.create(ctx(true), { ...sc(''), metadata: { generateName: 'r-' } }, opts);
      assert.match(g.metadata.name!, /^r-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      names.add(g.metadata.name!);
    }
    // 27^5 possible suffixes: a repeat is unlikely; many would mean the bytes repeat.
    assert.ok(names.size >= 995, `${names.size} distinct names of 1000`);
    const letters = new Set([...names].flatMap((n) => [...n.slice(2)]));
    assert.equal(letters.size, 27);
  });

  test('generateName makes a unique name; invalid objects are 422 with causes', async () => {
    const { main } = setup();
    const g = await main.create(ctx(), { ...sc(''), metadata: { generateName: 'range-' } }, opts);
    assert.match(g.metadata.name!, /^range-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    await assert.rejects(main.create(ctx(), sc('bad', '10.0.0.1/24'), opts), (e: unknown) => {
      assert.ok(isStatusError(e) && e.code === 422);
      assert.deepEqual(e.status.details, {
        name: 'bad',
        group: 'networking.platform.io',
        kind: 'ServiceCIDR',
        causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: "10.0.0.1/24": must not have bits set beyond the prefix length', field: 'spec.cidrs[0]' }],
      });
      return true;
    });
  });

  test('dry run validates and writes nothing', async () => {
    const { main } = setup();
    await main.create(ctx(true), sc('dry'), opts);
    await rejects(main.get(ctx(), 'dry', {}), 404, 'NotFound');
  });

  test('update: stale resourceVersion conflicts, no-op keeps the resourceVersion, unconditional applies', async () => {
    const { main } = setup();
    const created = await main.create(ctx(), sc('u'), opts);
    const labeled = await main.update(ctx(), 'u', () => ({ ...created, metadata: { ...created.metadata, labels: { a: 'b' } } }), opts);
    assert.notEqual(labeled.object.metadata.resourceVersion, created.metadata.resourceVersion);
    await rejects(
      main.update(ctx(), 'u', () => ({ ...created, metadata: { ...created.metadata, labels: { c: 'd' } } }), opts),
      409,
      'Conflict',
      'Operation cannot be fulfilled on servicecidrs.networking.platform.io "u": the object has been modified; please apply your changes to the latest version and try again',
    );
    const same = await main.update(ctx(), 'u', (cur) => cur!, opts);
    assert.equal(same.object.metadata.resourceVersion, labeled.object.metadata.resourceVersion);
    const unconditional = await main.update(ctx(), 'u', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, resourceVersion: undefined, labels: { x: 'y' } } }), opts);
    assert.deepEqual(unconditional.object.metadata.labels, { x: 'y' });
    await rejects(main.update(ctx(), 'missing', (cur) => cur!, opts), 404, 'NotFound');
  });

  test('an update that loses its compare starts again from the version it lost to, without another read', async () => {
    const inner = new MemoryStore();
    let reads = 0;
    const storage = new Proxy(inner, {
      get(target, prop) {
        if (prop === 'get') {
          return (key: string, o?: GetOptions) => {
            reads++;
            return target.get(key, o);
          };
        }
        const v = Reflect.get(target, prop) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const main = new GenericStore<ServiceCIDR>({ definition: serviceCIDRs, strategy: serviceCIDRs.strategy, subresource: '', storage, admission: [] });
    await main.create(ctx(), sc('l'), opts);
    reads = 0;
    const label = (k: string) => main.update(ctx(), 'l', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, resourceVersion: undefined, labels: { ...cur!.metadata.labels, [k]: 'yes' } } }), opts);
    // Both read the same version; the second to write loses the compare and goes again from the first's result.
    await Promise.all([label('one'), label('two')]);
    assert.equal(reads, 2, 'one read each, none for the retry');
    assert.deepEqual((await main.get(ctx(), 'l', {})).metadata.labels, { one: 'yes', two: 'yes' });
  });

  test('concurrent unconditional updates both land (retried internally)', async () => {
    const { main } = setup();
    await main.create(ctx(), sc('c'), opts);
    const add = (k: string) => main.update(ctx(), 'c', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, resourceVersion: undefined, labels: { ...cur!.metadata.labels, [k]: 'yes' } } }), opts);
    await Promise.all([add('one'), add('two'), add('three')]);
    assert.deepEqual((await main.get(ctx(), 'c', {})).metadata.labels, { one: 'yes', two: 'yes', three: 'yes' });
  });

  test('finalizers: delete marks, removing the last finalizer deletes', async () => {
    const { main } = setup();
    await main.create(ctx(), { ...sc('f'), metadata: { name: 'f', finalizers: ['example.com/hold'] } }, opts);
    const marked = await main.delete(ctx(), 'f', {});
    assert.equal(marked.deleted, false);
    assert.ok(marked.object.metadata.deletionTimestamp);
    assert.equal(marked.object.metadata.deletionGracePeriodSeconds, 0);
    await rejects(
      main.update(ctx(), 'f', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, finalizers: ['example.com/hold', 'example.com/new'] } }), opts),
      422,
      'Invalid',
    );
    await main.update(ctx(), 'f', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, finalizers: [] } }), opts);
    await rejects(main.get(ctx(), 'f', {}), 404, 'NotFound');
  });

  test('delete preconditions', async () => {
    const { main } = setup();
    const created = await main.create(ctx(), sc('p'), opts);
    await rejects(
      main.delete(ctx(), 'p', { preconditions: { uid: 'other' } }),
      409,
      'Conflict',
      `Operation cannot be fulfilled on servicecidrs.networking.platform.io "p": Precondition failed: UID in precondition: other, UID in object meta: ${created.metadata.uid}`,
    );
    const done = await main.delete(ctx(), 'p', { preconditions: { uid: created.metadata.uid } });
    assert.equal(done.deleted, true);
  });

  test('lists page over one snapshot with continue tokens and filter by selectors', async () => {
    const { main } = setup();
    for (let i = 0; i < 7; i++) await main.create(ctx(), sc(`item-${i}`, `10.${i}.0.0/16`, { parity: i % 2 ? 'odd' : 'even' }), opts);
    const first = await main.list(ctx(), { limit: 3 });
    assert.deepEqual(first.items.map((o) => o.metadata.name), ['item-0', 'item-1', 'item-2']);
    assert.ok(first.continue);
    await main.delete(ctx(), 'item-4', {});
    const second = await main.list(ctx(), { limit: 3, continue: first.continue });
    assert.deepEqual(second.items.map((o) => o.metadata.name), ['item-3', 'item-4', 'item-5'], 'the snapshot still has item-4');
    assert.equal(second.resourceVersion, first.resourceVersion);
    const last = await main.list(ctx(), { limit: 3, continue: second.continue });
    assert.deepEqual(last.items.map((o) => o.metadata.name), ['item-6']);
    assert.equal(last.continue, undefined);

    const odd = await main.list(ctx(), { labelSelector: 'parity=odd', limit: 2 });
    assert.deepEqual(odd.items.map((o) => o.metadata.name), ['item-1', 'item-3']);
    const byName = await main.list(ctx(), { fieldSelector: 'metadata.name=item-6' });
    assert.deepEqual(byName.items.map((o) => o.metadata.name), ['item-6']);
    await rejects(main.list(ctx(), { fieldSelector: 'spec.cidrs=x' }), 400, 'BadRequest', '"spec.cidrs" is not a known field selector: only "metadata.name", "metadata.namespace"');
    await rejects(main.list(ctx(), { resourceVersionMatch: 'Exact' }), 422, 'Invalid');
    await rejects(main.list(ctx(), { resourceVersion: '999999' }), 504, 'Timeout');
  });

  test('a watch selecting metadata.name sees only that object; a label selector beside it still decides', async () => {
    const { main } = setup();
    const ac = new AbortController();
    const events: string[] = [];
    const byName = await main.watch(ctx(), { resourceVersion: String(await main.list(ctx(), {}).then((l) => l.resourceVersion)), fieldSelector: 'metadata.name=a' }, ac.signal);
    const both = await main.watch(ctx(), { resourceVersion: '1', fieldSelector: 'metadata.name=a', labelSelector: 'tier=x' }, ac.signal);
    byName.start({ next: (e) => (e.type !== 'BOOKMARK' && events.push(`name ${e.type} ${e.object.metadata.name}`), true), end: () => {} });
    both.start({ next: (e) => (e.type !== 'BOOKMARK' && events.push(`name+label ${e.type} ${e.object.metadata.name} ${e.object.metadata.labels?.tier ?? '-'}`), true), end: () => {} });
    await main.create(ctx(), sc('b', '10.1.0.0/24', { tier: 'x' }), opts);
    await main.create(ctx(), sc('a', '10.2.0.0/24'), opts);
    await main.create(ctx(), sc('ab', '10.3.0.0/24', { tier: 'x' }), opts);
    await main.update(ctx(), 'b', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, labels: { tier: 'y' } } }), opts);
    await main.update(ctx(), 'a', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, labels: { tier: 'x' } } }), opts);
    await main.delete(ctx(), 'b', {});
    await main.delete(ctx(), 'a', {});
    ac.abort();
    assert.deepEqual(events, ['name ADDED a', 'name MODIFIED a', 'name+label ADDED a x', 'name DELETED a', 'name+label DELETED a x']);
  });

  test('exact reads at an old revision and expired continue tokens after compaction', async () => {
    const { main, storage } = setup();
    const a = await main.create(ctx(), sc('a'), opts);
    await main.create(ctx(), sc('b', '10.1.0.0/24'), opts);
    const exact = await main.list(ctx(), { resourceVersion: a.metadata.resourceVersion, resourceVersionMatch: 'Exact' });
    assert.deepEqual(exact.items.map((o) => o.metadata.name), ['a']);
    const page = await main.list(ctx(), { limit: 1 });
    await main.update(ctx(), 'a', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, labels: { z: 'z' } } }), opts);
    await storage.compact(await storage.currentRevision());
    await assert.rejects(main.list(ctx(), { limit: 1, continue: page.continue }), (e: unknown) => {
      assert.ok(isStatusError(e) && e.code === 410 && e.reason === 'Expired');
      assert.match(e.message, /^The provided continue parameter is too old/);
      assert.ok(e.status.metadata.continue);
      return true;
    });
  });

  test('the status endpoint changes only status and refuses create', async () => {
    const { main, status } = setup();
    const created = await main.create(ctx(), sc('s'), opts);
    const cond = { type: 'Ready', status: 'True', reason: '', message: 'ok', lastTransitionTime: '2026-11-22T00:00:00Z' };
    const r = await status.update(ctx(), 's', (cur) => ({ ...cur!, spec: { cidrs: ['1.0.0.0/8'] }, status: { conditions: [cond] } }), opts);
    assert.deepEqual(r.object.spec, created.spec);
    assert.deepEqual(r.object.status, { conditions: [cond] });
    assert.equal(r.object.metadata.generation, 1);
    const relabel = await main.update(ctx(), 's', (cur) => ({ ...cur!, status: undefined, metadata: { ...cur!.metadata, labels: { a: 'b' } } }), opts);
    assert.deepEqual(relabel.object.status, { conditions: [cond] }, 'main-resource updates keep status');
    await rejects(status.create(ctx(), sc('x'), opts), 405, 'MethodNotAllowed');
  });
});
