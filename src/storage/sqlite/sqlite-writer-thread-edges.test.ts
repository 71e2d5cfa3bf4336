// The writer thread's edges: a pragma it cannot run is refused with SQLite's reason (the thread
// goes on), a thread that cannot start says why in readiness, a compaction to where the store is
// compacted already asks nothing of the thread, and a compaction cut off by close() is no error.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { openSqliteStore, type SqliteStore, type SqliteStoreOptions } from './sqlite-store.js';
import { MemoryStore } from './memory-store.js';
import { isStorageError } from '../revisioned-store.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

async function withStore(opts: Omit<SqliteStoreOptions, 'path'>, fn: (store: SqliteStore, path: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sqlite-writer-edges-'));
  const path = join(dir, 'state.db');
  const store = openSqliteStore({ path, ...opts });
  try {
    await fn(store, path);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const writerThread = (store: SqliteStore): Worker => (store as unknown as { thread: { worker: Worker } }).thread.worker;

/** Ends the store's writer thread and waits until it has gone. */
async function killWriter(store: SqliteStore): Promise<void> {
  const thread = writerThread(store);
  thread.ref(); // idle threads are unref'd: keep the loop up until it has ended
  await thread.terminate();
}

describe('sqlite writer thread: edges', () => {
  test("a pragma the writer cannot run is refused with SQLite's message; writes go on", async () => {
    await withStore({ durability: 'normal' }, async (store) => {
      await assert.rejects(store.writerPragma('user_version ='), (e: unknown) => e instanceof Error && /incomplete input/.test(e.message));
      assert.equal((await store.optimisticPut('/p/a', enc('a'), 0)).kv.key, '/p/a');
      assert.equal(store.readiness(), undefined);
    });
    const memory = new MemoryStore();
    try {
      await assert.rejects(memory.writerPragma('user_version ='), (e: unknown) => e instanceof Error && /incomplete input/.test(e.message));
    } finally {
      await memory.close();
    }
  });

  test('a writer thread that cannot open the database says why in readiness', async () => {
    await withStore({}, async (store, path) => {
      await store.optimisticPut('/o/a', enc('a'), 0);
      await killWriter(store);
      const data = (store as unknown as { thread: { data: { path: string } } }).thread.data;
      data.path = join(path, '..'); // a directory: the new thread's open fails
      await assert.rejects(store.optimisticPut('/o/b', enc('b'), 0), (e: unknown) => isStorageError(e, 'Unavailable'));
      // The open's SqliteError reaches this thread as a bare { code }: its code is the reason.
      assert.equal(store.readiness(), 'last write failed: writer thread exited (code 1: SQLITE_CANTOPEN)');
      data.path = path;
    });
  });

  test('compacting to the compacted revision again asks nothing of the writer, even with its thread gone', async () => {
    await withStore({ durability: 'normal' }, async (store) => {
      const a = await store.optimisticPut('/c/a', enc('1'), 0);
      await store.optimisticPut('/c/a', enc('2'), a.revision);
      await store.compact(a.revision);
      await killWriter(store);
      await store.compact(a.revision); // nothing to do: no request to the (gone) thread, no error
      assert.equal(await store.compactedRevision(), a.revision);
    });
  });

  test('a compaction the closing store cuts off (its writer thread ended) is no error', async () => {
    await withStore({ durability: 'normal' }, async (store, path) => {
      const a = await store.optimisticPut('/x/a', enc('1'), 0);
      const b = await store.optimisticPut('/x/a', enc('2'), a.revision);
      // Another connection holds the write lock: the compaction waits in the thread when it ends.
      const blocker = new Database(path);
      try {
        blocker.exec('BEGIN IMMEDIATE');
        const compaction = store.compact(b.revision);
        await new Promise((r) => setImmediate(r));
        const thread = writerThread(store);
        thread.ref();
        const exited = thread.terminate();
        const closing = store.close();
        blocker.exec('ROLLBACK');
        await exited;
        await compaction; // resolves: the store is closing, the failure is not the caller's
        await closing;
      } finally {
        blocker.close();
      }
    });
  });

  test('while a batch is in the writer, reads answer at the published revision, not from rows committed past it', async () => {
    await withStore({ durability: 'normal' }, async (store, path) => {
      const a = await store.optimisticPut('/g/a', enc('a1'), 0);
      const published = await store.currentRevision();
      // What the writer thread commits before reporting: rows past the published revision (here
      // written by another connection, so that they stay unreported while we read).
      const raw = new Database(path);
      try {
        raw.prepare('INSERT INTO log (revision, key, value, create_revision, prev_revision, deleted) VALUES (?, ?, ?, ?, ?, 0)').run(published + 1, '/g/a', Buffer.from('a2'), a.revision, a.revision);
        raw.prepare('UPDATE current SET revision = ? WHERE key = ?').run(published + 1, '/g/a');
        raw.prepare('INSERT INTO log (revision, key, value, create_revision, prev_revision, deleted) VALUES (?, ?, ?, ?, 0, 0)').run(published + 2, '/g/ghost', Buffer.from('g'), published + 2);
        raw.prepare('INSERT INTO current (key, revision, create_revision) VALUES (?, ?, ?)').run('/g/ghost', published + 2, published + 2);
        // A batch held in the writer by the write lock: the store has one in flight.
        raw.exec('BEGIN IMMEDIATE');
        const held = store.optimisticPut('/g/held', enc('h'), 0);
        await new Promise((r) => setImmediate(r));
        const got = await store.get('/g/a');
        assert.equal(got.revision, published);
        assert.equal(new TextDecoder().decode(got.kv!.value), 'a1', 'the published value, not the unreported one');
        assert.equal((await store.get('/g/ghost')).kv, undefined);
        const list = await store.list('/g/');
        assert.deepEqual(list.kvs.map((kv) => [kv.key, kv.modRevision]), [['/g/a', a.revision]]);
        assert.equal(await store.count('/g/'), 1, 'the live count less what is unreported');
        raw.exec('ROLLBACK');
        await Promise.allSettled([held]); // its revision collides with the rows above: the outcome does not matter here
      } finally {
        raw.close();
      }
    });
  });

  test('the writer thread keeps the process alive only while a request is outstanding', async () => {
    const ports = (): number => process.getActiveResourcesInfo().filter((r) => r === 'MessagePort').length;
    const base = ports();
    await withStore({ durability: 'normal' }, async (store, path) => {
      assert.equal(ports(), base, 'an idle thread holds nothing');
      const blocker = new Database(path);
      try {
        blocker.exec('BEGIN IMMEDIATE');
        const held = store.optimisticPut('/r/a', enc('a'), 0);
        await new Promise((r) => setImmediate(r));
        assert.equal(ports(), base + 1, 'a batch in the thread holds the process');
        blocker.exec('ROLLBACK');
        await held;
        assert.equal(ports(), base, 'let go once answered');
      } finally {
        blocker.close();
      }
    });
  });
});
