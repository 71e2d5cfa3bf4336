// resourceVersion=0 lists (ListOptions.anyRecent) are answered from the watch cache's memory
// without asking the store for its current revision; consistent lists ask once per list.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryStore } from '../sqlite/memory-store.js';
import { WatchCache } from './watch-cache.js';

class CountingStore extends MemoryStore {
  revisionReads = 0;
  override async currentRevision(): Promise<number> {
    this.revisionReads++;
    return super.currentRevision();
  }
}

test('anyRecent lists skip the revision read; consistent lists make exactly one', async () => {
  const store = new CountingStore();
  const cache = await WatchCache.start({ store, prefix: '/r/' });
  try {
    await store.optimisticPut('/r/a', new TextEncoder().encode('a'), 0);
    const consistent = await cache.list('/r/');
    assert.deepEqual(consistent.kvs.map((kv) => kv.key), ['/r/a']);
    const afterConsistent = store.revisionReads;
    assert.ok(afterConsistent >= 1);
    const before = store.revisionReads;
    const any = await cache.list('/r/', { anyRecent: true });
    assert.deepEqual(any.kvs.map((kv) => kv.key), ['/r/a']);
    assert.equal(store.revisionReads, before, 'no revision read for resourceVersion=0');
    await cache.list('/r/');
    assert.equal(store.revisionReads, before + 1, 'one revision read per consistent list');
  } finally {
    await cache.close();
    await store.close();
  }
});

class CountingGets extends MemoryStore {
  gets = 0;
  override async get(key: string, opts?: Parameters<MemoryStore['get']>[1]) {
    this.gets++;
    return super.get(key, opts);
  }
}

test("anyRecent gets are answered from the cache; plain gets read the store with consistentGets 'store' (etcd)", async () => {
  const store = new CountingGets();
  const cache = await WatchCache.start({ store, prefix: '/r/', consistentGets: 'store' });
  try {
    const put = await store.optimisticPut('/r/a', new TextEncoder().encode('a'), 0);
    await cache.list('/r/'); // caught up
    const before = store.gets;
    const cached = await cache.get('/r/a', { anyRecent: true });
    assert.equal(cached.kv?.modRevision, put.revision);
    assert.equal((await cache.get('/r/missing', { anyRecent: true })).kv, undefined);
    assert.equal(store.gets, before, 'no store read for resourceVersion=0');
    assert.equal((await cache.get('/r/a')).kv?.modRevision, put.revision);
    assert.equal(store.gets, before + 1);
  } finally {
    await cache.close();
    await store.close();
  }
});

test("consistent gets come from the cache once it is at the store's revision, and see every acknowledged write", async () => {
  const store = new CountingGets();
  const cache = await WatchCache.start({ store, prefix: '/r/' });
  const bytes = (v: string) => new TextEncoder().encode(v);
  const text = (v: Uint8Array | undefined) => (v ? new TextDecoder().decode(v) : undefined);
  try {
    const first = await store.optimisticPut('/r/a', bytes('1'), 0);
    const second = await store.optimisticPut('/r/a', bytes('2'), first.revision);
    const got = await cache.get('/r/a');
    assert.equal(text(got.kv?.value), '2');
    assert.equal(got.kv?.modRevision, second.revision);
    assert.equal(got.revision, await store.currentRevision());
    await store.optimisticDelete('/r/a', second.revision);
    assert.equal((await cache.get('/r/a')).kv, undefined, 'a deleted key is gone at once');
    // Writes elsewhere move the store's revision past the cache's: still answered (progress catches it up).
    await store.optimisticPut('/other/x', bytes('x'), 0);
    await store.optimisticPut('/r/b', bytes('b'), 0);
    await store.optimisticPut('/other/y', bytes('y'), 0);
    assert.equal(text((await cache.get('/r/b')).kv?.value), 'b');
    assert.equal(store.gets, 0, 'the store was never read');
    // An explicit revision is the store's to answer.
    assert.equal(text((await cache.get('/r/a', { revision: first.revision })).kv?.value), '1');
    assert.equal(store.gets, 1);
  } finally {
    await cache.close();
    await store.close();
  }
});
