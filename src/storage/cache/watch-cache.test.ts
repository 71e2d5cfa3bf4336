import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeRevisionedStore } from '../../../test/support/storage/storage-conformance.js';
import { MemoryStore } from '../sqlite/memory-store.js';
import { WatchCache } from './watch-cache.js';
import { isStorageError, type WatchEvent } from '../revisioned-store.js';

// The cache is a drop-in RevisionedStore: the same conformance suite, with the cache over the
// whole key space so every case goes through it.
describeRevisionedStore('watch cache over memory', async () => {
  const store = new MemoryStore();
  const cache = await WatchCache.start({ store, prefix: '/' });
  return {
    store: cache,
    cleanup: async () => {
      await cache.close();
      await store.close();
    },
  };
});

const bytes = (s: string) => new TextEncoder().encode(s);

describe('watch cache', () => {
  test('later pages of a paged list come from memory while the snapshot is current, else from the store', async () => {
    const store = new MemoryStore();
    let storeLists = 0;
    const list = store.list.bind(store);
    store.list = (prefix, opts) => {
      storeLists++;
      return list(prefix, opts);
    };
    const cache = await WatchCache.start({ store, prefix: '/r/' });
    try {
      for (const k of ['1', '2', '3', '4']) await store.optimisticPut(`/r/${k}`, bytes(k), 0);
      await store.optimisticPut('/other/x', bytes('x'), 0); // moves the revision, not the prefix
      const first = await cache.list('/r/', { limit: 2 });
      const before = storeLists;
      const rest = await cache.list('/r/', { limit: 2, startAfter: '/r/2', revision: first.revision });
      assert.deepEqual(rest.kvs.map((kv) => kv.key), ['/r/3', '/r/4']);
      assert.equal(rest.revision, first.revision);
      assert.equal(storeLists, before, 'served from memory');

      await store.optimisticPut('/r/5', bytes('5'), 0);
      await cache.list('/r/'); // the cache has caught up with the change
      const stale = await cache.list('/r/', { limit: 10, startAfter: '/r/2', revision: first.revision });
      assert.deepEqual(stale.kvs.map((kv) => kv.key), ['/r/3', '/r/4'], 'the old snapshot, from the store');
      assert.equal(storeLists, before + 1);
    } finally {
      await cache.close();
      await store.close();
    }
  });

  test('one store watch fans out to many watchers; lists come from memory once fresh', async () => {
    const store = new MemoryStore();
    const cache = await WatchCache.start({ store, prefix: '/r/' });
    try {
      const ac = new AbortController();
      const watches = Array.from({ length: 50 }, () => cache.watch('/r/', { afterRevision: 0, signal: ac.signal }));
      const w = await store.optimisticPut('/r/a', bytes('1'), 0);
      const got = await Promise.all(watches.map(async (watch) => (await watch[Symbol.asyncIterator]().next()).value as WatchEvent));
      assert.ok(got.every((e) => e.type === 'put' && e.revision === w.revision));
      const list = await cache.list('/r/');
      assert.deepEqual(list.kvs.map((kv) => kv.key), ['/r/a']);
      assert.equal(list.revision, w.revision);
      ac.abort();
    } finally {
      await cache.close();
      await store.close();
    }
  });

  test('a watch older than the window replays from the store; after compaction it is Compacted', async () => {
    const store = new MemoryStore();
    const cache = await WatchCache.start({ store, prefix: '/r/', windowSize: 2 });
    try {
      const first = await store.optimisticPut('/r/a', bytes('1'), 0);
      let last = first;
      for (let i = 2; i <= 4; i++) last = await store.optimisticPut('/r/a', bytes(String(i)), last.revision);
      await cache.list('/r/'); // caught up
      const old = cache.watch('/r/', { afterRevision: first.revision, signal: new AbortController().signal });
      assert.equal(((await old[Symbol.asyncIterator]().next()).value as WatchEvent).revision, first.revision + 1);
      await cache.compact(last.revision - 1);
      const gone = cache.watch('/r/', { afterRevision: first.revision, signal: new AbortController().signal });
      await assert.rejects(gone[Symbol.asyncIterator]().next(), (e: unknown) => isStorageError(e, 'Compacted'));
      const recent = cache.watch('/r/', { afterRevision: last.revision - 1, signal: new AbortController().signal });
      const e = (await recent[Symbol.asyncIterator]().next()).value as WatchEvent;
      assert.equal(e.revision, last.revision);
    } finally {
      await cache.close();
      await store.close();
    }
  });

  test('the answer to a progress request goes only to the watchers that asked, at the store revision', async () => {
    const store = new MemoryStore();
    const cache = await WatchCache.start({ store, prefix: '/r/' });
    try {
      const asking = cache.watch('/r/', { afterRevision: 0 });
      const quiet = cache.watch('/r/', { afterRevision: 0 });
      const seen = { asking: [] as WatchEvent[], quiet: [] as WatchEvent[] };
      asking.start({ next: (e) => (seen.asking.push(e), true), end: () => {} });
      quiet.start({ next: (e) => (seen.quiet.push(e), true), end: () => {} });
      const put = await store.optimisticPut('/other/x', bytes('x'), 0); // moves the store's revision only
      asking.requestProgress();
      for (let i = 0; i < 50 && seen.asking.length < 1; i++) await new Promise((r) => setImmediate(r));
      await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(seen.asking, [{ type: 'progress', revision: put.revision }]);
      assert.deepEqual(seen.quiet, []);
    } finally {
      await cache.close();
      await store.close();
    }
  });
});
