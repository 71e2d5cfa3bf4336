// The SQLite store's edges that the conformance suite leaves open: what a closed store answers,
// the exact errors of refused writes and reads (code, key, current value, revision), list options
// out of range, the writer connection's settings, and the bounds on the pipeline and compaction.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openSqliteStore, type SqliteStore, type SqliteStoreOptions } from './sqlite-store.js';
import { MemoryStore } from './memory-store.js';
import { isStorageError, StorageError } from '../revisioned-store.js';
import { iterate } from '../push-stream.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const dec = (b: Uint8Array): string => new TextDecoder().decode(b);

async function withStore(opts: Omit<SqliteStoreOptions, 'path'>, fn: (store: SqliteStore, path: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sqlite-edges-'));
  const path = join(dir, 'state.db');
  const store = openSqliteStore({ path, ...opts });
  try {
    await fn(store, path);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Resolves with the promise's outcome, or fails the test after a bounded wait. */
async function within<T>(p: Promise<T>, what: string, ms = 10_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)));
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

const storageError = (code: string, check: (e: StorageError) => void = () => {}) => (e: unknown) => {
  assert.ok(isStorageError(e), String(e));
  assert.equal(e.code, code, e.message);
  check(e);
  return true;
};

describe('sqlite store: refused writes carry what the caller needs', () => {
  test('KeyExists, KeyNotFound and Conflict name the key, and the current value where there is one', async () => {
    const store = new MemoryStore();
    try {
      const a = await store.optimisticPut('/e/a', enc('one'), 0);
      await assert.rejects(
        store.optimisticPut('/e/a', enc('two'), 0),
        storageError('KeyExists', (e) => {
          assert.equal(e.message, 'key /e/a already exists');
          assert.equal(e.key, '/e/a');
          assert.equal(dec(e.current!.value), 'one');
          assert.equal(e.current!.modRevision, a.revision);
          assert.equal(e.current!.createRevision, a.revision);
        }),
      );
      await assert.rejects(
        store.optimisticPut('/e/a', enc('two'), a.revision + 7),
        storageError('Conflict', (e) => {
          assert.equal(e.message, `key /e/a is at revision ${a.revision}, not ${a.revision + 7}`);
          assert.equal(e.key, '/e/a');
          assert.equal(e.current!.key, '/e/a');
        }),
      );
      for (const attempt of [store.optimisticPut('/e/none', enc('x'), 5), store.optimisticDelete('/e/none', 0), store.optimisticDelete('/e/none', 5)]) {
        await assert.rejects(
          attempt,
          storageError('KeyNotFound', (e) => {
            assert.equal(e.message, 'key /e/none not found');
            assert.equal(e.key, '/e/none');
            assert.equal(e.current, undefined);
          }),
        );
      }
      // A delete with expected 0 deletes whatever is there.
      const gone = await store.optimisticDelete('/e/a', 0);
      assert.equal(dec(gone.prevKv.value), 'one');
      assert.equal(gone.prevKv.createRevision, a.revision);
      assert.equal(gone.revision, a.revision + 1);
      assert.deepEqual(store.stats(), { transactions: 5, writes: 2 }, 'every batch is a transaction; only applied writes count');
    } finally {
      await store.close();
    }
  });

  test('a put over an existing key keeps its create revision and reports the previous value to watchers', async () => {
    const store = new MemoryStore();
    try {
      const a = await store.optimisticPut('/p/a', enc('1'), 0);
      const watch = store.watch('/p/', { afterRevision: a.revision });
      const events = iterate(watch);
      const b = await store.optimisticPut('/p/a', enc('2'), a.revision);
      assert.equal(b.kv.createRevision, a.revision);
      assert.equal(b.kv.modRevision, b.revision);
      const e = (await within(events.next(), 'the put event')).value!;
      assert.ok(e.type === 'put');
      assert.equal(dec(e.kv.value), '2');
      assert.equal(e.kv.createRevision, a.revision);
      assert.equal(dec(e.prevKv!.value), '1');
      assert.equal(e.prevKv!.modRevision, a.revision);
      watch.stop();
    } finally {
      await store.close();
    }
  });
});

describe('sqlite store: reads out of range', () => {
  test('revisions past the current one and below the compacted one say which revision bounds them', async () => {
    const store = new MemoryStore();
    try {
      const a = await store.optimisticPut('/r/a', enc('1'), 0);
      const b = await store.optimisticPut('/r/a', enc('2'), a.revision);
      await store.compact(b.revision);
      await assert.rejects(
        store.get('/r/a', { revision: b.revision + 1 }),
        storageError('RevisionTooLarge', (e) => {
          assert.equal(e.revision, b.revision);
          assert.equal(e.message, `revision ${b.revision + 1} is newer than the current revision ${b.revision}`);
        }),
      );
      await assert.rejects(
        store.list('/r/', { revision: a.revision }),
        storageError('Compacted', (e) => {
          assert.equal(e.revision, b.revision);
          assert.equal(e.message, `revision ${a.revision} has been compacted (compacted revision ${b.revision})`);
        }),
      );
      assert.equal(dec((await store.get('/r/a', { revision: b.revision })).kv!.value), '2', 'the compacted revision itself still reads');
      const watch = store.watch('/r/', { afterRevision: a.revision });
      await assert.rejects(
        within(iterate(watch).next(), 'the failed watch'),
        storageError('Compacted', (e) => {
          assert.equal(e.revision, b.revision);
          assert.equal(e.message, `required revision ${a.revision} has been compacted (compacted revision ${b.revision})`);
        }),
      );
    } finally {
      await store.close();
    }
  });

  test('a limit of zero or less lists everything; a startAfter before the prefix is ignored; nothing remains past a full page', async () => {
    const store = new MemoryStore();
    try {
      for (const k of ['a', 'b', 'c']) await store.optimisticPut(`/l/${k}`, enc(k), 0);
      await store.optimisticPut('/k/before', enc('x'), 0);
      for (const limit of [0, -1]) {
        const all = await store.list('/l/', { limit });
        assert.deepEqual(all.kvs.map((kv) => kv.key), ['/l/a', '/l/b', '/l/c']);
        assert.equal(all.more, false);
      }
      const fromBefore = await store.list('/l/', { startAfter: '/k/before' });
      assert.deepEqual(fromBefore.kvs.map((kv) => kv.key), ['/l/a', '/l/b', '/l/c']);
      const fromPrefix = await store.list('/l/', { startAfter: '/l/' });
      assert.deepEqual(fromPrefix.kvs.map((kv) => kv.key), ['/l/a', '/l/b', '/l/c']);
      const fromA = await store.list('/l/', { startAfter: '/l/a', limit: 1, countRemaining: true });
      assert.deepEqual(fromA.kvs.map((kv) => kv.key), ['/l/b']);
      assert.equal(fromA.more, true);
      assert.equal(fromA.remaining, 1);
      const whole = await store.list('/l/', { limit: 3, countRemaining: true });
      assert.equal(whole.more, false);
      assert.equal(whole.remaining, 0);
      const unlimited = await store.list('/l/', { countRemaining: true });
      assert.equal(unlimited.remaining, 0);
    } finally {
      await store.close();
    }
  });

  test('a watch from revision 0 starts at the current revision', async () => {
    const store = new MemoryStore();
    try {
      await store.optimisticPut('/w/old', enc('old'), 0);
      const watch = store.watch('/w/', { afterRevision: 0 });
      const events = iterate(watch);
      const fresh = await store.optimisticPut('/w/new', enc('new'), 0);
      const e = (await within(events.next(), 'the first event')).value!;
      assert.equal(e.revision, fresh.revision, 'no replay of what was there before');
      watch.stop();
    } finally {
      await store.close();
    }
  });
});

describe('sqlite store: closed', () => {
  test('reads, watches and writes after close fail with Unavailable; liveness says so; close again is harmless', async () => {
    const store = new MemoryStore();
    await store.optimisticPut('/c/a', enc('a'), 0);
    await store.close();
    const closed = storageError('Unavailable', (e) => assert.equal(e.message, 'store is closed'));
    await assert.rejects(store.get('/c/a'), closed);
    await assert.rejects(store.list('/c/'), closed);
    await assert.rejects(store.count('/c/'), closed);
    await assert.rejects(store.optimisticPut('/c/b', enc('b'), 0), closed);
    await assert.rejects(store.optimisticDelete('/c/a', 0), closed);
    await assert.rejects(within(iterate(store.watch('/c/', { afterRevision: 0 })).next(), 'the closed watch'), closed);
    assert.equal(store.liveness(), 'store is closed');
    assert.equal(store.readiness(), 'store is closed');
    assert.equal(store.size(), undefined);
    const compacted = await store.compactedRevision();
    await store.compact(await store.currentRevision());
    assert.equal(await store.compactedRevision(), compacted, 'a closed store compacts nothing');
    await store.close();
  });

  test('size is that of the file and its WAL for a file store, nothing for an in-memory one', async () => {
    const memory = new MemoryStore();
    try {
      assert.equal(memory.size(), undefined);
    } finally {
      await memory.close();
    }
    await withStore({}, async (store) => {
      await store.optimisticPut('/s/a', new Uint8Array(64 * 1024), 0);
      const size = store.size()!;
      assert.ok(size.sizeBytes >= 64 * 1024, `size ${size.sizeBytes}`);
      assert.ok(size.inUseBytes > 0 && size.inUseBytes <= size.sizeBytes + 4096, `in use ${size.inUseBytes}`);
    });
  });
});

describe('sqlite store: writer settings and bounds', () => {
  for (const [durability, synchronous] of [['full', 2], ['normal', 1]] as const) {
    test(`the writer connection runs WAL with synchronous ${synchronous} at durability ${durability}, waits 5 s for a lock, caps the WAL at 64 MiB`, async () => {
      await withStore({ writer: 'inline', durability }, async (store) => {
        assert.equal(await store.writerPragma('journal_mode'), 'wal');
        assert.equal(await store.writerPragma('synchronous'), synchronous);
        assert.equal(await store.writerPragma('busy_timeout'), 5000);
        assert.equal(await store.writerPragma('journal_size_limit'), 64 * 1024 * 1024);
      });
    });
  }

  test('a pipeline depth below 1 still sends writes (one batch at a time)', async () => {
    await withStore({ pipelineDepth: 0, durability: 'normal' }, async (store) => {
      const results = await within(Promise.all(Array.from({ length: 5 }, (_, i) => store.optimisticPut(`/d/${i}`, enc(String(i)), 0))), 'writes at depth 0');
      assert.equal(results.length, 5);
      const later = await within(store.optimisticPut('/d/later', enc('l'), 0), 'a later write');
      assert.equal(later.revision, results[4]!.revision + 1);
    });
  });

  test('compaction past a thousand revisions removes every superseded row and tombstone, and keeps the value at the compacted revision', async () => {
    await withStore({ writer: 'inline', durability: 'normal' }, async (store, path) => {
      let rev = (await store.optimisticPut('/k/hot', enc('0'), 0)).revision;
      const first = rev;
      for (let i = 1; i <= 2300; i++) rev = (await store.optimisticPut('/k/hot', enc(String(i)), rev)).revision;
      const gone = await store.optimisticPut('/k/gone', enc('g'), 0);
      await store.optimisticDelete('/k/gone', gone.revision);
      const target = rev; // the hot key's last value
      const after = await store.optimisticPut('/k/hot', enc('after'), target);
      const tombstone = after.revision - 1;
      await within(store.compact(tombstone), 'compaction'); // the tombstone goes too; `after` is newer
      assert.equal(await store.compactedRevision(), tombstone);
      // What is left on disk: the hot key's value at the compacted revision and its newer one.
      const raw = new Database(path, { readonly: true });
      try {
        const rows = raw.prepare<[], { revision: number; key: string }>('SELECT revision, key FROM log ORDER BY revision').all();
        assert.deepEqual(rows.map((r) => r.key), ['/k/hot', '/k/hot']);
        assert.deepEqual(rows.map((r) => r.revision), [target, after.revision]);
      } finally {
        raw.close();
      }
      assert.equal(dec((await store.get('/k/hot', { revision: tombstone })).kv!.value), '2300');
      assert.equal(dec((await store.get('/k/hot')).kv!.value), 'after');
      assert.ok(first < target - 2000);
    });
  });

  test('a compaction the writer thread cannot run fails with Unavailable; writes then start a new thread', async () => {
    await withStore({ durability: 'normal' }, async (store) => {
      const a = await store.optimisticPut('/t/a', enc('1'), 0);
      const b = await store.optimisticPut('/t/a', enc('2'), a.revision);
      const thread = (store as unknown as { thread: { worker: import('node:worker_threads').Worker } }).thread.worker;
      thread.ref(); // idle threads are unref'd: keep the loop up until it has ended
      await thread.terminate();
      await assert.rejects(
        within(store.compact(b.revision), 'the failed compaction'),
        storageError('Unavailable', (e) => assert.match(e.message, /^compaction failed: writer thread is not running$/)),
      );
      assert.equal((await within(store.optimisticPut('/t/b', enc('b'), 0), 'a write after')).revision, b.revision + 1);
    });
  });

  test('close after the writer thread ended finishes at once; the writer then refuses requests as closed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sqlite-edges-'));
    try {
      const store = openSqliteStore({ path: join(dir, 'state.db'), durability: 'normal' });
      await store.optimisticPut('/t/a', enc('1'), 0);
      const thread = (store as unknown as { thread: { worker: import('node:worker_threads').Worker } }).thread.worker;
      thread.ref();
      await thread.terminate();
      await within(store.close(), 'close with the thread gone');
      await assert.rejects(store.writerPragma('busy_timeout'), /^Error: store is closed$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
