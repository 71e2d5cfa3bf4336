// Generic-store answers that mutation testing found unpinned (issue #35), on the memory backend:
// reads ahead of the store (kube's 504 "Too large resource version"), remainingItemCount on a
// limited list, the WatchList option rules and a watch from a compacted revision, the verbs the
// status subresource refuses, apply's name rules, and the system fields an update cannot change.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { internalContext, silentLogger, type RequestContext } from '../apimachinery/request-context.js';
import { isStatusError } from '../apimachinery/status-error.js';
import { GenericStore } from './generic-store.js';
import { MemoryStore } from '../storage/sqlite/memory-store.js';
import { serviceCIDRs } from '../resources/servicecidrs/index.js';
import type { ServiceCIDR } from '../resources/servicecidrs/types.js';

const ctx = (): RequestContext => internalContext({ username: 'admin', groups: ['system:masters'] }, silentLogger);
const opts = { fieldManager: 'test' };

function setup() {
  const storage = new MemoryStore();
  const main = new GenericStore<ServiceCIDR>({ definition: serviceCIDRs, strategy: serviceCIDRs.strategy, subresource: '', storage, admission: [] });
  const status = new GenericStore<ServiceCIDR>({ definition: serviceCIDRs, strategy: serviceCIDRs.subresources[0]!.strategy, subresource: 'status', storage, admission: [] });
  return { storage, main, status };
}

const sc = (name: string, i = 0, labels?: Record<string, string>): ServiceCIDR => ({
  apiVersion: 'networking.platform.io/v1',
  kind: 'ServiceCIDR',
  metadata: labels ? { name, labels } : { name },
  spec: { cidrs: [`10.0.${i}.0/24`] },
});

const rejects = (p: Promise<unknown>, code: number, reason: string, message: string, causes?: unknown) =>
  assert.rejects(p, (e: unknown) => {
    assert.ok(isStatusError(e), String(e));
    assert.deepEqual([e.code, e.reason, e.message], [code, reason, message]);
    if (causes !== undefined) assert.deepEqual(e.status.details?.causes, causes);
    return true;
  });

describe('GenericStore reads', () => {
  test('a get or list at a resourceVersion the store has not reached is a 504; at the current one it answers', async () => {
    const { main } = setup();
    const created = await main.create(ctx(), sc('a'), opts);
    const current = Number(created.metadata.resourceVersion);
    const ahead = String(current + 1);
    const tooLarge = `Timeout: Too large resource version: ${ahead}, current: ${current}`;
    await rejects(main.get(ctx(), 'a', { resourceVersion: ahead }), 504, 'Timeout', tooLarge, [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }]);
    await rejects(main.list(ctx(), { resourceVersion: ahead }), 504, 'Timeout', tooLarge);
    assert.deepEqual(await main.get(ctx(), 'a', { resourceVersion: String(current) }), created);
    assert.deepEqual((await main.list(ctx(), { resourceVersion: String(current) })).items, [created]);
  });

  test('a limited list counts the objects left, without selectors only', async () => {
    const { main } = setup();
    for (let i = 0; i < 5; i++) await main.create(ctx(), sc(`s${i}`, i, { n: String(i) }), opts);
    const page = await main.list(ctx(), { limit: 2 });
    assert.deepEqual(page.items.map((o) => o.metadata.name), ['s0', 's1']);
    assert.equal(page.remainingItemCount, 3);
    assert.ok(page.continue);
    const next = await main.list(ctx(), { limit: 2, continue: page.continue });
    assert.deepEqual(next.items.map((o) => o.metadata.name), ['s2', 's3']);
    assert.equal(next.remainingItemCount, 1);
    const last = await main.list(ctx(), { limit: 2, continue: next.continue });
    assert.deepEqual(last.items.map((o) => o.metadata.name), ['s4']);
    assert.deepEqual([last.continue, last.remainingItemCount], [undefined, undefined]);
    const selected = await main.list(ctx(), { limit: 2, labelSelector: 'n!=9' });
    assert.deepEqual(selected.items.map((o) => o.metadata.name), ['s0', 's1']);
    assert.ok(selected.continue);
    assert.equal(selected.remainingItemCount, undefined, 'a count of keys says nothing of how many match a selector');
  });

  test('sendInitialEvents needs resourceVersionMatch=NotOlderThan and bookmarks (422 on ListOptions)', async () => {
    const { main } = setup();
    await rejects(
      main.watch(ctx(), { sendInitialEvents: true }),
      422,
      'Invalid',
      'ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, allowWatchBookmarks: Forbidden: sendInitialEvents requires setting allowWatchBookmarks to true]',
    );
    await rejects(
      main.watch(ctx(), { sendInitialEvents: false, allowWatchBookmarks: false }),
      422,
      'Invalid',
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
    );
    await rejects(
      main.watch(ctx(), { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' }),
      422,
      'Invalid',
      'ListOptions.meta.k8s.io "" is invalid: allowWatchBookmarks: Forbidden: sendInitialEvents requires setting allowWatchBookmarks to true',
    );
    const w = await main.watch(ctx(), { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true });
    w.stop();
  });

  test('a watch from before the compacted revision is 410 Expired', async () => {
    const { main, storage } = setup();
    await main.create(ctx(), sc('a'), opts);
    const b = await main.create(ctx(), sc('b', 1), opts);
    const rv = Number(b.metadata.resourceVersion);
    await storage.compact(rv);
    await rejects(main.watch(ctx(), { resourceVersion: String(rv - 1) }), 410, 'Expired', `too old resource version: ${rv - 1} (${rv})`);
    const w = await main.watch(ctx(), { resourceVersion: String(rv) });
    w.stop();
  });

  test('the status subresource refuses list, watch, delete and delete-collection with 405', async () => {
    const { status } = setup();
    const refused = (verb: string) => `${verb} is not supported on resources of kind "servicecidrs/status.networking.platform.io"`;
    await rejects(status.list(ctx(), {}), 405, 'MethodNotAllowed', refused('list'));
    await rejects(status.watch(ctx(), {}), 405, 'MethodNotAllowed', refused('watch'));
    await rejects(status.delete(ctx(), 'a', {}), 405, 'MethodNotAllowed', refused('delete'));
    await rejects(status.deleteCollection(ctx(), {}, {}), 405, 'MethodNotAllowed', refused('deletecollection'));
  });
});

describe('GenericStore apply and update', () => {
  test("apply creates the object the URL names, refuses a configuration naming another, and a status apply creates nothing", async () => {
    const { main, status } = setup();
    const config = { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: {}, spec: { cidrs: ['10.1.0.0/24'] } };
    const out = await main.apply(ctx(), 'named-by-url', config, { fieldManager: 'applier', force: false });
    assert.equal(out.created, true);
    assert.equal(out.object.metadata.name, 'named-by-url');
    assert.deepEqual(out.object.metadata.managedFields?.map((f) => [f.manager, f.operation]), [['applier', 'Apply']]);
    const again = await main.apply(ctx(), 'named-by-url', config, { fieldManager: 'applier', force: false });
    assert.equal(again.created, false);
    assert.equal(again.object.metadata.resourceVersion, out.object.metadata.resourceVersion, 'the same configuration changes nothing');
    await rejects(
      main.apply(ctx(), 'a', { ...config, metadata: { name: 'b' } }, { fieldManager: 'applier', force: false }),
      400,
      'BadRequest',
      'the name of the object (b) does not match the name on the URL (a)',
    );
    await rejects(
      status.apply(ctx(), 'missing', { ...config, status: {} }, { fieldManager: 'applier', force: false }),
      404,
      'NotFound',
      'servicecidrs.networking.platform.io "missing" not found',
    );
  });

  test('an update cannot change generation, uid, deletionTimestamp or namespace; an empty uid keeps the stored one', async () => {
    const { main } = setup();
    const created = await main.create(ctx(), sc('a'), opts);
    const out = await main.update(
      ctx(),
      'a',
      (cur) => {
        const { uid: _, ...metadata } = cur!.metadata;
        return { ...cur!, metadata: { ...metadata, labels: { l: 'v' }, generation: 7, deletionTimestamp: '2030-01-01T00:00:00Z', namespace: 'default' } };
      },
      opts,
    );
    assert.equal(out.object.metadata.generation, created.metadata.generation);
    assert.equal(out.object.metadata.uid, created.metadata.uid);
    assert.equal(out.object.metadata.deletionTimestamp, undefined);
    assert.equal(out.object.metadata.namespace, undefined);
    assert.deepEqual(out.object.metadata.labels, { l: 'v' });
    assert.deepEqual(await main.get(ctx(), 'a', {}), out.object);
  });

  test('an update of an object being deleted keeps its deletion facts', async () => {
    const { main } = setup();
    await main.create(ctx(), { ...sc('held'), metadata: { name: 'held', finalizers: ['example.com/hold'] } }, opts);
    const marked = (await main.delete(ctx(), 'held', {})).object;
    const out = await main.update(
      ctx(),
      'held',
      (cur) => {
        const { deletionTimestamp: _t, deletionGracePeriodSeconds: _g, ...metadata } = cur!.metadata;
        return { ...cur!, metadata: { ...metadata, labels: { l: 'v' } } };
      },
      opts,
    );
    assert.equal(out.object.metadata.deletionTimestamp, marked.metadata.deletionTimestamp);
    assert.equal(out.object.metadata.deletionGracePeriodSeconds, 0);
    assert.deepEqual(out.object.metadata.finalizers, ['example.com/hold']);
  });

  test('a generateName prefix is cut to 58 characters before the 5 random ones', async () => {
    const { main } = setup();
    const long = 'p'.repeat(70);
    const made = await main.create(ctx(), { ...sc(''), metadata: { generateName: long } }, opts);
    assert.match(made.metadata.name!, new RegExp(`^p{58}[bcdfghjklmnpqrstvwxz2456789]{5}$`));
    assert.equal(made.metadata.generateName, long);
  });
});
