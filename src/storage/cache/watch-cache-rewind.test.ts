// The watch cache over a store whose history went back (etcd restored from an older snapshot,
// issue #35): the store watch ends with HistoryRewound, the cache's clients hear it (a 410: they
// re-list), the cache re-lists, and until the new history passes the old one a client resuming
// from a resourceVersion of the lost history gets Compacted rather than a silent wait, while
// versions the new history holds, or has not reached under either, are served.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { MemoryStore } from '../sqlite/memory-store.js';
import { ControlledStore } from '../../../test/support/storage/controlled-store.js';
import { WatchCache } from './watch-cache.js';
import { HistoryRewound, StorageError, isStorageError, type WatchEvent } from '../revisioned-store.js';

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array | undefined) => (b === undefined ? undefined : new TextDecoder().decode(b));

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

/** The same writes to `store`: the value of /r/a set to 1..n. */
async function writeHistory(store: MemoryStore, from: number, to: number): Promise<number[]> {
  const revisions: number[] = [];
  for (let i = from; i <= to; i++) {
    const prev = (await store.get('/r/a')).kv?.modRevision ?? 0;
    revisions.push((await store.optimisticPut('/r/a', bytes(String(i)), prev)).revision);
  }
  return revisions;
}

test('a store restored from an older snapshot: clients hear 410, the cache re-lists, and resourceVersions of the lost history get Compacted until the new history passes them', async () => {
  const before = new MemoryStore();
  const snapshot = new MemoryStore();
  const store = new ControlledStore(before);
  const cache = await WatchCache.start({ store, prefix: '/r/', backoff: { initialMs: 10, maxMs: 20 } });
  try {
    const lost = await writeHistory(before, 1, 5); // r1..r5
    const kept = await writeHistory(snapshot, 1, 2); // the backup: r1, r2
    assert.deepEqual(kept, lost.slice(0, 2));
    const [r1, r2, , r4, r5] = lost as [number, number, number, number, number];
    await waitFor(() => cache.health().revision === r5, 'the cache at r5');
    const client = record(cache.watch('/r/', { afterRevision: 0 }));

    // The restore: the store now answers from the snapshot, and its watch says so.
    store.listFailure = new StorageError('Unavailable', 'restarting');
    store.inner = snapshot;
    store.watches[0]!.fail(new HistoryRewound(r5, r2));
    assert.equal(client.ended, true);
    assert.ok(client.error instanceof HistoryRewound, 'the client re-lists (410)');
    // Not ready: even a read the cache's memory (r5) seems new enough for is the store's (r2).
    assert.equal(cache.health().ready, false);
    assert.equal(text((await cache.get('/r/a')).kv?.value), '2');

    store.listFailure = undefined;
    await waitFor(() => cache.health().ready, 'the re-list');
    assert.equal(cache.health().revision, r2);
    const refused = (after: number) =>
      assert.throws(
        () => cache.watch('/r/', { afterRevision: after }),
        (e: unknown) =>
          isStorageError(e, 'Compacted') && e.revision === r2 && e.message === `resourceVersion ${after} is from before the store's history went back to ${r2}; list again`,
        `resourceVersion ${after}`,
      );
    refused(r4);
    refused(r5);
    // What the new history holds is served: from the cache, or replayed by the store.
    const atRelist = record(cache.watch('/r/', { afterRevision: r2 }));
    const latest = record(cache.watch('/r/', { afterRevision: 0 }));
    const older = record(cache.watch('/r/', { afterRevision: r1 }));
    // A version beyond the old history is a future one for either: it waits.
    const future = record(cache.watch('/r/', { afterRevision: r5 + 1 }));

    const again = await writeHistory(snapshot, 3, 5); // the new history reaches r5
    assert.deepEqual(again, lost.slice(2));
    await waitFor(() => cache.health().revision === r5, 'the cache at the new r5');
    const values = (s: ReturnType<typeof record>) => s.events.flatMap((e) => (e.type === 'put' ? [`${e.revision}=${text(e.kv.value)}`] : []));
    await waitFor(() => values(older).length === 4, 'the replay and the new history');
    assert.deepEqual(values(atRelist), [`${lost[2]}=3`, `${r4}=4`, `${r5}=5`]);
    assert.deepEqual(values(latest), values(atRelist));
    assert.deepEqual(values(older), [`${r2}=2`, `${lost[2]}=3`, `${r4}=4`, `${r5}=5`]);
    assert.deepEqual(future.events, []);
    assert.equal(future.ended, false);
    // Passed: r4 is a version of the new history now.
    const resumed = record(cache.watch('/r/', { afterRevision: r4 }));
    const [r6, r7] = await writeHistory(snapshot, 6, 7);
    assert.equal(r6, r5 + 1);
    await waitFor(() => values(resumed).length === 3 && future.events.length > 0, 'the next writes');
    assert.deepEqual(values(resumed), [`${r5}=5`, `${r6}=6`, `${r7}=7`]);
    assert.deepEqual(values(future), [`${r7}=7`]);
  } finally {
    await cache.close();
    await before.close();
    await snapshot.close();
  }
});
