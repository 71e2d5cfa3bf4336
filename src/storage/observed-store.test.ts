// The observing decorators: store requests are timed with their operation and type (a failed
// compare-and-swap is not an error), and watches report registration, events and their end.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryStore } from './sqlite/memory-store.js';
import { timedStore, watchedStore } from './observed-store.js';
import { isStorageError } from './revisioned-store.js';
import { noopStorageObserver, type StorageObserver } from './storage-observer.js';

const enc = (s: string) => new TextEncoder().encode(s);

function recorder(): { calls: string[]; observer: StorageObserver } {
  const calls: string[] = [];
  return {
    calls,
    observer: {
      ...noopStorageObserver,
      request: (op, type, seconds, failed) => {
        assert.ok(seconds >= 0);
        calls.push(`${op} ${type}${failed ? ' failed' : ''}`);
      },
      watchers: (r, d) => calls.push(`watchers ${r} ${d}`),
      watchEvent: (r) => calls.push(`event ${r}`),
      cacheInitialized: (r) => calls.push(`cache-init ${r}`),
      cacheFeedEnded: (r) => calls.push(`cache-ended ${r}`),
      cacheEvent: (r, rev) => calls.push(`cache-event ${r} ${rev}`),
    },
  };
}

test('timedStore reports each request with its operation and the type of its key', async () => {
  const { calls, observer } = recorder();
  const store = timedStore(new MemoryStore(), observer, { prefixes: [{ prefix: '/registry/a/', type: 'as.g' }, { prefix: '/registry/a/b/', type: 'bs.g' }], fallback: 'unknown' });
  const put = await store.optimisticPut('/registry/a/x', enc('1'), 0);
  await store.optimisticPut('/registry/a/x', enc('2'), put.revision);
  await assert.rejects(store.optimisticPut('/registry/a/x', enc('3'), 0), (e: unknown) => isStorageError(e, 'KeyExists'));
  await store.get('/registry/a/b/y');
  await store.list('/registry/a/');
  await store.count('/other/');
  await store.optimisticDelete('/registry/a/x', put.revision + 1);
  assert.deepEqual(calls, ['create as.g', 'update as.g', 'create as.g', 'get bs.g', 'list as.g', 'listWithCount unknown', 'delete as.g']);
  await store.close();
});

test('watchedStore: a client watch registers, counts events and unregisters once; a cache feed reports its end', async () => {
  const inner = new MemoryStore();
  const { calls, observer } = recorder();
  const client = watchedStore(inner, observer, 'as.g', 'client');
  const w = client.watch('/a/', { afterRevision: 0 });
  const seen: string[] = [];
  w.start({ next: (e) => (seen.push(e.type), true), end: () => seen.push('end') });
  await inner.optimisticPut('/a/x', enc('1'), 0);
  await new Promise((r) => setImmediate(r));
  w.stop();
  w.stop();
  assert.deepEqual(calls, ['watchers as.g 1', 'event as.g', 'watchers as.g -1']);
  assert.deepEqual(seen, ['put']);

  calls.length = 0;
  const cacheStore = watchedStore(inner, observer, 'as.g', 'cache');
  const feed = cacheStore.watch('/a/', { afterRevision: 0 });
  feed.start({ next: () => true, end: () => {} });
  // A client watch the cache hands to the store while its feed runs is not the feed.
  const resumed = cacheStore.watch('/a/', { afterRevision: 0 });
  resumed.start({ next: () => true, end: () => {} });
  const y = await inner.optimisticPut('/a/y', enc('1'), 0);
  await new Promise((r) => setImmediate(r));
  resumed.stop();
  await inner.close();
  assert.deepEqual(calls, ['cache-init as.g', `cache-event as.g ${y.revision}`, 'cache-ended as.g']);
});
