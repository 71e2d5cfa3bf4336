// The watch cache's life (issue #35): start waits for the first sync (or a bound), health() and
// /readyz say exactly why a cache is not ready, a watch turned away says it too (kube's 429
// "storage is (re)initializing", with Retry-After counted from when it went down), recoveries are
// announced, and close() stops everything at once, however often it is called, leaving no
// attempt, timer or listener behind.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { MemoryStore } from '../sqlite/memory-store.js';
import { FaultInjectingStore } from '../../../test/support/storage/fault-injecting-store.js';
import { ControlledStore } from '../../../test/support/storage/controlled-store.js';
import { WatchCache, watchCacheProblems } from './watch-cache.js';
import { isStorageError } from '../revisioned-store.js';

const bytes = (s: string) => new TextEncoder().encode(s);

async function waitFor(cond: () => boolean, what: string, ms = 10_000): Promise<void> {
  for (const end = Date.now() + ms; !cond(); ) {
    if (Date.now() > end) throw new Error(`${what} not reached within ${ms} ms`);
    await delay(5);
  }
}

const refusedWith = (cache: WatchCache, message: string) =>
  assert.throws(
    () => cache.watch('/r/', { afterRevision: 0 }),
    (e: unknown) => isStorageError(e, 'TooManyRequests') && e.message === message && e.retryAfterSeconds === 1,
  );

describe('watch cache lifecycle', () => {
  test('start waits for the first sync, five seconds by default', async () => {
    const inner = new MemoryStore();
    const store = new FaultInjectingStore(inner);
    store.stallLists();
    let started: WatchCache | undefined;
    const starting = WatchCache.start({ store, prefix: '/r/' }).then((c) => (started = c));
    try {
      await delay(300);
      assert.equal(started, undefined, 'still waiting for the store');
      store.releaseLists();
      const cache = await starting;
      assert.equal(cache.health().ready, true);
      assert.equal(cache.health().generation, 1);
    } finally {
      store.releaseLists();
      await (await starting).close();
      await inner.close();
    }
  });

  test('before the first sync: not ready, and says so; closed while listing, it never becomes ready', async () => {
    const inner = new MemoryStore();
    await inner.optimisticPut('/r/a', bytes('a'), 0);
    const store = new FaultInjectingStore(inner);
    store.stallLists();
    const errors: unknown[] = [];
    const cache = await WatchCache.start({ store, prefix: '/r/', name: 'things', startWaitMs: 20, onError: (e) => errors.push(e) });
    try {
      const h = cache.health();
      assert.deepEqual(h, { name: 'things', ready: false, revision: 0, since: h.since, generation: 0, lastError: 'not yet synced with the store' });
      assert.deepEqual(watchCacheProblems([cache]), ['watch-cache/things failed: not yet synced with the store']);
      refusedWith(cache, 'storage is (re)initializing');

      await cache.close();
      store.releaseLists(); // the list answers after the close
      await delay(50);
      assert.equal(cache.health().ready, false);
      assert.equal(store.calls.watch, 0, 'no store watch after close');
      assert.deepEqual(errors, []);
      refusedWith(cache, 'storage is (re)initializing');
    } finally {
      store.releaseLists();
      await cache.close();
      await inner.close();
    }
  });

  test('a failure without a message still turns watches away with kube\'s words', async () => {
    const inner = new MemoryStore();
    const store = new ControlledStore(inner);
    store.listFailure = new Error('');
    const cache = await WatchCache.start({ store, prefix: '/r/', backoff: { initialMs: 60_000, maxMs: 60_000 } });
    try {
      assert.equal(cache.health().lastError, '');
      refusedWith(cache, 'storage is (re)initializing');
    } finally {
      await cache.close();
      await inner.close();
    }
  });

  test('a ready cache reports no error; closed, it reports none either, and close is idempotent', async () => {
    const inner = new MemoryStore();
    const store = new FaultInjectingStore(inner);
    const errors: unknown[] = [];
    const recovered: number[] = [];
    const cache = await WatchCache.start({ store, prefix: '/r/', name: 'things', onError: (e) => errors.push(e), onRecovered: () => recovered.push(cache.health().generation) });
    const up = cache.health();
    assert.deepEqual(up, { name: 'things', ready: true, revision: up.revision, since: up.since, generation: 1 });
    assert.deepEqual(watchCacheProblems([cache]), []);
    assert.deepEqual(recovered, [], 'the first sync is no recovery');
    await cache.close();
    const closed = cache.health();
    assert.deepEqual(closed, { name: 'things', ready: false, revision: up.revision, since: closed.since, generation: 1 });
    assert.deepEqual(watchCacheProblems([cache]), ['watch-cache/things failed: not ready']);
    await delay(20);
    await cache.close();
    assert.equal(cache.health().since, closed.since, 'a second close changes nothing');
    assert.deepEqual(errors, [], 'closing is no failure');
    refusedWith(cache, 'storage is (re)initializing');
    await inner.close();
  });

  test('down since the break: failed re-watches do not restart the clock; a recovery is announced', async () => {
    const inner = new MemoryStore();
    const store = new FaultInjectingStore(inner);
    const sinces: number[] = [];
    const recovered: number[] = [];
    const cache = await WatchCache.start({
      store,
      prefix: '/r/',
      backoff: { initialMs: 40, maxMs: 80 },
      onError: () => sinces.push(cache.health().since),
      onRecovered: () => recovered.push(cache.health().generation),
    });
    try {
      store.failNextWatches(2);
      store.breakWatches('Unavailable');
      const since = cache.health().since;
      refusedWith(cache, 'storage is (re)initializing');
      await waitFor(() => cache.health().ready, 'recovery');
      assert.equal(sinces.length, 3, 'the break and two failed re-watches');
      assert.deepEqual(sinces, [since, since, since]);
      assert.deepEqual(recovered, [2]);
      store.breakWatches('Unavailable');
      await waitFor(() => cache.health().ready, 'the second recovery');
      assert.deepEqual(recovered, [2, 3]);
    } finally {
      await cache.close();
      await inner.close();
    }
  });

  test('retrying a store that stays down leaves no listener behind per attempt', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    const inner = new MemoryStore();
    const store = new FaultInjectingStore(inner);
    store.setDown(true);
    const cache = await WatchCache.start({ store, prefix: '/r/', backoff: { initialMs: 1, maxMs: 2 } });
    try {
      await waitFor(() => store.calls.list >= 30, '30 attempts');
      await delay(10); // warnings are emitted on the next tick
      assert.deepEqual(warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message), []);
    } finally {
      process.off('warning', onWarning);
      await cache.close();
      await inner.close();
    }
  });

  test('close ends the wait before the next attempt at once', async () => {
    const inner = new MemoryStore();
    const store = new FaultInjectingStore(inner);
    store.setDown(true);
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    const cache = await WatchCache.start({ store, prefix: '/r/', backoff: { initialMs: 60_000, maxMs: 60_000 } });
    try {
      await waitFor(() => timers() === before + 1, 'the backoff timer');
      await cache.close();
      assert.equal(timers(), before, 'no timer left running');
      assert.equal(store.calls.list, 1);
    } finally {
      await cache.close();
      await inner.close();
    }
  });
});
