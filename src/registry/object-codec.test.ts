// The shared decoded form of a stored version: a version written through putShared is shared as
// the very object that was written (no second parse), and that object is the same value a parse
// of the stored bytes gives; a store that copies the bytes gets a parse, as before.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalOrder, kindOrder } from '../apimachinery/field-order.js';
import type { KubeObject } from '../apimachinery/object-meta.js';
import { MemoryStore } from '../storage/sqlite/memory-store.js';
import type { KeyValue } from '../storage/revisioned-store.js';
import { decodeObject, decodeShared, putShared, servedJsonOf } from './object-codec.js';

const ORDER = kindOrder('spec', 'status');

function object(name: string): KubeObject {
  // A member set to undefined (as code may leave one) is not part of the stored value.
  const obj = { apiVersion: 'v1', kind: 'Thing', metadata: { name, uid: 'u-1', labels: { b: '2', a: '1' }, annotations: undefined }, spec: { cidrs: ['10.0.0.0/24'] } };
  return canonicalOrder(obj as unknown as KubeObject, ORDER);
}

/** The first event of a write and its shared object, decoded as a watcher does: as the commit is published. */
async function firstEvent(store: MemoryStore, write: () => Promise<unknown>): Promise<{ kv: KeyValue; shared: KubeObject }> {
  const ac = new AbortController();
  const events: { kv: KeyValue; shared: KubeObject }[] = [];
  const watch = store.watch('/t/', { afterRevision: await store.currentRevision(), signal: ac.signal });
  watch.start({ next: (e) => (e.type === 'put' && events.push({ kv: e.kv, shared: decodeShared(e.kv) }), true), end: () => {} });
  await write();
  ac.abort();
  assert.equal(events.length, 1);
  return events[0]!;
}

describe('object codec', () => {
  test('a version written through putShared is shared as the written object, the same value as its bytes parsed', async () => {
    const store = new MemoryStore();
    try {
      const obj = object('a');
      const { kv, shared } = await firstEvent(store, () => putShared(obj, (bytes) => store.optimisticPut('/t/a', bytes, 0)));
      assert.equal(decodeShared(kv), shared);
      assert.equal(shared, obj, 'no second parse: the written object itself');
      assert.equal(shared.metadata.resourceVersion, String(kv.modRevision));
      assert.deepEqual(shared, decodeObject(kv));
      assert.equal(servedJsonOf(shared)!.toString(), `${JSON.stringify(decodeObject(kv))}\n`);
    } finally {
      await store.close();
    }
  });

  test('a store that copies the bytes, or a read after the write settled, gets a parse', async () => {
    const store = new MemoryStore();
    try {
      const obj = object('b');
      const { kv, shared } = await firstEvent(store, () => putShared(obj, (bytes) => store.optimisticPut('/t/b', Uint8Array.from(bytes), 0)));
      assert.notEqual(shared, obj);
      assert.deepEqual(shared, decodeObject(kv));
      const later = object('c');
      await putShared(later, (bytes) => store.optimisticPut('/t/c', bytes, 0));
      const got = (await store.get('/t/c')).kv!;
      assert.notEqual(decodeShared(got), later);
    } finally {
      await store.close();
    }
  });
});
