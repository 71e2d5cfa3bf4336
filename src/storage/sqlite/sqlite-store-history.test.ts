// A watch from a past revision replays the SQLite log page by page (500 events a page). Compaction
// that overtakes a slow replay ends it with Compacted at its next page, rather than letting it skip
// what compaction removed; compaction up to exactly where the replay has read costs it nothing.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryStore } from './memory-store.js';
import { iterate } from '../push-stream.js';
import { isStorageError, type WatchEvent } from '../revisioned-store.js';

const PAGE = 500;

/** A store holding 600 puts of distinct keys under /h/ (one batch); returns the revision before them. */
async function storeWith600(): Promise<{ store: MemoryStore; start: number }> {
  const store = new MemoryStore();
  const start = await store.currentRevision();
  await Promise.all(Array.from({ length: 600 }, (_, i) => store.optimisticPut(`/h/${String(i).padStart(4, '0')}`, new Uint8Array([i & 0xff]), 0)));
  return { store, start };
}

describe('sqlite store: compaction during a watch replay', () => {
  test('compaction past the page a replay has read ends it with Compacted at the next page', async () => {
    const { store, start } = await storeWith600();
    try {
      const events = iterate(store.watch('/h/', { afterRevision: start }));
      const first = await events.next(); // the first page (500 events) is read now
      assert.equal((first.value as WatchEvent).revision, start + 1);
      await store.compact(start + PAGE + 1);
      const seen: number[] = [];
      await assert.rejects(
        (async () => {
          // Bounded: without the check, the replay would deliver all 599 and then wait for more.
          while (seen.length < 599) {
            const e = await events.next();
            if (e.done) break;
            seen.push(e.value.revision);
          }
        })(),
        (e: unknown) => {
          assert.ok(isStorageError(e, 'Compacted'), String(e));
          assert.equal(e.message, `required revision ${start + PAGE} has been compacted (compacted revision ${start + PAGE + 1})`);
          assert.equal(e.revision, start + PAGE + 1);
          return true;
        },
      );
      assert.deepEqual(seen, Array.from({ length: PAGE - 1 }, (_, i) => start + 2 + i), 'the page already read is delivered first');
    } finally {
      await store.close();
    }
  });

  test('compaction up to the last revision a replay has read lets it go on to the end', async () => {
    const { store, start } = await storeWith600();
    try {
      const events = iterate(store.watch('/h/', { afterRevision: start }));
      await events.next();
      await store.compact(start + PAGE);
      const seen = [start + 1];
      while (seen.length < 600) {
        const e = await events.next();
        assert.equal(e.done, false);
        seen.push((e.value as WatchEvent).revision);
      }
      assert.deepEqual(seen, Array.from({ length: 600 }, (_, i) => start + 1 + i));
      await events.return!();
    } finally {
      await store.close();
    }
  });
});
