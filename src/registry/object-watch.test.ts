// Object watches over one store: watchers with the same selector share one translation of each
// store event (one object event), and watchers with other selectors, delivered in between, still
// get their own transitions.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../apimachinery/object-meta.js';
import { MemoryStore } from '../storage/sqlite/memory-store.js';
import { parseSelectors } from './list-options.js';
import { decodeShared, encodeObject } from './object-codec.js';
import type { ResourceDefinition } from './resource-definition.js';
import type { ObjectWatchEvent } from './rest-storage.js';
import { watchObjects } from './object-watch.js';

const definition = {
  group: 'test.platform.io',
  plural: 'things',
  selectableFields: (o: KubeObject) => ({ 'metadata.name': o.metadata.name ?? '' }),
  unknownFieldLabelMessage: (f: string) => `field label not supported: ${f}`,
} as unknown as ResourceDefinition;

const thing = (app: string): KubeObject => ({ apiVersion: 'test.platform.io/v1', kind: 'Thing', metadata: { name: 'x', labels: { app } } });

test('watchers with one selector share each translated event; others, delivered in between, get their own transitions', async () => {
  const store = new MemoryStore();
  try {
    const seen = new Map<string, ObjectWatchEvent<KubeObject>[]>();
    for (const [name, selector] of [['a1', 'app=a'], ['a2', 'app=a'], ['b', 'app=b'], ['a3', 'app=a']] as const) {
      const events: ObjectWatchEvent<KubeObject>[] = [];
      seen.set(name, events);
      const w = watchObjects({ storage: store, prefix: '/things/', decode: (kv) => decodeShared(kv), definition, selectors: parseSelectors(definition, { labelSelector: selector }), afterRevision: 0, initial: [], initialEventsEnd: false });
      w.start({ next: (e) => (events.push(e), true), end: () => undefined });
    }
    const created = await store.optimisticPut('/things/x', encodeObject(thing('a')), 0);
    const updated = await store.optimisticPut('/things/x', encodeObject(thing('b')), created.revision);
    const deleted = await store.optimisticDelete('/things/x', updated.revision);
    await new Promise((r) => setImmediate(r));

    const types = (name: string) => seen.get(name)!.map((e) => e.type);
    for (const name of ['a1', 'a2', 'a3']) assert.deepEqual(types(name), ['ADDED', 'DELETED'], name);
    assert.deepEqual(types('b'), ['ADDED', 'DELETED'], 'b');
    const last = seen.get('b')!.at(-1)!;
    assert.equal(last.type === 'DELETED' && last.object.metadata.resourceVersion, String(deleted.revision), "the deletion's revision");
    // One event object for a1 and a2 (delivered in a row), and the same decoded object for a3.
    assert.equal(seen.get('a1')![0], seen.get('a2')![0]);
    const objectOf = (e: ObjectWatchEvent<KubeObject>) => (e.type === 'BOOKMARK' ? undefined : e.object);
    assert.equal(objectOf(seen.get('a3')![0]!), objectOf(seen.get('a1')![0]!));
    assert.equal(objectOf(seen.get('a1')![0]!)?.metadata.labels?.app, 'a');
  } finally {
    await store.close();
  }
});

test("an object that stops matching is DELETED as it was, with the change's revision (kube's cacher)", async () => {
  const store = new MemoryStore();
  try {
    const events: ObjectWatchEvent<KubeObject>[] = [];
    const w = watchObjects({ storage: store, prefix: '/things/', decode: (kv) => decodeShared(kv), definition, selectors: parseSelectors(definition, { labelSelector: 'app=a' }), afterRevision: 0, initial: [], initialEventsEnd: false });
    w.start({ next: (e) => (events.push(e), true), end: () => undefined });
    const created = await store.optimisticPut('/things/x', encodeObject(thing('a')), 0);
    const moved = await store.optimisticPut('/things/x', encodeObject(thing('b')), created.revision);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(events.map((e) => e.type), ['ADDED', 'DELETED']);
    const gone = events[1]!;
    assert.ok(gone.type === 'DELETED');
    assert.equal(gone.object.metadata.labels?.app, 'a', 'the content the watcher last saw matching');
    assert.equal(gone.object.metadata.resourceVersion, String(moved.revision));
    // The ADDED event's object keeps its own revision.
    assert.ok(events[0]!.type === 'ADDED' && events[0]!.object.metadata.resourceVersion === String(created.revision));
  } finally {
    await store.close();
  }
});
