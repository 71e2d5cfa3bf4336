// Which reads the watch cache answers from memory and which it passes to its store, when it asks
// the store for progress, and what it does with what its store watch delivers (issue #35). The
// store is steered step by step (controlled-store.ts): events held in transit and let through one
// at a time, the store watch ended with an error while its stream still runs.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { MemoryStore } from '../sqlite/memory-store.js';
import { ControlledStore, type ControlledWatch } from '../../../test/support/storage/controlled-store.js';
import { WatchCache, type WatchCacheOptions } from './watch-cache.js';
import { StorageError, isStorageError, type WatchEvent } from '../revisioned-store.js';

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array | undefined) => (b === undefined ? undefined : new TextDecoder().decode(b));
const keys = (r: { kvs: { key: string }[] }) => r.kvs.map((kv) => kv.key);
/** A backoff that keeps a broken cache down for the rest of the test. */
const STAY_DOWN = { initialMs: 60_000, maxMs: 60_000 };

/** Lets pending promise callbacks and store work run (a bounded number of turns). */
async function settle(turns = 20): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((r) => setImmediate(r));
}

async function waitFor(cond: () => boolean, what: string, ms = 10_000): Promise<void> {
  for (const end = Date.now() + ms; !cond(); ) {
    if (Date.now() > end) throw new Error(`${what} not reached within ${ms} ms`);
    await delay(5);
  }
}

function record(w: { start(sink: { next(e: WatchEvent): boolean; end(err?: unknown): void }): void }) {
  const seen = { events: [] as WatchEvent[], ended: false, error: undefined as unknown };
  w.start({ next: (e) => (seen.events.push(e), true), end: (err) => ((seen.ended = true), (seen.error = err)) });
  return seen;
}

async function setup(opts: Partial<WatchCacheOptions> = {}, before?: (inner: MemoryStore) => Promise<void>) {
  const inner = new MemoryStore();
  await before?.(inner);
  const store = new ControlledStore(inner);
  const errors: unknown[] = [];
  const cache = await WatchCache.start({ store, prefix: '/r/', name: 'things', backoff: { initialMs: 10, maxMs: 20 }, onError: (e) => errors.push(e), ...opts });
  assert.equal(cache.health().ready, true);
  const own: ControlledWatch = store.lastWatch;
  return { inner, store, cache, own, errors, close: async () => (own.releaseAll(), await cache.close(), await inner.close()) };
}

describe('watch cache routing', () => {
  test('reads and watches outside its prefix are the store\'s, inside it the cache\'s', async () => {
    const { inner, store, cache, close } = await setup();
    try {
      await inner.optimisticPut('/r/a', bytes('a'), 0);
      await inner.optimisticPut('/other/x', bytes('x'), 0);
      // A prefix that merely ends like the cache's is not the cache's.
      await inner.optimisticPut('/x/r/y', bytes('y'), 0);
      const lists = store.calls.list;
      assert.deepEqual(keys(await cache.list('/other/')), ['/other/x']);
      assert.deepEqual(keys(await cache.list('/other/', { anyRecent: true })), ['/other/x']);
      assert.equal(store.calls.list, lists + 2);
      assert.equal(text((await cache.get('/other/x')).kv?.value), 'x');
      assert.equal(store.calls.get, 1);
      assert.equal(await cache.count('/other/'), 1);
      assert.equal(store.calls.count, 1);
      // Its own prefix: from memory.
      assert.deepEqual(keys(await cache.list('/r/')), ['/r/a']);
      assert.equal(await cache.count('/r/'), 1);
      assert.equal(store.calls.list, lists + 2);
      assert.equal(store.calls.count, 1);

      const watches = store.calls.watch;
      const other = record(cache.watch('/other/', { afterRevision: 0 }));
      const tail = record(cache.watch('/x/r/', { afterRevision: 0 }));
      assert.equal(store.calls.watch, watches + 2, 'each a store watch of its own');
      const z = await inner.optimisticPut('/other/z', bytes('z'), 0);
      const y = await inner.optimisticPut('/x/r/z', bytes('z'), 0);
      await waitFor(() => other.events.length > 0 && tail.events.length > 0, 'the store watches\' events');
      assert.deepEqual(other.events.map((e) => e.revision), [z.revision]);
      assert.deepEqual(tail.events.map((e) => e.revision), [y.revision]);
    } finally {
      await close();
    }
  });

  test('a watch from the cache\'s revision or from its window\'s start fans out from memory', async () => {
    const { inner, store, cache, close } = await setup({}, async (s) => void (await s.optimisticPut('/r/a', bytes('a'), 0)));
    try {
      const start = cache.health().revision;
      assert.ok(start > 0);
      const watches = store.calls.watch;
      const latest = record(cache.watch('/r/', { afterRevision: 0 }));
      const fromStart = record(cache.watch('/r/', { afterRevision: start }));
      assert.equal(store.calls.watch, watches, 'no store watch');
      const b = await inner.optimisticPut('/r/b', bytes('b'), 0);
      await waitFor(() => latest.events.length > 0 && fromStart.events.length > 0, 'the live event');
      assert.deepEqual(latest.events.map((e) => e.revision), [b.revision]);
      assert.deepEqual(fromStart.events.map((e) => e.revision), [b.revision]);
    } finally {
      await close();
    }
  });

  test('the later pages of a list read at the prefix\'s last change come from memory', async () => {
    const { inner, store, cache, close } = await setup();
    try {
      for (const k of ['a', 'b', 'c']) await inner.optimisticPut(`/r/${k}`, bytes(k), 0);
      const first = await cache.list('/r/', { limit: 2 });
      assert.deepEqual(keys(first), ['/r/a', '/r/b']);
      assert.equal(first.revision, await inner.currentRevision(), 'the last change under the prefix is the store\'s revision');
      const lists = store.calls.list;
      const rest = await cache.list('/r/', { limit: 2, startAfter: '/r/b', revision: first.revision });
      assert.deepEqual(keys(rest), ['/r/c']);
      assert.equal(rest.revision, first.revision);
      assert.equal(store.calls.list, lists, 'served from memory');
    } finally {
      await close();
    }
  });

  test('consistent reads ask the store for progress only while the cache is behind, and many share one request', async () => {
    const { inner, store, cache, own, close } = await setup();
    try {
      const a = await inner.optimisticPut('/r/a', bytes('a'), 0);
      assert.equal(text((await cache.get('/r/a')).kv?.value), 'a');
      assert.deepEqual(keys(await cache.list('/r/')), ['/r/a']);
      assert.equal(await cache.count('/r/'), 1);
      assert.equal(store.calls.progressRequests, 0, 'caught up: nothing to ask');
      assert.equal(store.calls.get, 0);

      // Behind: a write elsewhere moved the store's revision; the answer is held in transit.
      own.holding = true;
      const x = await inner.optimisticPut('/other/x', bytes('x'), 0);
      const got = await cache.get('/r/a');
      assert.equal(got.kv?.modRevision, a.revision);
      assert.equal(store.calls.get, 1, 'answered by the store while the cache is behind');
      const listing = cache.list('/r/');
      const counting = cache.count('/r/');
      await cache.get('/r/a');
      await settle();
      assert.equal(store.calls.progressRequests, 1, 'one request for every reader waiting');
      own.releaseAll();
      const listed = await listing;
      assert.deepEqual(keys(listed), ['/r/a']);
      assert.equal(listed.revision, x.revision);
      assert.equal(await counting, 1);
      assert.equal(store.calls.list, 1, 'only the first sync listed the store');
      assert.equal(cache.health().revision, x.revision);

      // Answered: the next time the cache is behind it asks again, at once.
      await inner.optimisticPut('/other/y', bytes('y'), 0);
      const gets = store.calls.get;
      assert.equal(text((await cache.get('/r/a')).kv?.value), 'a');
      assert.equal(store.calls.progressRequests, 2);
      assert.equal(store.calls.get, gets, 'the progress (delivered at once) caught the cache up: from memory');
    } finally {
      await close();
    }
  });

  test('a consistent list waits for every event up to the store\'s revision, not just the next one', async () => {
    const { inner, store, cache, own, close } = await setup({ freshnessTimeoutMs: 5_000 });
    try {
      own.holding = true;
      await inner.optimisticPut('/r/a', bytes('a'), 0);
      const b = await inner.optimisticPut('/r/b', bytes('b'), 0);
      let answered = false;
      const listing = cache.list('/r/').then((r) => ((answered = true), r));
      await settle();
      own.releaseOne();
      await settle();
      assert.equal(answered, false, 'one event short of the store\'s revision');
      own.releaseAll();
      const listed = await listing;
      assert.deepEqual(keys(listed), ['/r/a', '/r/b']);
      assert.equal(listed.revision, b.revision);
      assert.equal(store.calls.list, 1, 'from memory');
    } finally {
      await close();
    }
  });

  test('a progress notification older than the cache does not move it back', async () => {
    const { inner, cache, own, close } = await setup();
    try {
      const a = await inner.optimisticPut('/r/a', bytes('a'), 0);
      const b = await inner.optimisticPut('/r/b', bytes('b'), 0);
      own.inject({ type: 'progress', revision: a.revision });
      assert.equal(cache.health().revision, b.revision);
      assert.equal((await cache.list('/r/', { anyRecent: true })).revision, b.revision);
    } finally {
      await close();
    }
  });
});

describe('watch cache and a failing store watch', () => {
  test('a store watch that fails: the failure is the one reported, however its stream ends after; what it still delivers is ignored', async () => {
    const { inner, store, cache, own, errors, close } = await setup();
    try {
      const one = await inner.optimisticPut('/r/a', bytes('one'), 0);
      const client = record(cache.watch('/r/', { afterRevision: 0 }));
      own.holding = true;
      const two = await inner.optimisticPut('/r/a', bytes('two'), one.revision);
      const three = await inner.optimisticPut('/r/a', bytes('three'), two.revision);
      const lost = new StorageError('Unavailable', 'connection lost');
      own.fail(lost); // the stream under it ends as the cache lets go of it
      assert.equal(own.innerEnds.length, 1, 'the cache stopped the stream under it');
      const down = cache.health();
      assert.deepEqual(down, { name: 'things', ready: false, revision: one.revision, since: down.since, generation: 1, lastError: 'connection lost' });
      assert.equal(client.ended, true);
      assert.equal(client.error, undefined);
      // Checked before the run loop's next turn: the re-list comes a few milliseconds later.
      assert.throws(
        () => cache.watch('/r/', { afterRevision: 0 }),
        (e: unknown) => isStorageError(e, 'TooManyRequests') && e.message === 'storage is (re)initializing' && e.retryAfterSeconds === 1,
      );
      assert.deepEqual(errors, []);
      await settle(2);
      assert.deepEqual(errors, [lost], 'reported once, as it came');

      await waitFor(() => cache.health().ready, 'recovery');
      assert.equal(cache.health().revision, three.revision);
      // The old stream's event, still in transit, arrives after the re-list: too late to matter.
      own.releaseOne(); // a=two
      const got = await cache.get('/r/a', { anyRecent: true });
      assert.equal(text(got.kv?.value), 'three');
      assert.equal(got.kv?.modRevision, three.revision);
      assert.equal(store.calls.get, 0);
      assert.deepEqual(errors, [lost]);
    } finally {
      await close();
    }
  });

  test('a store watch that ends without an error is a failure too', async () => {
    const { cache, own, errors, close } = await setup({ backoff: STAY_DOWN });
    try {
      own.fail();
      assert.equal(cache.health().lastError, "the store ended the watch cache's watch");
      await settle(2);
      assert.equal(errors.length, 1);
      assert.ok(isStorageError(errors[0], 'Unavailable'));
      assert.equal((errors[0] as Error).message, "the store ended the watch cache's watch");
    } finally {
      await close();
    }
  });

  test('an event the cache cannot take in (a malformed one) ends its store watch, reported as it was thrown; a re-list follows', async () => {
    const { inner, store, cache, own, errors, close } = await setup();
    try {
      const a = await inner.optimisticPut('/r/a', bytes('a'), 0);
      // A put without its key-value: what a faulty store or a broken decoder might hand over.
      assert.doesNotThrow(() => own.inject({ type: 'put', revision: a.revision + 1 } as unknown as WatchEvent));
      const down = cache.health();
      assert.equal(down.ready, false);
      assert.equal(own.stopped, true, 'its stream stopped');
      await settle(2);
      assert.equal(errors.length, 1);
      assert.ok(errors[0] instanceof TypeError, String(errors[0]));
      assert.equal(down.lastError, (errors[0] as Error).message);
      await waitFor(() => cache.health().ready, 'recovery');
      assert.equal(cache.health().generation, 2);
      assert.equal(cache.health().revision, a.revision);
      const lists = store.calls.list;
      assert.deepEqual(keys(await cache.list('/r/')), ['/r/a']);
      assert.equal(store.calls.list, lists, 'from memory again');
    } finally {
      await close();
    }
  });

  test('a read that began while the cache was ready and learnt the store\'s revision after its watch broke is the store\'s', async () => {
    const { inner, store, cache, own, close } = await setup({ backoff: STAY_DOWN });
    try {
      await inner.optimisticPut('/r/a', bytes('a'), 0);
      store.onCurrentRevision = async () => {
        store.onCurrentRevision = undefined;
        own.fail(new StorageError('Unavailable', 'connection lost'));
        await inner.optimisticPut('/r/b', bytes('b'), 0);
      };
      const lists = store.calls.list;
      assert.deepEqual(keys(await cache.list('/r/')), ['/r/a', '/r/b']);
      assert.equal(store.calls.list, lists + 1);
      // Down: even resourceVersion=0 reads go to the store (memory no longer follows it).
      assert.equal(text((await cache.get('/r/b', { anyRecent: true })).kv?.value), 'b');
      assert.deepEqual(keys(await cache.list('/r/', { anyRecent: true })), ['/r/a', '/r/b']);
      assert.equal(await cache.count('/r/'), 2);
      assert.equal(store.calls.list, lists + 2);
    } finally {
      await close();
    }
  });

  test('a get that learnt the store\'s revision after the cache\'s watch broke is the store\'s', async () => {
    const { inner, store, cache, own, close } = await setup({ backoff: STAY_DOWN });
    try {
      const one = await inner.optimisticPut('/r/a', bytes('one'), 0);
      store.onCurrentRevision = async () => {
        store.onCurrentRevision = undefined;
        own.fail(new StorageError('Unavailable', 'connection lost'));
        await inner.optimisticPut('/r/a', bytes('two'), one.revision);
      };
      const got = await cache.get('/r/a');
      assert.equal(text(got.kv?.value), 'two');
      assert.equal(store.calls.get, 1);
    } finally {
      await close();
    }
  });

  test('a paused client whose replay reached the window, which moved on before it resumed, stays on the store', async () => {
    const { inner, cache, close } = await setup({ windowSize: 1 });
    try {
      const a1 = await inner.optimisticPut('/r/x/a', bytes('1'), 0);
      const a2 = await inner.optimisticPut('/r/x/a', bytes('2'), a1.revision);
      const y = await inner.optimisticPut('/r/y', bytes('y'), 0); // the window: [y], from a2 on
      const watch = cache.watch('/r/x/', { afterRevision: a1.revision }); // below the window: the store replays
      const seen: WatchEvent[] = [];
      let ended: { err: unknown } | undefined;
      watch.requestProgress();
      // The client takes events, and pauses at its progress event (which completes the replay).
      watch.start({ next: (e) => (seen.push(e), e.type !== 'progress'), end: (err) => (ended = { err }) });
      assert.deepEqual(
        seen.map((e) => [e.type, e.revision]),
        [
          ['put', a2.revision],
          ['progress', y.revision],
        ],
      );
      // Meanwhile the window moves past where the client is.
      const y2 = await inner.optimisticPut('/r/y', bytes('y2'), y.revision);
      await inner.optimisticPut('/r/y', bytes('y3'), y2.revision);
      watch.resume();
      const a3 = await inner.optimisticPut('/r/x/a', bytes('3'), a2.revision);
      await waitFor(() => seen.some((e) => e.revision === a3.revision) || ended !== undefined, 'the next event');
      assert.equal(ended, undefined, 'not ended (a 410 would make the client re-list)');
      assert.deepEqual(
        seen.filter((e) => e.type === 'put').map((e) => e.revision),
        [a2.revision, a3.revision],
      );
      watch.stop();
    } finally {
      await close();
    }
  });

  test('a watch replayed by the store that reaches the window while the cache is down stays on the store', async () => {
    const { inner, store, cache, own, close } = await setup({ windowSize: 1, backoff: STAY_DOWN });
    try {
      const a = await inner.optimisticPut('/r/a', bytes('1'), 0);
      const b = await inner.optimisticPut('/r/b', bytes('2'), 0);
      const c = await inner.optimisticPut('/r/c', bytes('3'), 0);
      const replayed = cache.watch('/r/', { afterRevision: a.revision }); // below the window: the store replays
      assert.equal(store.calls.watch, 2);
      own.fail(new StorageError('Unavailable', 'connection lost'));
      assert.equal(cache.health().ready, false);
      const client = record(replayed);
      const d = await inner.optimisticPut('/r/d', bytes('4'), 0);
      await waitFor(() => client.events.filter((e) => e.type !== 'progress').length >= 3, 'the replay and the live event');
      assert.deepEqual(
        client.events.filter((e) => e.type !== 'progress').map((e) => e.revision),
        [b.revision, c.revision, d.revision],
      );
      assert.equal(client.ended, false);
    } finally {
      await close();
    }
  });
});
