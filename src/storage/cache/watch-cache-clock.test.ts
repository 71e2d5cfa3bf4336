// The watch cache's timing decisions, on a mocked clock (issue #35): the backoff between
// re-initializations climbs while sessions flap and starts over after one that stayed healthy for
// resetAfterMs; an unanswered progress request is sent again after a second, not before; a list
// that gave up waiting for the cache leaves nothing behind and does not take other waiting lists
// with it. Only setTimeout and Date are mocked: the store's own work (setImmediate) runs as usual.

import { afterEach, beforeEach, describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryStore } from '../sqlite/memory-store.js';
import { FaultInjectingStore } from '../../../test/support/storage/fault-injecting-store.js';
import { ControlledStore } from '../../../test/support/storage/controlled-store.js';
import { WatchCache } from './watch-cache.js';

const bytes = (s: string) => new TextEncoder().encode(s);
const keys = (r: { kvs: { key: string }[] }) => r.kvs.map((kv) => kv.key);

/** Lets pending promise callbacks and store work run (a bounded number of turns). */
async function settle(turns = 30): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((r) => setImmediate(r));
}

async function tick(ms: number): Promise<void> {
  mock.timers.tick(ms);
  await settle();
}

describe('watch cache on a mocked clock', () => {
  beforeEach(() => {
    mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 });
    // The jitter at its top: each delay is exactly its step (initialMs · 2^attempt).
    mock.method(Math, 'random', () => 1);
  });
  afterEach(() => {
    mock.timers.reset();
    mock.restoreAll();
  });

  test('the backoff climbs while sessions flap and starts over after one healthy for resetAfterMs', async () => {
    const inner = new MemoryStore();
    const store = new FaultInjectingStore(inner);
    const cache = await WatchCache.start({ store, prefix: '/r/', backoff: { initialMs: 1000, maxMs: 64_000, resetAfterMs: 10_000 } });
    try {
      assert.equal(cache.health().ready, true);
      assert.equal(store.calls.list, 1);
      /** Breaks the store watch and checks the re-list comes exactly `ms` later. */
      const breakAndExpectRelistAfter = async (ms: number) => {
        const lists = store.calls.list;
        store.breakWatches('Unavailable');
        await settle(); // the run loop starts its wait
        await tick(ms - 1);
        assert.equal(store.calls.list, lists, `no re-list before ${ms} ms`);
        assert.equal(cache.health().ready, false);
        await tick(1);
        assert.equal(store.calls.list, lists + 1, `the re-list at ${ms} ms`);
        assert.equal(cache.health().ready, true);
      };
      await breakAndExpectRelistAfter(1000);
      // Broken again at once: a flapping session climbs.
      await breakAndExpectRelistAfter(2000);
      await breakAndExpectRelistAfter(4000);
      // Healthy for exactly resetAfterMs: the next delay is the first one again.
      await tick(10_000);
      await breakAndExpectRelistAfter(1000);
    } finally {
      await cache.close();
      await inner.close();
    }
  });

  test('an unanswered progress request is sent again after a second, not before', async () => {
    const inner = new MemoryStore();
    const store = new ControlledStore(inner);
    const cache = await WatchCache.start({ store, prefix: '/r/' });
    const own = store.lastWatch;
    try {
      own.holding = true; // the store's answers never arrive
      await inner.optimisticPut('/other/x', bytes('x'), 0);
      await cache.get('/r/a');
      await cache.get('/r/a');
      assert.equal(store.calls.progressRequests, 1);
      await tick(999);
      await cache.get('/r/a');
      assert.equal(store.calls.progressRequests, 1, 'still waiting for the answer');
      await tick(1);
      await cache.get('/r/a');
      assert.equal(store.calls.progressRequests, 2, 'asked again');
      assert.equal(store.calls.get, 4, 'the store answered every get meanwhile');
    } finally {
      own.releaseAll();
      await cache.close();
      await inner.close();
    }
  });

  test('a progress request lost with a broken store watch does not hold back the next session\'s', async () => {
    const inner = new MemoryStore();
    const store = new ControlledStore(inner);
    const cache = await WatchCache.start({ store, prefix: '/r/', backoff: { initialMs: 10, maxMs: 10 } });
    const lost = store.lastWatch;
    try {
      lost.holding = true;
      await inner.optimisticPut('/other/x', bytes('x'), 0);
      await cache.get('/r/a');
      assert.equal(store.calls.progressRequests, 1);
      lost.fail(new Error('connection lost')); // its answer with it
      await settle();
      await tick(10);
      assert.equal(cache.health().ready, true);
      assert.notEqual(store.lastWatch, lost);
      await inner.optimisticPut('/other/y', bytes('y'), 0);
      const gets = store.calls.get;
      await cache.get('/r/a');
      assert.equal(store.calls.progressRequests, 2, 'asked on the new store watch at once');
      assert.equal(store.calls.get, gets, 'answered at once: from memory');
    } finally {
      await cache.close();
      await inner.close();
    }
  });

  test('a list that gave up waiting leaves nothing behind, and the lists still waiting are answered from memory when the cache catches up', async () => {
    const inner = new MemoryStore();
    const store = new ControlledStore(inner);
    const cache = await WatchCache.start({ store, prefix: '/r/', freshnessTimeoutMs: 1000 });
    const own = store.lastWatch;
    const waiting = () => (Reflect.get(cache, 'waiters') as unknown[]).length;
    try {
      own.holding = true;
      await inner.optimisticPut('/r/a', bytes('a'), 0);
      let first: string[] | undefined;
      const firstList = cache.list('/r/').then((r) => (first = keys(r)));
      await settle();
      await tick(500);
      const b = await inner.optimisticPut('/r/b', bytes('b'), 0);
      let second: string[] | undefined;
      const secondList = cache.list('/r/').then((r) => (second = keys(r)));
      await settle();
      assert.equal(waiting(), 2);
      const lists = store.calls.list;
      await tick(500); // the first list's wait is over: the store answers it
      await firstList;
      assert.deepEqual(first, ['/r/a', '/r/b']);
      assert.equal(store.calls.list, lists + 1);
      assert.equal(waiting(), 1, 'only the second list still waits');
      assert.equal(second, undefined);
      own.releaseAll();
      await settle();
      assert.deepEqual(second, ['/r/a', '/r/b'], 'answered as soon as the cache caught up');
      assert.equal(store.calls.list, lists + 1, 'from memory');
      assert.equal(waiting(), 0);
      assert.equal(cache.health().revision, b.revision);
      await secondList;
    } finally {
      own.releaseAll();
      await cache.close();
      await inner.close();
    }
  });
});
