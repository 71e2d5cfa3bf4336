// Generic-store behaviours the first mutation run of the raised tests still found unpinned
// (issue #35), on the memory backend: a watch's initial events (kube's legacy rule, a label
// selector, sendInitialEvents and its closing bookmark), dry-run and missing-object updates,
// apply naming its object, a continue token at the compacted revision, delete-collection's
// selectors, and a second delete of an object already marked.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { internalContext, silentLogger, type RequestContext } from '../apimachinery/request-context.js';
import { isStatusError } from '../apimachinery/status-error.js';
import { GenericStore } from './generic-store.js';
import type { ObjectWatch, ObjectWatchEvent } from './rest-storage.js';
import { MemoryStore } from '../storage/sqlite/memory-store.js';
import { serviceCIDRs } from '../resources/servicecidrs/index.js';
import type { ServiceCIDR } from '../resources/servicecidrs/types.js';

const ctx = (dryRun = false): RequestContext => ({ ...internalContext({ username: 'admin', groups: ['system:masters'] }, silentLogger), dryRun });
const opts = { fieldManager: 'test' };

function setup() {
  const storage = new MemoryStore();
  const main = new GenericStore<ServiceCIDR>({ definition: serviceCIDRs, strategy: serviceCIDRs.strategy, subresource: '', storage, admission: [] });
  return { storage, main };
}

const sc = (name: string, i: number, labels?: Record<string, string>): ServiceCIDR => ({
  apiVersion: 'networking.platform.io/v1',
  kind: 'ServiceCIDR',
  metadata: labels ? { name, labels } : { name },
  spec: { cidrs: [`10.0.${i}.0/24`] },
});

/** What a watch delivered, as short lines, until `until` holds (every wait bounded). */
async function collect(w: ObjectWatch<ServiceCIDR>, until: (seen: string[]) => boolean): Promise<string[]> {
  const seen: string[] = [];
  const line = (e: ObjectWatchEvent<ServiceCIDR>) => (e.type === 'BOOKMARK' ? `BOOKMARK${e.initialEventsEnd ? ' end' : ''}` : `${e.type} ${e.object.metadata.name}`);
  w.start({ next: (e) => (seen.push(line(e)), true), end: () => {} });
  for (let i = 0; i < 200 && !until(seen); i++) await new Promise((r) => setTimeout(r, 10));
  w.stop();
  return seen;
}

describe('GenericStore watch start', () => {
  test('without a resourceVersion a watch starts with the current objects; from one, only what comes after', async () => {
    const { main } = setup();
    await main.create(ctx(), sc('a', 1), opts);
    const b = await main.create(ctx(), sc('b', 2, { keep: 'yes' }), opts);
    const fromNow = await main.watch(ctx(), {});
    const fromZero = await main.watch(ctx(), { resourceVersion: '0' });
    const fromB = await main.watch(ctx(), { resourceVersion: b.metadata.resourceVersion! });
    const selected = await main.watch(ctx(), { labelSelector: 'keep=yes' });
    await main.create(ctx(), sc('c', 3), opts);
    assert.deepEqual(await collect(fromNow, (s) => s.length >= 3), ['ADDED a', 'ADDED b', 'ADDED c']);
    assert.deepEqual(await collect(fromZero, (s) => s.length >= 3), ['ADDED a', 'ADDED b', 'ADDED c']);
    assert.deepEqual(await collect(fromB, (s) => s.length >= 1), ['ADDED c']);
    assert.deepEqual(await collect(selected, (s) => s.length >= 1), ['ADDED b']);
  });

  test('sendInitialEvents: the current objects, then a bookmark that ends them; false sends none', async () => {
    const { main } = setup();
    const a = await main.create(ctx(), sc('a', 1), opts);
    const initial = await main.watch(ctx(), { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true });
    assert.deepEqual(await collect(initial, (s) => s.includes('BOOKMARK end')), ['ADDED a', 'BOOKMARK end']);
    const none = await main.watch(ctx(), { sendInitialEvents: false, resourceVersionMatch: 'NotOlderThan', resourceVersion: a.metadata.resourceVersion! });
    await main.create(ctx(), sc('b', 2), opts);
    assert.deepEqual(await collect(none, (s) => s.length >= 1), ['ADDED b']);
  });
});

describe('GenericStore writes', () => {
  test('a dry-run update answers the changed object and stores nothing; an update is never a create', async () => {
    const { main } = setup();
    const created = await main.create(ctx(), sc('a', 1), opts);
    const dry = await main.update(ctx(true), 'a', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, labels: { x: 'y' } } }), opts);
    assert.deepEqual([dry.created, dry.object.metadata.labels], [false, { x: 'y' }]);
    assert.deepEqual(await main.get(ctx(), 'a', {}), created);
    const real = await main.update(ctx(), 'a', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, labels: { x: 'z' } } }), opts);
    assert.equal(real.created, false);
    // ServiceCIDRs do not allow create on update: a missing object is a 404 whatever the caller asks.
    await assert.rejects(
      main.update(ctx(), 'missing', () => sc('missing', 9), { ...opts, createIfMissing: true }),
      (e: unknown) => isStatusError(e) && e.code === 404 && e.message === 'servicecidrs.networking.platform.io "missing" not found',
    );
  });

  test('apply accepts a configuration that names the object of the URL', async () => {
    const { main } = setup();
    const config = { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'same' }, spec: { cidrs: ['10.1.0.0/24'] } };
    const out = await main.apply(ctx(), 'same', config, { fieldManager: 'applier', force: false });
    assert.deepEqual([out.created, out.object.metadata.name], [true, 'same']);
  });

  test('a continue token at exactly the compacted revision still pages', async () => {
    const { main, storage } = setup();
    for (let i = 0; i < 3; i++) await main.create(ctx(), sc(`s${i}`, i), opts);
    const first = await main.list(ctx(), { limit: 1 });
    await storage.compact(Number(first.resourceVersion));
    const next = await main.list(ctx(), { limit: 1, continue: first.continue });
    assert.deepEqual(next.items.map((o) => o.metadata.name), ['s1']);
  });

  test('delete-collection deletes what its selectors match, and only that', async () => {
    const { main } = setup();
    await main.create(ctx(), sc('a', 1, { drop: 'yes' }), opts);
    await main.create(ctx(), sc('b', 2), opts);
    await main.create(ctx(), sc('c', 3, { drop: 'yes' }), opts);
    const out = await main.deleteCollection(ctx(), {}, { labelSelector: 'drop=yes', limit: 1 });
    assert.deepEqual(out.items.map((o) => o.metadata.name), ['a', 'c'], 'a limit does not apply to a delete-collection');
    assert.deepEqual((await main.list(ctx(), {})).items.map((o) => o.metadata.name), ['b']);
  });

  test('a second delete of an object already marked for deletion changes nothing', async () => {
    let now = Date.parse('2030-01-01T00:00:00Z');
    const storage = new MemoryStore();
    const main = new GenericStore<ServiceCIDR>({ definition: serviceCIDRs, strategy: serviceCIDRs.strategy, subresource: '', storage, admission: [], now: () => new Date(now) });
    await main.create(ctx(), { ...sc('held', 1), metadata: { name: 'held', finalizers: ['example.com/hold'] } }, opts);
    const first = await main.delete(ctx(), 'held', {});
    now += 60_000;
    const second = await main.delete(ctx(), 'held', {});
    assert.equal(second.deleted, false);
    assert.equal(second.object.metadata.deletionTimestamp, '2030-01-01T00:00:00Z');
    assert.equal(second.object.metadata.resourceVersion, first.object.metadata.resourceVersion, 'not written again');
  });
});
