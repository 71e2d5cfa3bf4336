// The generic store's namespace rules and a kind stored as another (events.k8s.io's Event is
// stored as a core Event), found unpinned by mutation testing (issue #35) because no test in the
// module's list used a namespaced kind: the namespace a request needs, the one a write takes or
// keeps, names as keys within one namespace only, admission's namespace, and the stored shape.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AdmissionAttributes, AdmissionPlugin } from '../apimachinery/admission.js';
import { internalContext, silentLogger, type RequestContext } from '../apimachinery/request-context.js';
import { isStatusError } from '../apimachinery/status-error.js';
import { GenericStore } from './generic-store.js';
import type { ObjectWatch, ObjectWatchEvent } from './rest-storage.js';
import { coreEvents, eventsV1Events } from '../resources/events/index.js';
import type { CoreEvent, EventsV1Event } from '../resources/events/types.js';
import { MemoryStore } from '../storage/sqlite/memory-store.js';

const admin = { username: 'admin', groups: ['system:masters'] };
/** A request in `namespace` ('' for every namespace) of the core API or events.k8s.io. */
const inNs = (namespace: string, events = false): RequestContext =>
  internalContext(admin, silentLogger, events ? { apiPrefix: 'apis', apiGroup: 'events.k8s.io', apiVersion: 'v1', namespace } : { apiPrefix: 'api', apiGroup: '', apiVersion: 'v1', namespace });
const opts = { fieldManager: 'test' };

function setup(admission: AdmissionPlugin[] = []) {
  const storage = new MemoryStore();
  const core = new GenericStore<CoreEvent>({ definition: coreEvents, strategy: coreEvents.strategy, subresource: '', storage, admission });
  const v1 = new GenericStore<EventsV1Event>({ definition: eventsV1Events, strategy: eventsV1Events.strategy, subresource: '', storage, admission });
  return { storage, core, v1 };
}

/** An event about a namespaced object of `namespace` (valid in that namespace). */
const event = (namespace: string, name: string, extra: Partial<CoreEvent['metadata']> = {}): CoreEvent => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name, ...extra },
  involvedObject: { kind: 'Lease', namespace, name: 'holder', apiVersion: 'coordination.k8s.io/v1' },
  reason: 'Tested',
  message: 'a test',
  type: 'Normal',
});

const v1Event = (name: string): EventsV1Event => ({
  apiVersion: 'events.k8s.io/v1',
  kind: 'Event',
  metadata: { name },
  eventTime: '2026-01-01T00:00:00.123456Z',
  reportingController: 'example.com/ctrl',
  reportingInstance: 'ctrl-1',
  action: 'Allocate',
  reason: 'Allocated',
  regarding: { kind: 'IPAddress', name: '10.0.0.1' },
  note: 'allocated',
  type: 'Normal',
});

const rejects = (p: Promise<unknown>, code: number, message: string) =>
  assert.rejects(p, (e: unknown) => {
    assert.ok(isStatusError(e), String(e));
    assert.deepEqual([e.code, e.message], [code, message]);
    return true;
  });

/** What a watch delivered, as `TYPE ns/name` lines, until `until` holds (every wait bounded). */
async function collect<T extends CoreEvent>(w: ObjectWatch<T>, until: (seen: string[]) => boolean): Promise<string[]> {
  const seen: string[] = [];
  w.start({ next: (e: ObjectWatchEvent<T>) => (e.type !== 'BOOKMARK' && seen.push(`${e.type} ${e.object.metadata.namespace}/${e.object.metadata.name}`), true), end: () => {} });
  for (let i = 0; i < 200 && !until(seen); i++) await new Promise((r) => setTimeout(r, 10));
  w.stop();
  return seen;
}

describe('GenericStore namespaces', () => {
  test('every verb on one object of a namespaced kind needs the request to name a namespace (400)', async () => {
    const { core } = setup();
    const none = inNs('');
    const required = 'Namespace parameter required.';
    await rejects(core.get(none, 'a', {}), 400, required);
    await rejects(core.create(none, event('default', 'a'), opts), 400, required);
    await rejects(core.update(none, 'a', (cur) => cur!, opts), 400, required);
    await rejects(core.delete(none, 'a', {}), 400, required);
  });

  test('a create takes the request namespace, refuses another (400) and a namespace that does not exist (404)', async () => {
    const { core, storage } = setup();
    const created = await core.create(inNs('kube-system'), event('kube-system', 'a'), opts);
    assert.equal(created.metadata.namespace, 'kube-system');
    assert.ok((await storage.get('/registry/events/kube-system/a')).kv, 'stored under its namespace');
    const same = await core.create(inNs('default'), event('default', 'a', { namespace: 'default' }), opts);
    assert.equal(same.metadata.namespace, 'default');
    await rejects(
      core.create(inNs('default'), event('default', 'b', { namespace: 'kube-system' }), opts),
      400,
      'the namespace of the provided object does not match the namespace sent on the request',
    );
    await rejects(core.create(inNs('team-a'), event('team-a', 'a'), opts), 404, 'namespaces "team-a" not found');
    await rejects(core.get(inNs('kube-public'), 'a', {}), 404, 'events "a" not found');
  });

  test("an update keeps the object's namespace whatever the client sends, and refuses another one", async () => {
    const { core } = setup();
    const created = await core.create(inNs('default'), event('default', 'a'), opts);
    const out = await core.update(
      inNs('default'),
      'a',
      (cur) => {
        const { namespace: _, ...metadata } = cur!.metadata;
        return { ...cur!, metadata: { ...metadata, labels: { l: 'v' } } };
      },
      opts,
    );
    assert.equal(out.object.metadata.namespace, 'default');
    assert.equal(out.object.metadata.uid, created.metadata.uid);
    assert.equal((await core.get(inNs('default'), 'a', {})).metadata.namespace, 'default');
    await rejects(
      core.update(inNs('default'), 'a', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, namespace: 'kube-public' } }), opts),
      400,
      'the namespace of the provided object does not match the namespace sent on the request',
    );
  });

  test("apply: a configuration naming another namespace is a 400 in the patch's words; its own namespace or none applies", async () => {
    const { core } = setup();
    const config = (metadata: Record<string, unknown>) => ({ ...event('default', 'x'), metadata });
    await assert.rejects(
      core.apply(inNs('default'), 'x', config({ name: 'x', namespace: 'kube-system' }), { fieldManager: 'applier', force: false }),
      (e: unknown) => isStatusError(e) && e.code === 400 && e.message === 'the namespace of the object (kube-system) does not match the namespace on the request (default)',
    );
    const out = await core.apply(inNs('default'), 'x', config({ namespace: 'default' }), { fieldManager: 'applier', force: false });
    assert.equal(out.created, true);
    assert.deepEqual([out.object.metadata.namespace, out.object.metadata.name], ['default', 'x']);
    const again = await core.apply(inNs('default'), 'x', config({}), { fieldManager: 'applier', force: false });
    assert.equal(again.created, false);
    assert.equal(again.object.metadata.resourceVersion, out.object.metadata.resourceVersion);
  });

  test('a name selects one key within a namespace; across namespaces every namespace is read', async () => {
    const { core } = setup();
    for (const ns of ['default', 'kube-system']) for (const n of ['a', 'ab', 'b']) await core.create(inNs(ns), event(ns, n), opts);
    const names = (items: CoreEvent[]) => items.map((e) => `${e.metadata.namespace}/${e.metadata.name}`);
    assert.deepEqual(names((await core.list(inNs(''), { fieldSelector: 'metadata.name=a' })).items), ['default/a', 'kube-system/a']);
    assert.deepEqual(names((await core.list(inNs('kube-system'), { fieldSelector: 'metadata.name=a' })).items), ['kube-system/a']);
    assert.deepEqual(names((await core.list(inNs('default'), {})).items), ['default/a', 'default/ab', 'default/b']);
    const rv = (await core.list(inNs(''), {})).resourceVersion;
    const all = await core.watch(inNs(''), { resourceVersion: rv, fieldSelector: 'metadata.name=c' });
    const one = await core.watch(inNs('kube-system'), { resourceVersion: rv, fieldSelector: 'metadata.name=c' });
    await core.create(inNs('default'), event('default', 'c'), opts);
    await core.create(inNs('kube-system'), event('kube-system', 'c'), opts);
    assert.deepEqual(await collect(all, (s) => s.length >= 2), ['ADDED default/c', 'ADDED kube-system/c']);
    assert.deepEqual(await collect(one, (s) => s.length >= 1), ['ADDED kube-system/c']);
  });

  test('a replace of a missing event creates it, ignoring the version it names; without createIfMissing it is a 404', async () => {
    const { core } = setup();
    const out = await core.update(inNs('default'), 'new', () => event('default', 'new', { resourceVersion: '42' }), { ...opts, createIfMissing: true });
    assert.equal(out.created, true);
    assert.notEqual(out.object.metadata.resourceVersion, '42');
    await rejects(core.update(inNs('default'), 'other', () => event('default', 'other'), opts), 404, 'events "other" not found');
  });

  test("an update keeps the object's generation, or its having none, whatever the client sends", async () => {
    const { core } = setup();
    await core.create(inNs('default'), event('default', 'with', { generation: 3 }), opts);
    await core.create(inNs('default'), event('default', 'without'), opts);
    for (const [name, generation] of [['with', 3], ['without', undefined]] as const) {
      const out = await core.update(inNs('default'), name, (cur) => ({ ...cur!, metadata: { ...cur!.metadata, generation: 9, labels: { l: 'v' } } }), opts);
      assert.equal(out.object.metadata.generation, generation);
      assert.equal((await core.get(inNs('default'), name, {})).metadata.generation, generation);
    }
  });

  test("a create's managedFields own what differs from the kind's zero object, not the zero values sent", async () => {
    const { core } = setup();
    const created = await core.create(inNs('default'), { ...event('default', 'z'), source: {}, reportingComponent: '' }, opts);
    assert.deepEqual(created.metadata.managedFields?.map((f) => f.fieldsV1), [{ 'f:involvedObject': {}, 'f:message': {}, 'f:reason': {}, 'f:type': {} }]);
  });

  test("a name selector within a namespace reads and watches that name's keys only: an undecodable value elsewhere is never decoded", async () => {
    const { core, storage } = setup();
    await core.create(inNs('default'), event('default', 'a'), opts);
    const garbage = new TextEncoder().encode('not an object');
    await storage.optimisticPut('/registry/events/default/zz', garbage, 0);
    const names = (items: CoreEvent[]) => items.map((e) => `${e.metadata.namespace}/${e.metadata.name}`);
    assert.deepEqual(names((await core.list(inNs('default'), { fieldSelector: 'metadata.name=a' })).items), ['default/a']);
    await assert.rejects(core.list(inNs('default'), {}), 'the whole namespace does decode it');
    const rv = String(await storage.currentRevision());
    const one = await core.watch(inNs('default'), { resourceVersion: rv, fieldSelector: 'metadata.name=c' });
    await storage.optimisticPut('/registry/events/default/zy', garbage, 0);
    await core.create(inNs('default'), event('default', 'c'), opts);
    assert.deepEqual(await collect(one, (s) => s.length >= 1), ['ADDED default/c']);
  });

  test('admission is told the namespace of the request', async () => {
    const seen: [string, string, string][] = [];
    const plugin: AdmissionPlugin = {
      name: 'Recorder',
      admit: async (a: AdmissionAttributes) => void seen.push(['admit', a.operation, a.namespace]),
      validate: async (a: AdmissionAttributes) => void seen.push(['validate', a.operation, a.namespace]),
    };
    const { core } = setup([plugin]);
    await core.create(inNs('kube-system'), event('kube-system', 'a'), opts);
    await core.delete(inNs('kube-system'), 'a', {});
    assert.deepEqual(seen, [
      ['admit', 'CREATE', 'kube-system'],
      ['validate', 'CREATE', 'kube-system'],
      ['admit', 'DELETE', 'kube-system'],
      ['validate', 'DELETE', 'kube-system'],
    ]);
  });
});

describe('GenericStore, a kind stored as another', () => {
  test('events.k8s.io writes store the core shape; each version reads, updates and deletes in its own shape', async () => {
    const { core, v1, storage } = setup();
    const created = await v1.create(inNs('default', true), v1Event('modern'), opts);
    assert.equal(created.apiVersion, 'events.k8s.io/v1');
    assert.equal(created.note, 'allocated');
    const stored = JSON.parse(Buffer.from((await storage.get('/registry/events/default/modern')).kv!.value).toString()) as CoreEvent;
    assert.deepEqual([stored.apiVersion, stored.message, stored.reportingComponent], ['v1', 'allocated', 'example.com/ctrl']);
    assert.equal(stored.metadata.resourceVersion, undefined, 'the store keeps no resourceVersion in the value');
    const rv = created.metadata.resourceVersion!;
    assert.match(rv, /^\d+$/);
    // The version the write stored is what both shapes read, with the write's resourceVersion.
    const asCore = await core.get(inNs('default'), 'modern', { resourceVersion: '0' });
    assert.deepEqual([asCore.apiVersion, asCore.message, asCore.metadata.resourceVersion], ['v1', 'allocated', rv]);
    const asV1 = await v1.get(inNs('default', true), 'modern', {});
    assert.deepEqual(asV1, created);
    assert.deepEqual((await v1.list(inNs('', true), {})).items, [created]);

    const updated = await v1.update(inNs('default', true), 'modern', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, labels: { l: 'v' } } }), opts);
    assert.equal(updated.object.apiVersion, 'events.k8s.io/v1');
    assert.deepEqual([updated.object.note, updated.object.metadata.labels], ['allocated', { l: 'v' }]);
    assert.notEqual(updated.object.metadata.resourceVersion, rv);
    const coreAfter = await core.get(inNs('default'), 'modern', { resourceVersion: '0' });
    assert.deepEqual([coreAfter.apiVersion, coreAfter.metadata.labels, coreAfter.metadata.resourceVersion], ['v1', { l: 'v' }, updated.object.metadata.resourceVersion]);

    const gone = await v1.delete(inNs('default', true), 'modern', {});
    assert.equal(gone.deleted, true);
    assert.equal(gone.object.apiVersion, 'events.k8s.io/v1');
    assert.deepEqual([gone.object.note, gone.object.metadata.labels], ['allocated', { l: 'v' }]);
    await rejects(core.get(inNs('default'), 'modern', {}), 404, 'events "modern" not found');
  });
});
