// The shared decoded form of a stored version: a version written through putShared is shared as
// the very object that was written (no second parse), and that object is the same value a parse
// of the stored bytes gives; a store that copies the bytes gets a parse, as before.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalOrder, kindOrder } from '../apimachinery/field-order.js';
import type { KubeObject } from '../apimachinery/object-meta.js';
import { MemoryStore } from '../storage/sqlite/memory-store.js';
import type { KeyValue } from '../storage/revisioned-store.js';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { decodeObject, decodeShared, putShared, RECENT_BYTES, servedJsonOf } from './object-codec.js';

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

describe('decodeShared keeps a decoded object only while it is used', () => {
  // A full collection on demand, to see what the codec still holds.
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const kvOf = (i: number): KeyValue => ({ key: `/t/k${i}`, value: new TextEncoder().encode(JSON.stringify(object(`k${i}`))), createRevision: i + 1, modRevision: i + 1 });

  test('readers at the same time share one object; once none holds it, the bytes do not keep it (a single pass is not kept)', async () => {
    const kv = kvOf(1);
    const first = decodeShared(kv);
    assert.equal(decodeShared(kv), first, 'shared while held');
    const other = kvOf(2);
    const seen = new WeakRef(decodeShared(other));
    // Let the current job end (WeakRef targets live until then), then collect.
    await new Promise((r) => setImmediate(r));
    gc();
    assert.equal(seen.deref(), undefined, 'a value read once is not kept beside its bytes');
    assert.equal(decodeShared(kv), first, 'still shared by the reader holding it');
  });

  test('a value read again is kept (the recent set), up to RECENT_BYTES of stored bytes', async () => {
    const kv = kvOf(3);
    decodeShared(kv);
    const again = new WeakRef(decodeShared(kv));
    await new Promise((r) => setImmediate(r));
    gc();
    assert.ok(again.deref(), 'read twice: kept');
    // Others read twice push it out once their bytes pass the budget.
    const big = new TextEncoder().encode(JSON.stringify({ ...object('big'), spec: { pad: 'x'.repeat(1 << 20) } }));
    const kvs = Array.from({ length: Math.ceil(RECENT_BYTES / big.byteLength) + 2 }, (_, i): KeyValue => ({ key: `/t/big${i}`, value: big, createRevision: 100 + i, modRevision: 100 + i }));
    for (const k of kvs) (decodeShared(k), decodeShared(k));
    await new Promise((r) => setImmediate(r));
    gc();
    assert.equal(again.deref(), undefined, 'evicted past the budget');
    assert.ok(kvs.length > 0);
  });
});
