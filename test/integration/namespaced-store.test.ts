// The generic store's namespaces, with the real Event definitions over the memory backend:
// keys under `<prefix><namespace>/<name>`, reads and writes in the request's namespace, lists
// and watches of one namespace or of all, kube's namespace checks (the object's namespace is the
// request's or a 400; writes only into a namespace that exists, else 404), and the
// events.k8s.io shape of the same stored objects.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { internalContext, silentLogger, type RequestContext } from '../../src/apimachinery/request-context.js';
import { isStatusError } from '../../src/apimachinery/status-error.js';
import { GenericStore } from '../../src/registry/generic-store.js';
import type { ObjectWatchEvent } from '../../src/registry/rest-storage.js';
import { coreEvents, eventsV1Events } from '../../src/resources/events/index.js';
import type { CoreEvent, EventsV1Event } from '../../src/resources/events/types.js';
import { MemoryStore } from '../../src/storage/sqlite/memory-store.js';

const admin = { username: 'admin', groups: ['system:masters'] };
/** A request in `namespace` ('' for every namespace) of the core API or events.k8s.io. */
const inNs = (namespace: string, events = false): RequestContext =>
  internalContext(admin, silentLogger, events ? { apiPrefix: 'apis', apiGroup: 'events.k8s.io', apiVersion: 'v1', namespace } : { apiPrefix: 'api', apiGroup: '', apiVersion: 'v1', namespace });
const opts = { fieldManager: 'test' };

function setup() {
  const storage = new MemoryStore();
  const core = new GenericStore<CoreEvent>({ definition: coreEvents, strategy: coreEvents.strategy, subresource: '', storage, admission: [] });
  const v1 = new GenericStore<EventsV1Event>({ definition: eventsV1Events, strategy: eventsV1Events.strategy, subresource: '', storage, admission: [] });
  return { storage, core, v1 };
}

const event = (name: string, extra: Partial<CoreEvent> = {}): CoreEvent => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name },
  involvedObject: { kind: 'ServiceCIDR', name: 'range', apiVersion: 'networking.platform.io/v1' },
  reason: 'Tested',
  message: 'a test',
  type: 'Normal',
  ...extra,
});

/** An event about a namespaced object of `namespace` (one about a cluster-scoped object belongs in `default`). */
const about = (namespace: string, name: string): CoreEvent => event(name, { involvedObject: { kind: 'Lease', namespace, name: 'holder', apiVersion: 'coordination.k8s.io/v1' } });

const rejects = (p: Promise<unknown>, code: number, message: string) =>
  assert.rejects(p, (e: unknown) => {
    assert.ok(isStatusError(e), String(e));
    assert.equal(e.code, code);
    assert.equal(e.message, message);
    return true;
  });

describe('namespaced kinds in the generic store', () => {
  test('an object lives under its namespace: its key, its reads, its deletes', async () => {
    const { storage, core } = setup();
    const created = await core.create(inNs('default'), event('a'), opts);
    assert.equal(created.metadata.namespace, 'default');
    assert.ok((await storage.get('/registry/events/default/a')).kv, 'stored under the namespace');
    await core.create(inNs('kube-system'), about('kube-system', 'a'), opts);
    assert.equal((await core.get(inNs('kube-system'), 'a', {})).metadata.namespace, 'kube-system');
    await rejects(core.get(inNs('kube-public'), 'a', {}), 404, 'events "a" not found');
    await core.delete(inNs('default'), 'a', {});
    await rejects(core.get(inNs('default'), 'a', {}), 404, 'events "a" not found');
    assert.equal((await core.get(inNs('kube-system'), 'a', {})).metadata.name, 'a');
  });

  test('lists: one namespace, or every namespace with selectors on metadata.namespace and names, paged across namespaces', async () => {
    const { core } = setup();
    for (const ns of ['default', 'kube-system']) for (const n of ['a', 'b']) await core.create(inNs(ns), about(ns, n), opts);
    const names = (items: CoreEvent[]) => items.map((e) => `${e.metadata.namespace}/${e.metadata.name}`);
    assert.deepEqual(names((await core.list(inNs('default'), {})).items), ['default/a', 'default/b']);
    assert.deepEqual(names((await core.list(inNs(''), {})).items), ['default/a', 'default/b', 'kube-system/a', 'kube-system/b']);
    assert.deepEqual(names((await core.list(inNs(''), { fieldSelector: 'metadata.name=b' })).items), ['default/b', 'kube-system/b']);
    assert.deepEqual(names((await core.list(inNs(''), { fieldSelector: 'metadata.namespace=kube-system' })).items), ['kube-system/a', 'kube-system/b']);
    assert.deepEqual(names((await core.list(inNs('kube-system'), { fieldSelector: 'metadata.name=a' })).items), ['kube-system/a']);
    const first = await core.list(inNs(''), { limit: 3 });
    assert.deepEqual(names(first.items), ['default/a', 'default/b', 'kube-system/a']);
    const rest = await core.list(inNs(''), { limit: 3, continue: first.continue });
    assert.deepEqual(names(rest.items), ['kube-system/b']);
  });

  test('watches: one namespace sees only its own; across namespaces sees all', async () => {
    const { core } = setup();
    const seen = (w: Awaited<ReturnType<typeof core.watch>>, out: string[]) =>
      w.start({ next: (e: ObjectWatchEvent<CoreEvent>) => (e.type !== 'BOOKMARK' && out.push(`${e.type} ${e.object.metadata.namespace}/${e.object.metadata.name}`), true), end: () => {} });
    const rv = (await core.list(inNs(''), {})).resourceVersion;
    const one: string[] = [];
    const all: string[] = [];
    const named: string[] = [];
    const w1 = await core.watch(inNs('default'), { resourceVersion: rv });
    const w2 = await core.watch(inNs(''), { resourceVersion: rv });
    const w3 = await core.watch(inNs('kube-system'), { resourceVersion: rv, fieldSelector: 'metadata.name=b' });
    seen(w1, one);
    seen(w2, all);
    seen(w3, named);
    await core.create(inNs('default'), event('a'), opts);
    await core.create(inNs('kube-system'), about('kube-system', 'b'), opts);
    await core.create(inNs('default'), event('b'), opts);
    await new Promise((r) => setTimeout(r, 50));
    for (const w of [w1, w2, w3]) w.stop();
    assert.deepEqual(one, ['ADDED default/a', 'ADDED default/b']);
    assert.deepEqual(all, ['ADDED default/a', 'ADDED kube-system/b', 'ADDED default/b']);
    assert.deepEqual(named, ['ADDED kube-system/b']);
  });

  test('an event about a cluster-scoped object belongs in default (legacy validation)', async () => {
    const { core } = setup();
    await rejects(core.create(inNs('kube-system'), event('a'), opts), 422, 'Event "a" is invalid: involvedObject.namespace: Invalid value: "": does not match event.namespace');
    await rejects(core.create(inNs('default'), about('kube-system', 'b'), opts), 422, 'Event "b" is invalid: involvedObject.namespace: Invalid value: "kube-system": does not match event.namespace');
  });

  test("kube's namespace checks: the object's namespace is the request's, and it must exist", async () => {
    const { core } = setup();
    await rejects(core.create(inNs('default'), event('a', { metadata: { name: 'a', namespace: 'kube-system' } }), opts), 400, 'the namespace of the provided object does not match the namespace sent on the request');
    assert.equal((await core.create(inNs('default'), event('a', { metadata: { name: 'a', namespace: 'default' } }), opts)).metadata.namespace, 'default');
    await rejects(core.create(inNs('team-a'), event('a'), opts), 404, 'namespaces "team-a" not found');
    await rejects(core.create(inNs(''), event('a'), opts), 400, 'Namespace parameter required.');
    await rejects(core.update(inNs('default'), 'a', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, namespace: 'kube-public' } }), opts), 400, 'the namespace of the provided object does not match the namespace sent on the request');
  });

  test('a replace of a missing event creates it (AllowCreateOnUpdate), a patch-style update does not', async () => {
    const { core } = setup();
    const out = await core.update(inNs('default'), 'new', () => event('new', { metadata: { name: 'new', resourceVersion: '42' } }), { ...opts, createIfMissing: true });
    assert.equal(out.created, true);
    assert.equal(out.object.metadata.namespace, 'default');
    await rejects(core.update(inNs('default'), 'other', (cur) => cur!, opts), 404, 'events "other" not found');
  });

  test('events.k8s.io/v1 reads and writes the same stored objects in its own shape', async () => {
    const { core, v1 } = setup();
    await core.create(inNs('default'), event('legacy', { count: 3, source: { component: 'kubelet', host: 'n1' } }), opts);
    const asV1 = await v1.get(inNs('default', true), 'legacy', {});
    assert.equal(asV1.apiVersion, 'events.k8s.io/v1');
    assert.deepEqual(asV1.regarding, { kind: 'ServiceCIDR', name: 'range', apiVersion: 'networking.platform.io/v1' });
    assert.equal(asV1.note, 'a test');
    assert.deepEqual(asV1.deprecatedSource, { component: 'kubelet', host: 'n1' });
    assert.equal(asV1.deprecatedCount, 3);
    assert.equal(asV1.eventTime, null);
    const created = await v1.create(
      inNs('default', true),
      {
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: { name: 'modern' },
        eventTime: '2026-01-01T00:00:00.123456Z',
        series: { count: 2, lastObservedTime: '2026-01-01T00:01:00.000001Z' },
        reportingController: 'example.com/ctrl',
        reportingInstance: 'ctrl-1',
        action: 'Allocate',
        reason: 'Allocated',
        regarding: { kind: 'IPAddress', name: '10.0.0.1' },
        note: 'allocated',
        type: 'Normal',
      },
      opts,
    );
    assert.equal(created.metadata.resourceVersion, (await v1.get(inNs('default', true), 'modern', {})).metadata.resourceVersion);
    const asCore = await core.get(inNs('default'), 'modern', {});
    assert.deepEqual(
      { ...asCore, metadata: undefined },
      {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: undefined,
        involvedObject: { kind: 'IPAddress', name: '10.0.0.1' },
        reason: 'Allocated',
        message: 'allocated',
        source: {},
        firstTimestamp: null,
        lastTimestamp: null,
        type: 'Normal',
        eventTime: '2026-01-01T00:00:00.123456Z',
        series: { count: 2, lastObservedTime: '2026-01-01T00:01:00.000001Z' },
        action: 'Allocate',
        reportingComponent: 'example.com/ctrl',
        reportingInstance: 'ctrl-1',
      },
    );
    // Field selectors in each version's words, over the same objects.
    assert.deepEqual((await v1.list(inNs('', true), { fieldSelector: 'regarding.kind=IPAddress,reportingController=example.com/ctrl' })).items.map((e) => e.metadata.name), ['modern']);
    assert.deepEqual((await core.list(inNs(''), { fieldSelector: 'involvedObject.kind=IPAddress,reportingComponent=example.com/ctrl' })).items.map((e) => e.metadata.name), ['modern']);
    assert.deepEqual((await core.list(inNs(''), { fieldSelector: 'source=kubelet' })).items.map((e) => e.metadata.name), ['legacy']);
    await rejects(v1.list(inNs('', true), { fieldSelector: 'involvedObject.kind=IPAddress' }), 400, 'field label not supported: involvedObject.kind');
    await rejects(core.list(inNs(''), { fieldSelector: 'regarding.kind=IPAddress' }), 400, 'field label not supported: regarding.kind');
  });
});
