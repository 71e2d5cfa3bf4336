// The watch cache behind its store (issue #35). The test stores deliver watch events
// synchronously, so elsewhere the cache is never behind; etcd's watch is. Here the store's watch
// lags on demand: events (progress included) wait until the test releases them, and the cache's
// consistent reads must answer what the store holds, never the cache's older copy.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryStore } from '../sqlite/memory-store.js';
import { WatchCache } from './watch-cache.js';
import type { WatchEvent } from '../revisioned-store.js';

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array | undefined) => (b === undefined ? undefined : new TextDecoder().decode(b));

/** A memory store whose watches hold their events while `lagging`; release() delivers them. */
function laggingStore() {
  const store = new MemoryStore();
  const held: (() => void)[] = [];
  const lag = { on: false, storeLists: 0, storeGets: 0 };
  const watch = store.watch.bind(store);
  store.watch = (prefix, opts) => {
    const inner = watch(prefix, opts);
    const start = inner.start.bind(inner);
    inner.start = (sink) =>
      start({
        next: (e: WatchEvent) => {
          if (!lag.on) return sink.next(e);
          held.push(() => sink.next(e));
          return true;
        },
        end: (err) => sink.end(err),
      });
    return inner;
  };
  const list = store.list.bind(store);
  store.list = (prefix, opts) => {
    lag.storeLists++;
    return list(prefix, opts);
  };
  const get = store.get.bind(store);
  store.get = (key, opts) => {
    lag.storeGets++;
    return get(key, opts);
  };
  const release = (): void => {
    lag.on = false;
    for (const deliver of held.splice(0)) deliver();
  };
  return { store, lag, release };
}

describe('watch cache behind its store', () => {
  test('a consistent get while the cache lags answers the store\'s value, not the cached one', async () => {
    const { store, lag, release } = laggingStore();
    const cache = await WatchCache.start({ store, prefix: '/r/' });
    try {
      const first = await store.optimisticPut('/r/a', bytes('one'), 0);
      assert.equal(text((await cache.get('/r/a')).kv?.value), 'one');
      lag.on = true;
      const second = await store.optimisticPut('/r/a', bytes('two'), first.revision);
      const got = await cache.get('/r/a');
      assert.equal(text(got.kv?.value), 'two');
      assert.equal(got.kv?.modRevision, second.revision);
      // resourceVersion=0 (anyRecent) may serve the cache as it is: the older copy.
      assert.equal(text((await cache.get('/r/a', { anyRecent: true })).kv?.value), 'one');
      release();
      const gets = lag.storeGets;
      assert.equal(text((await cache.get('/r/a')).kv?.value), 'two');
      assert.equal(lag.storeGets, gets, 'caught up: served from memory');
    } finally {
      release();
      await cache.close();
      await store.close();
    }
  });

  test('a consistent list waits for the cache to reach the store\'s revision, then answers from memory', async () => {
    const { store, lag, release } = laggingStore();
    // Generous for a loaded machine: the waiter is woken at once on release, and a list that
    // times out instead goes to the store, which the last assertion sees.
    const cache = await WatchCache.start({ store, prefix: '/r/', freshnessTimeoutMs: 5_000 });
    try {
      await store.optimisticPut('/r/a', bytes('one'), 0);
      await cache.list('/r/');
      lag.on = true;
      const put = await store.optimisticPut('/r/b', bytes('two'), 0);
      const lists = lag.storeLists;
      let answered = false;
      const listing = cache.list('/r/').then((r) => ((answered = true), r));
      // Give the list every chance to answer early: it must not, while the cache is behind.
      for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
      assert.equal(answered, false, 'a list from the lagging cache would miss /r/b');
      release();
      const listed = await listing;
      assert.deepEqual(listed.kvs.map((kv) => kv.key), ['/r/a', '/r/b']);
      assert.equal(listed.revision, put.revision);
      assert.equal(lag.storeLists, lists, 'answered from memory once caught up');
    } finally {
      release();
      await cache.close();
      await store.close();
    }
  });

  test('a list whose cache never catches up in time is answered by the store', async () => {
    const { store, lag, release } = laggingStore();
    const cache = await WatchCache.start({ store, prefix: '/r/', freshnessTimeoutMs: 50 });
    try {
      await cache.list('/r/');
      lag.on = true;
      await store.optimisticPut('/r/a', bytes('one'), 0);
      const lists = lag.storeLists;
      const listed = await cache.list('/r/');
      assert.deepEqual(listed.kvs.map((kv) => kv.key), ['/r/a']);
      assert.equal(lag.storeLists, lists + 1);
      assert.equal(await cache.count('/r/'), 1);
    } finally {
      release();
      await cache.close();
      await store.close();
    }
  });
});
