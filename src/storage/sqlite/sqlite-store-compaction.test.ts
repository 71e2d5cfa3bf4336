// Compaction is capped at the current revision (issue #35): asking for a revision the store has
// not reached compacts up to where it is and no further, so reads and watches at the current
// revision keep working and the revisions written next are not born compacted.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore, type SqliteStore } from './sqlite-store.js';
import { MemoryStore } from './memory-store.js';
import { iterate } from '../push-stream.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

async function capped(store: SqliteStore): Promise<void> {
  await store.optimisticPut('/k/a', enc('a'), 0);
  const b = await store.optimisticPut('/k/b', enc('b'), 0);
  await store.compact(b.revision + 100);
  assert.equal(await store.compactedRevision(), b.revision);
  assert.equal(await store.currentRevision(), b.revision);
  // The current revision still reads; the next write is readable at its own revision and
  // watchable from the current one.
  assert.deepEqual((await store.list('/k/', { revision: b.revision })).kvs.map((kv) => kv.key), ['/k/a', '/k/b']);
  const watch = store.watch('/k/', { afterRevision: b.revision });
  const events = iterate(watch);
  const c = await store.optimisticPut('/k/c', enc('c'), 0);
  assert.equal(c.revision, b.revision + 1);
  assert.equal((await store.get('/k/c', { revision: c.revision })).kv?.modRevision, c.revision);
  const first = await events.next();
  assert.equal(first.done, false);
  assert.equal(first.value.type === 'put' && first.value.kv.key, '/k/c');
  watch.stop();
  // Compacting backwards or to where it is already changes nothing.
  await store.compact(1);
  assert.equal(await store.compactedRevision(), b.revision);
}

describe('sqlite compaction past the current revision', () => {
  test('memory store (inline writer)', async () => {
    const store = new MemoryStore();
    try {
      await capped(store);
    } finally {
      await store.close();
    }
  });

  test('file store (writer thread), and the capped revision is what a reopen finds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sqlite-compaction-'));
    const path = join(dir, 'state.db');
    try {
      const store = openSqliteStore({ path });
      let compacted: number;
      try {
        await capped(store);
        compacted = await store.compactedRevision();
      } finally {
        await store.close();
      }
      const reopened = openSqliteStore({ path });
      try {
        assert.equal(await reopened.compactedRevision(), compacted);
      } finally {
        await reopened.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
