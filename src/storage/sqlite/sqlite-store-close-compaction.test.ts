// close() does not wait for a long compaction: the writer stops it after the window it is in (the
// compacted revision is stored first, so what is left behind is dead rows that reads never see,
// removed by the next compaction), and a reopened store reads as before.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openSqliteStore } from './sqlite-store.js';

const KEYS = 5000;
const key = (i: number): string => `/c/${String(i).padStart(5, '0')}`;

/**
 * 5,000 keys written, then each written again: 10,000 revisions (ten compaction windows), the
 * superseded rows all removed by the last five windows (where their successors are).
 */
/** Returns the log rows left on disk. */
async function closeDuringCompaction(writer: 'thread' | 'inline'): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'sqlite-close-compaction-'));
  const path = join(dir, 'state.db');
  try {
    const store = openSqliteStore({ path, durability: 'normal', writer });
    const first = await Promise.all(Array.from({ length: KEYS }, (_, i) => store.optimisticPut(key(i), new Uint8Array([1]), 0)));
    await Promise.all(first.map((r, i) => store.optimisticPut(key(i), new Uint8Array([2]), r.revision)));
    const target = await store.currentRevision();
    // With a writer thread, another connection holds the write lock until close() has been asked:
    // the thread has both requests before it can run its first window, however loaded the machine.
    const blocker = writer === 'thread' ? new Database(path) : undefined;
    blocker?.exec('BEGIN IMMEDIATE');
    const compaction = store.compact(target);
    const closing = store.close();
    blocker?.exec('ROLLBACK');
    blocker?.close();
    await closing;
    await compaction; // ended by close: no error
    const reopened = openSqliteStore({ path, writer });
    try {
      assert.equal(await reopened.compactedRevision(), target, 'the compacted revision was stored before the first window');
      assert.equal(await reopened.count('/c/'), KEYS);
      assert.deepEqual([...(await reopened.get(key(KEYS - 1))).kv!.value], [2]);
    } finally {
      await reopened.close();
    }
    const raw = new Database(path, { readonly: true });
    try {
      return raw.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM log').get()!.n;
    } finally {
      raw.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('sqlite store: close during a compaction', () => {
  test('with a writer thread, the compaction stops after its current window: superseded rows are left for the next one', async () => {
    const logRows = await closeDuringCompaction('thread');
    assert.ok(logRows > KEYS, `${logRows} log rows: the compaction ran to its end rather than stopping at close`);
  });

  test('inline, close stops it too and the store reads the same after reopening', async () => {
    const logRows = await closeDuringCompaction('inline');
    assert.ok(logRows >= KEYS && logRows <= 2 * KEYS, `${logRows} log rows`);
  });
});
