// SQLite backend: the shared conformance suite on a fresh file per test, plus what only a file-backed
// store has (reopen, the process lock, group commit, the watch queue bound).

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeRevisionedStore } from '../../../test/support/storage/storage-conformance.js';
import { openSqliteStore, type SqliteStore, type SqliteStoreOptions } from './sqlite-store.js';
import { isStorageError } from '../revisioned-store.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const dec = (b: Uint8Array): string => new TextDecoder().decode(b);
const tempDir = () => mkdtempSync(join(tmpdir(), 'sqlite-store-'));

describeRevisionedStore('sqlite', async () => {
  const dir = tempDir();
  const store = openSqliteStore({ path: join(dir, 'db', 'state.db') });
  return {
    store,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('sqlite store on disk', () => {
  test('data and the revision counter survive close and reopen', async () => {
    const dir = tempDir();
    const path = join(dir, 'state.db');
    try {
      const first = openSqliteStore({ path });
      const a = await first.optimisticPut('/k/a', new TextEncoder().encode('kept'), 0);
      await first.optimisticDelete('/k/a', a.revision);
      await first.optimisticPut('/k/b', new TextEncoder().encode('b'), 0);
      const before = await first.currentRevision();
      await first.close();

      const second = openSqliteStore({ path });
      try {
        assert.equal(await second.currentRevision(), before);
        assert.equal(new TextDecoder().decode((await second.get('/k/b')).kv!.value), 'b');
        assert.equal((await second.get('/k/a')).kv, undefined);
        const next = await second.optimisticPut('/k/c', new Uint8Array([1]), 0);
        assert.equal(next.revision, before + 1);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a second process-level open of the same file is refused while the first holds it', async () => {
    const dir = tempDir();
    const path = join(dir, 'state.db');
    const first = openSqliteStore({ path });
    try {
      assert.throws(() => openSqliteStore({ path }), (e: unknown) => isStorageError(e, 'Unavailable') && /in use by another process/.test(e.message));
    } finally {
      await first.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('writes issued in one turn share one transaction, and each gets its own outcome', async () => {
    await withTempStore({}, async (store) => {
      const base = await store.optimisticPut('/g/x', enc('0'), 0);
      const before = store.stats();
      const results = await Promise.allSettled([
        store.optimisticPut('/g/x', enc('a'), base.revision),
        store.optimisticPut('/g/x', enc('b'), base.revision),
        store.optimisticPut('/g/y', enc('y'), 0),
        store.optimisticPut('/g/y', enc('y again'), 0),
        store.optimisticDelete('/g/missing', 3),
        ...Array.from({ length: 20 }, (_, i) => store.optimisticPut(`/g/n/${i}`, new Uint8Array([i]), 0)),
      ]);
      const after = store.stats();
      assert.equal(after.transactions - before.transactions, 1, 'one transaction (one sync) for the whole turn');
      assert.equal(after.writes - before.writes, 22);
      const codes = results.slice(0, 5).map((r) => (r.status === 'fulfilled' ? 'ok' : isStorageError(r.reason) ? r.reason.code : 'other'));
      assert.deepEqual(codes, ['ok', 'Conflict', 'ok', 'KeyExists', 'KeyNotFound']);
      const conflict = (results[1] as PromiseRejectedResult).reason;
      assert.equal(dec(conflict.current.value), 'a', 'the conflict reports the value written earlier in the same batch');
      const revisions = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value.revision] : []));
      assert.deepEqual(revisions, Array.from({ length: 22 }, (_, i) => base.revision + 1 + i));
      assert.equal(await store.currentRevision(), base.revision + 22);
    });
  });

  test('a consumer that falls past the bound gets Unavailable; writers and other watchers go on', async () => {
    await withTempStore({ maxWatchQueue: 5 }, async (store) => {
      const ac = new AbortController();
      const stalled = store.watch('/s/', { afterRevision: 0, signal: ac.signal });
      const healthy = store.watch('/s/', { afterRevision: 0, signal: ac.signal });
      const healthyEvents: number[] = [];
      const reading = (async () => {
        for await (const e of healthy) {
          healthyEvents.push(e.revision);
          if (healthyEvents.length === 8) break;
        }
      })();
      for (let i = 0; i < 8; i++) await store.optimisticPut(`/s/${i}`, enc(String(i)), 0);
      await reading;
      assert.equal(healthyEvents.length, 8);
      await assert.rejects(
        (async () => {
          for await (const _ of stalled) void _;
        })(),
        (e: unknown) => isStorageError(e, 'Unavailable') && /fell too far behind/.test(e.message),
      );
      ac.abort();
    });
  });

  test('values over the limit are refused with ValueTooLarge', async () => {
    await withTempStore({ maxValueBytes: 1024 }, async (store) => {
      await assert.rejects(store.optimisticPut('/v/big', new Uint8Array(1025), 0), (e: unknown) => isStorageError(e, 'ValueTooLarge'));
      assert.equal((await store.optimisticPut('/v/ok', new Uint8Array(1024), 0)).kv.value.byteLength, 1024);
    });
  });

  test('the compacted and current revisions survive reopen after compacting a trailing delete; a stale lock from a dead process is taken over', async () => {
    const dir = tempDir();
    const path = join(dir, 'state.db');
    try {
      const first = openSqliteStore({ path, durability: 'normal' });
      const a = await first.optimisticPut('/c/a', enc('1'), 0);
      const b = await first.optimisticPut('/c/a', enc('2'), a.revision);
      const gone = await first.optimisticPut('/c/gone', enc('x'), 0);
      const last = await first.optimisticDelete('/c/gone', gone.revision);
      await first.compact(last.revision); // removes the newest log row (the tombstone)
      await first.close();
      writeFileSync(`${path}.lock`, '2147483646\n');
      const second = openSqliteStore({ path });
      try {
        assert.equal(await second.compactedRevision(), last.revision);
        assert.equal(await second.currentRevision(), last.revision, 'the revision never goes back');
        assert.equal((await second.optimisticPut('/c/next', enc('n'), 0)).revision, last.revision + 1);
        await assert.rejects(second.get('/c/a', { revision: a.revision }), (e: unknown) => isStorageError(e, 'Compacted'));
        assert.equal(dec((await second.get('/c/a')).kv!.value), '2');
      } finally {
        await second.close();
      }
      assert.equal(existsSync(`${path}.lock`), false, 'close releases the lock file');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

async function withTempStore(opts: Omit<SqliteStoreOptions, 'path'>, fn: (store: SqliteStore) => Promise<void>): Promise<void> {
  const dir = tempDir();
  const store = openSqliteStore({ path: join(dir, 'state.db'), ...opts });
  try {
    await fn(store);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
