// The watch cache over a store that fails as a networked store does (fault-injecting-store.ts):
// it turns not ready, ends its client watches, answers from the store meanwhile, re-lists and
// re-watches with backoff, and serves from memory again, without gaps or duplicates for clients
// that re-watch from their last resourceVersion.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { MemoryStore } from '../sqlite/memory-store.js';
import { FaultInjectingStore } from '../../../test/support/storage/fault-injecting-store.js';
import { WatchCache, watchCacheProblems, type WatchCacheOptions } from './watch-cache.js';
import { backoffDelay } from '../../apimachinery/backoff.js';
import { describeRevisionedStore } from '../../../test/support/storage/storage-conformance.js';
import { isStorageError, type WatchEvent } from '../revisioned-store.js';

const bytes = (s: string) => new TextEncoder().encode(s);
const FAST = { initialMs: 10, maxMs: 100 };

/** Fails if `p` has not settled within `ms`: nothing may hang on a cache that lost its store. */
async function within<T>(p: Promise<T>, ms = 5000, what = 'operation'): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms)));
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `cond` until true, at most `ms`. */
async function waitFor(cond: () => boolean, ms = 10_000, what = 'condition'): Promise<void> {
  for (const end = Date.now() + ms; !cond(); ) {
    if (Date.now() > end) throw new Error(`${what} not reached within ${ms} ms`);
    await delay(5);
  }
}

async function setup(opts: Partial<WatchCacheOptions> = {}) {
  const inner = new MemoryStore();
  const store = new FaultInjectingStore(inner);
  const errors: unknown[] = [];
  const cache = await WatchCache.start({ store, prefix: '/r/', name: 'things', backoff: FAST, onError: (e) => errors.push(e), ...opts });
  return { inner, store, cache, errors, close: async () => (await cache.close(), await inner.close()) };
}

/** Starts a watch and records what it delivers and how it ends. */
function record(w: { start(sink: { next(e: WatchEvent): boolean; end(err?: unknown): void }): void }) {
  const seen = { events: [] as WatchEvent[], ended: false, error: undefined as unknown };
  w.start({ next: (e) => (seen.events.push(e), true), end: (err) => ((seen.ended = true), (seen.error = err)) });
  return seen;
}

// The conformance suite again, through the fault-injecting wrapper with no fault injected: the
// wrapper itself is a faithful store, so the faults below are the only difference.
describeRevisionedStore('watch cache over the fault-injecting store', async () => {
  const inner = new MemoryStore();
  const cache = await WatchCache.start({ store: new FaultInjectingStore(inner), prefix: '/' });
  return { store: cache, cleanup: async () => (await cache.close(), await inner.close()) };
});

describe('watch cache recovery', () => {
  test('backoff delays grow, stay within bounds, and jitter', () => {
    for (let attempt = 0; attempt < 40; attempt++) {
      const step = Math.min(30_000, 100 * 2 ** attempt);
      assert.equal(backoffDelay(attempt, {}, () => 0), step / 2);
      assert.equal(backoffDelay(attempt, {}, () => 1), step);
      const d = backoffDelay(attempt);
      assert.ok(d >= step / 2 && d <= step, `attempt ${attempt}: ${d}`);
    }
    assert.equal(backoffDelay(1000, { initialMs: 10, maxMs: 50 }, () => 1), 50);
  });

  test('a broken store watch: not ready, client watches end cleanly, the store answers meanwhile, then memory again', async () => {
    const { inner, store, cache, errors, close } = await setup();
    try {
      await inner.optimisticPut('/r/a', bytes('a'), 0);
      await waitFor(() => cache.health().revision > 0 && cache.health().ready);
      const client = record(cache.watch('/r/', { afterRevision: 0 }));
      const generation = cache.health().generation;

      store.failNextWatches(3); // the re-watch fails a few times before it holds
      store.breakWatches('Unavailable');
      const down = cache.health();
      assert.equal(down.ready, false);
      assert.match(down.lastError ?? '', /watch ended/);
      assert.deepEqual(watchCacheProblems([cache]), [`watch-cache/things failed: ${down.lastError}`]);
      assert.equal(client.ended, true, 'the client watch ended at once');
      assert.equal(client.error, undefined, 'cleanly: the client re-lists and re-watches');

      // A new watch is turned away with a retry hint, never left waiting.
      assert.throws(() => cache.watch('/r/', { afterRevision: 0 }), (e: unknown) => isStorageError(e, 'TooManyRequests') && (e.retryAfterSeconds ?? 0) >= 1);
      // Lists and counts come from the store, current, at once.
      const b = await inner.optimisticPut('/r/b', bytes('b'), 0);
      if (!cache.health().ready) {
        const listsBefore = store.calls.list;
        const listed = await within(cache.list('/r/'), 5000, 'a list while not ready');
        assert.deepEqual(listed.kvs.map((kv) => kv.key), ['/r/a', '/r/b']);
        assert.ok(listed.revision >= b.revision);
        assert.ok(store.calls.list > listsBefore, 'served by the store');
        assert.equal(await within(cache.count('/r/')), 2);
      }

      await waitFor(() => cache.health().ready, 10_000, 'recovery');
      const up = cache.health();
      assert.equal(up.generation, generation + 1);
      assert.equal(up.lastError, undefined);
      assert.deepEqual(watchCacheProblems([cache]), []);
      assert.ok(errors.length >= 4, 'the watch end and each failed re-watch were reported');
      assert.ok(errors.every((e) => isStorageError(e, 'Unavailable')));

      // Memory again: a fresh list costs the store no list; a new watch fans out from the cache.
      const again = record(cache.watch('/r/', { afterRevision: 0 }));
      const c = await inner.optimisticPut('/r/c', bytes('c'), 0);
      const listsBefore = store.calls.list;
      const listed = await cache.list('/r/');
      assert.deepEqual(listed.kvs.map((kv) => kv.key), ['/r/a', '/r/b', '/r/c']);
      assert.equal(store.calls.list, listsBefore, 'served from memory');
      await waitFor(() => again.events.length > 0);
      assert.equal(again.events[0]!.revision, c.revision);
    } finally {
      await close();
    }
  });

  test('a list waiting for the cache to catch up answers from the store as soon as the store watch breaks', async () => {
    const { inner, store, cache, close } = await setup({ freshnessTimeoutMs: 60_000 });
    try {
      store.hold(); // events stay in transit: the cache falls behind the store
      const w = await inner.optimisticPut('/r/a', bytes('a'), 0);
      const pending = cache.list('/r/');
      await delay(20);
      store.breakWatches('Unavailable');
      const listed = await within(pending, 5000, 'the waiting list');
      assert.deepEqual(listed.kvs.map((kv) => kv.key), ['/r/a']);
      assert.equal(listed.revision, w.revision);
      store.release();
      await waitFor(() => cache.health().ready, 10_000, 'recovery');
    } finally {
      await close();
    }
  });

  test('compacted below the cache: the cache re-lists; a client resuming below the compaction gets Compacted, one resuming above it misses nothing', async () => {
    const { inner, store, cache, close } = await setup();
    try {
      const a = await inner.optimisticPut('/r/a', bytes('1'), 0);
      const a2 = await inner.optimisticPut('/r/a', bytes('2'), a.revision);
      await waitFor(() => cache.health().revision >= a2.revision);
      const client = record(cache.watch('/r/', { afterRevision: 0 }));
      store.failNextLists(2); // and the re-list fails twice before it succeeds
      const compacted = await store.compactAndBreak();
      assert.equal(cache.health().ready, false);
      assert.match(cache.health().lastError ?? '', /compacted/);
      assert.equal(client.ended, true);
      await waitFor(() => cache.health().ready, 10_000, 'recovery');
      assert.equal(cache.health().revision, compacted);

      const stale = cache.watch('/r/', { afterRevision: a.revision });
      await assert.rejects(within(stale[Symbol.asyncIterator]().next()), (e: unknown) => isStorageError(e, 'Compacted'));
      const resumed = record(cache.watch('/r/', { afterRevision: compacted }));
      const a3 = await inner.optimisticPut('/r/a', bytes('3'), a2.revision);
      await waitFor(() => resumed.events.length > 0);
      assert.deepEqual(resumed.events.map((e) => e.revision), [a3.revision]);
    } finally {
      await close();
    }
  });

  test('a store unreachable at start: a not-ready cache that retries with growing delays, ready when the store is back', async () => {
    const inner = new MemoryStore();
    const store = new FaultInjectingStore(inner);
    await inner.optimisticPut('/r/a', bytes('a'), 0);
    store.setDown(true);
    const cache = await within(WatchCache.start({ store, prefix: '/r/', name: 'things', backoff: { initialMs: 5, maxMs: 40 }, startWaitMs: 2000 }), 10_000, 'start');
    try {
      assert.equal(cache.health().ready, false);
      assert.equal(cache.health().generation, 0);
      assert.match(watchCacheProblems([cache])[0] ?? '', /^watch-cache\/things failed: .*unreachable/);
      await assert.rejects(within(cache.list('/r/')), (e: unknown) => isStorageError(e, 'Unavailable'));
      await delay(300);
      // Backoff, not a hot loop: delays of 2.5-5, 5-10, 10-20, then 20-40 ms allow at most about a
      // dozen attempts in 300 ms however fast the machine (a slow one only makes fewer).
      assert.ok(store.calls.list <= 20, `${store.calls.list} list attempts in 300 ms`);
      store.setDown(false);
      await waitFor(() => cache.health().ready, 10_000, 'the first sync');
      assert.equal(cache.health().generation, 1);
      assert.deepEqual((await cache.list('/r/')).kvs.map((kv) => kv.key), ['/r/a']);
    } finally {
      await cache.close();
      await inner.close();
    }
  });

  test('a store that does not answer at start: start returns a not-ready cache after startWaitMs, ready once the store answers', async () => {
    const inner = new MemoryStore();
    const store = new FaultInjectingStore(inner);
    store.stallLists();
    const cache = await within(WatchCache.start({ store, prefix: '/r/', name: 'things', backoff: FAST, startWaitMs: 50 }), 10_000, 'start');
    try {
      assert.equal(cache.health().ready, false);
      assert.throws(() => cache.watch('/r/', { afterRevision: 0 }), (e: unknown) => isStorageError(e, 'TooManyRequests'));
      store.releaseLists();
      await waitFor(() => cache.health().ready, 10_000, 'the first sync');
    } finally {
      await cache.close();
      await inner.close();
    }
  });

  test('clients that re-watch from their last resourceVersion see every change exactly once across repeated breaks', async () => {
    const { inner, store, cache, close } = await setup();
    try {
      const written: number[] = [];
      const seen: number[] = [];
      let lastRV = (await cache.list('/r/')).revision;
      let stop = false;
      let watchesEnded = 0;
      let refused = 0;
      // A reflector's watch loop: watch from the last RV; when the watch ends (cleanly, from the
      // cache, or with Unavailable, a store watch it was delegated to), watch again from it; on
      // 429, wait and retry.
      const reflector = (async () => {
        while (!stop) {
          let w;
          try {
            w = cache.watch('/r/', { afterRevision: lastRV });
          } catch (err) {
            assert.ok(isStorageError(err, 'TooManyRequests'));
            refused++;
            await delay(5);
            continue;
          }
          const it = w[Symbol.asyncIterator]();
          for (;;) {
            const next = await Promise.race([
              it.next().catch((err: unknown) => {
                assert.ok(isStorageError(err, 'Unavailable'), String(err));
                return { done: true as const, value: undefined };
              }),
              delay(50).then(() => 'idle' as const),
            ]);
            if (next === 'idle') {
              if (stop) break;
              continue;
            }
            if (next.done) {
              watchesEnded++;
              break;
            }
            if (next.value.type === 'progress') continue;
            seen.push(next.value.revision);
            lastRV = next.value.revision;
          }
          await it.return?.();
        }
      })();
      for (let i = 0; i < 60; i++) {
        const r = await inner.optimisticPut(`/r/k${i % 7}`, bytes(String(i)), (await inner.get(`/r/k${i % 7}`)).kv?.modRevision ?? 0);
        written.push(r.revision);
        if (i % 15 === 7) store.breakWatches('Unavailable');
        if (i % 3 === 0) await delay(2);
      }
      await waitFor(() => seen.length >= written.length, 10_000, 'every write seen');
      stop = true;
      await within(reflector, 5000, 'the reflector');
      assert.deepEqual(seen, written, 'every write, once, in order');
      // How many breaks found the client watching (rather than waiting out a 429) is up to timing.
      assert.ok(watchesEnded >= 1, 'client watches were ended by the breaks');
      assert.ok(cache.health().generation >= 2, 'the cache recovered');
    } finally {
      await close();
    }
  });

  test('a client resuming below the fresh window is replayed by the store, then moves to the cache\'s fan-out', async () => {
    const { inner, store, cache, close } = await setup();
    try {
      const a = await inner.optimisticPut('/r/a', bytes('1'), 0);
      await waitFor(() => cache.health().revision >= a.revision);
      store.breakWatches('Unavailable');
      const b = await inner.optimisticPut('/r/b', bytes('2'), 0);
      await waitFor(() => cache.health().ready, 10_000, 'recovery');
      assert.equal(store.openWatches, 1, "the cache's own store watch");
      const client = record(cache.watch('/r/', { afterRevision: a.revision }));
      await waitFor(() => client.events.length >= 1, 5000, 'the replay');
      await waitFor(() => store.openWatches === 1, 5000, 'the replaying store watch handed over');
      const c = await inner.optimisticPut('/r/c', bytes('3'), 0);
      await waitFor(() => client.events.length >= 2, 5000, 'the live event');
      assert.deepEqual(client.events.map((e) => e.revision), [b.revision, c.revision]);
      assert.equal(client.ended, false);
      // Served by the cache now: its store watch breaking ends the client's watch, cleanly.
      store.breakWatches('Unavailable');
      assert.equal(client.ended, true);
      assert.equal(client.error, undefined);
    } finally {
      await close();
    }
  });

  test('close stops the retries and refuses watches', async () => {
    const { store, cache, close } = await setup();
    store.setDown(true);
    await close();
    const lists = store.calls.list;
    await delay(100);
    assert.equal(store.calls.list, lists, 'no attempt after close');
    assert.equal(cache.health().ready, false);
    assert.throws(() => cache.watch('/r/', { afterRevision: 0 }), (e: unknown) => isStorageError(e, 'TooManyRequests'));
  });
});
