// The SQLite store's writer thread: pipelined batches reach watchers in commit order before their
// writers resume, reads never run ahead of the published revision, a CAS failure inside a batch
// fails only its write, a writer thread that dies fails the writes in flight (Unavailable, not
// ready) and the store recovers on the next write, and close() lets writes in flight finish.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { openSqliteStore, type SqliteStore, type SqliteStoreOptions } from './sqlite-store.js';
import { isStorageError, type WatchEvent } from '../revisioned-store.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

async function withStore(opts: Omit<SqliteStoreOptions, 'path'>, fn: (store: SqliteStore, path: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sqlite-writer-'));
  const path = join(dir, 'state.db');
  const store = openSqliteStore({ path, ...opts });
  try {
    await fn(store, path);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every event of a watch, as it is pushed (synchronously with the store's publication). */
function record(store: SqliteStore, prefix: string, afterRevision: number, signal: AbortSignal): WatchEvent[] {
  const seen: WatchEvent[] = [];
  store.watch(prefix, { afterRevision, signal }).start({ next: (e) => (seen.push(e), true), end: () => {} });
  return seen;
}

const writerThread = (store: SqliteStore): Worker => (store as unknown as { thread: { worker: Worker } }).thread.worker;

describe('sqlite writer thread', () => {
  for (const pipelineDepth of [1, 2]) {
    test(`pipelined batches (depth ${pipelineDepth}): watchers get every commit in order before its writer resumes; reads stay at the published revision`, async () => {
      await withStore({ durability: 'normal', pipelineDepth }, async (store) => {
        const start = await store.currentRevision();
        const ac = new AbortController();
        const seen = record(store, '/p/', start, ac.signal);
        const published = (): Set<number> => new Set(seen.map((e) => e.revision));
        const readProblems: string[] = [];
        let conflicts = 0;
        const client = async (c: number): Promise<void> => {
          for (let i = 0; i < 25; i++) {
            const key = `/p/${c}/${i % 5}`;
            const got = await store.get(key);
            // Reads answered while later batches are in the writer: nothing newer than their revision.
            if (got.kv && got.kv.modRevision > got.revision) readProblems.push(`get ${key}: ${got.kv.modRevision} > ${got.revision}`);
            const [list, count] = await Promise.all([store.list('/p/'), store.count('/p/')]);
            if (list.kvs.some((kv) => kv.modRevision > list.revision)) readProblems.push(`list at ${list.revision} holds a newer object`);
            if (count !== list.kvs.length) readProblems.push(`count ${count} != list ${list.kvs.length} at ${list.revision}`);
            try {
              const r = got.kv && i % 3 === 2 ? await store.optimisticDelete(key, got.kv.modRevision) : await store.optimisticPut(key, enc(`${c}-${i}`), got.kv?.modRevision ?? 0);
              assert.ok(published().has(r.revision), `revision ${r.revision} acknowledged before its event was published`);
              // A stale expectation: fails on its own, whatever else its batch holds.
              await assert.rejects(store.optimisticPut(key, enc('stale'), r.revision - 1 || 1), (e: unknown) => isStorageError(e, 'Conflict') || isStorageError(e, 'KeyNotFound'));
              conflicts++;
            } catch (err) {
              if (!isStorageError(err, 'Conflict')) throw err;
            }
          }
        };
        await Promise.all(Array.from({ length: 8 }, (_, c) => client(c)));
        ac.abort();
        assert.deepEqual(readProblems, []);
        assert.ok(conflicts > 0);
        const revisions = seen.map((e) => e.revision);
        assert.deepEqual(revisions, Array.from({ length: revisions.length }, (_, i) => start + 1 + i), 'gap-free, in commit order');
        assert.equal(await store.currentRevision(), start + revisions.length);
        const { transactions, writes } = store.stats();
        assert.equal(writes, revisions.length);
        assert.ok(transactions < writes, 'writes shared transactions');
      });
    });
  }

  test('a writer thread that dies fails the writes in flight with Unavailable and readiness; the next write recovers without a gap', async () => {
    await withStore({}, async (store, path) => {
      const first = await store.optimisticPut('/d/first', enc('1'), 0);
      const ac = new AbortController();
      const seen = record(store, '/d/', first.revision, ac.signal);
      // Another connection holds the write lock, so the batch is still in the thread when it dies;
      // the lock is let go at once, so the dying thread may or may not commit it first.
      const blocker = new Database(path);
      blocker.exec('BEGIN IMMEDIATE');
      const inFlight = Array.from({ length: 10 }, (_, i) => store.optimisticPut(`/d/${i}`, enc(String(i)), 0));
      await new Promise((r) => setImmediate(r)); // the batch has been handed to the thread
      const thread = writerThread(store);
      const exited = thread.terminate();
      blocker.exec('ROLLBACK');
      blocker.close();
      await exited;
      const outcomes = await Promise.allSettled(inFlight);
      for (const o of outcomes) {
        assert.equal(o.status, 'rejected');
        assert.ok(isStorageError(o.reason, 'Unavailable'), String(o.reason));
        assert.match(o.reason.message, /storage write failed: writer thread exited/);
      }
      assert.match(store.readiness() ?? '', /last write failed: writer thread exited/);
      assert.equal(store.liveness(), undefined, 'reads still work');
      // Whatever the dead thread committed is published at once, in order, without waiting for a write.
      const caughtUp = await store.currentRevision();
      assert.deepEqual(seen.map((e) => e.revision), Array.from({ length: caughtUp - first.revision }, (_, i) => first.revision + 1 + i));
      assert.equal((await store.list('/d/')).kvs.length, seen.length + 1, 'the first write and whatever was caught up');

      const next = await store.optimisticPut('/d/next', enc('n'), 0);
      assert.equal(store.readiness(), undefined, 'ready again once a write commits');
      const revisions = seen.map((e) => e.revision);
      assert.deepEqual(revisions, Array.from({ length: next.revision - first.revision }, (_, i) => first.revision + 1 + i));
      assert.equal((await store.list('/d/')).kvs.length, seen.length + 1);
      ac.abort();
    });
  });

  test('a commit the dying thread made but never reported is published, in order, before anything else', async () => {
    await withStore({}, async (store, path) => {
      const first = await store.optimisticPut('/g/first', enc('1'), 0);
      const ac = new AbortController();
      const seen = record(store, '/g/', first.revision, ac.signal);
      // What a thread killed between its commit and its report leaves: a row past the published revision.
      const raw = new Database(path);
      raw.prepare('INSERT INTO log (revision, key, value, create_revision, prev_revision, deleted) VALUES (?, ?, ?, ?, 0, 0)').run(first.revision + 1, '/g/ghost', Buffer.from('g'), first.revision + 1);
      raw.prepare('INSERT INTO current (key, revision, create_revision) VALUES (?, ?, ?)').run('/g/ghost', first.revision + 1, first.revision + 1);
      raw.close();
      const thread = writerThread(store);
      thread.ref();
      await thread.terminate();
      assert.equal(await store.currentRevision(), first.revision + 1);
      assert.deepEqual(seen.map((e) => [e.type, e.revision]), [['put', first.revision + 1]]);
      const next = await store.optimisticPut('/g/next', enc('n'), 0);
      assert.equal(next.revision, first.revision + 2, 'the new thread continues after it');
      assert.deepEqual(seen.map((e) => e.revision), [first.revision + 1, first.revision + 2]);
      ac.abort();
    });
  });

  test('a commit waiting for a locked database holds up no read; past the busy timeout it fails with Unavailable and readiness', async () => {
    await withStore({}, async (store, path) => {
      await store.optimisticPut('/l/a', enc('a'), 0);
      const blocker = new Database(path);
      try {
        blocker.exec('BEGIN IMMEDIATE');
        let settled = false;
        const waiting = store.optimisticPut('/l/b', enc('b'), 0).finally(() => (settled = true));
        await new Promise((r) => setImmediate(r));
        assert.equal((await store.get('/l/a')).kv?.modRevision !== undefined, true, 'reads are answered meanwhile');
        assert.equal(settled, false, 'the write waits for the lock (busy timeout 5 s)');
        blocker.exec('ROLLBACK');
        assert.equal((await waiting).kv.key, '/l/b');

        await store.writerPragma('busy_timeout = 20');
        blocker.exec('BEGIN IMMEDIATE');
        await assert.rejects(store.optimisticPut('/l/c', enc('c'), 0), (e: unknown) => isStorageError(e, 'Unavailable') && /storage write failed: database is locked/.test(e.message));
        assert.match(store.readiness() ?? '', /last write failed: database is locked/);
        blocker.exec('ROLLBACK');
        await store.optimisticPut('/l/c', enc('c'), 0);
        assert.equal(store.readiness(), undefined);
      } finally {
        blocker.close();
      }
    });
  });

  test('a writer thread that cannot open the database fails writes, never hangs', async () => {
    await withStore({}, async (store, path) => {
      await store.optimisticPut('/o/a', enc('a'), 0);
      const thread = writerThread(store);
      thread.ref(); // idle threads are unref'd: keep the loop up until it has ended
      await thread.terminate();
      // The next thread finds a directory where the database was: its open fails.
      (store as unknown as { thread: { data: { path: string } } }).thread.data.path = join(path, '..');
      await assert.rejects(store.optimisticPut('/o/b', enc('b'), 0), (e: unknown) => isStorageError(e, 'Unavailable'));
      assert.match(store.readiness() ?? '', /writer thread exited/);
      (store as unknown as { thread: { data: { path: string } } }).thread.data.path = path;
      assert.equal((await store.optimisticPut('/o/c', enc('c'), 0)).kv.key, '/o/c');
      assert.equal(store.readiness(), undefined);
    });
  });

  test('close() with writes in flight lets them commit, refuses later ones, and releases the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sqlite-writer-'));
    const path = join(dir, 'state.db');
    try {
      const store = openSqliteStore({ path });
      const writes = Array.from({ length: 40 }, (_, i) => store.optimisticPut(`/c/${i}`, enc(String(i)), 0));
      await new Promise((r) => setImmediate(r));
      const more = Array.from({ length: 10 }, (_, i) => store.optimisticPut(`/c/late-${i}`, enc(String(i)), 0));
      const closing = store.close();
      await assert.rejects(store.optimisticPut('/c/after', enc('x'), 0), (e: unknown) => isStorageError(e, 'Unavailable') && /closed/.test(e.message));
      const results = await Promise.all([...writes, ...more]);
      await closing;
      assert.equal(existsSync(`${path}.lock`), false);
      const reopened = openSqliteStore({ path });
      try {
        assert.equal(await reopened.count('/c/'), 50);
        assert.equal(await reopened.currentRevision(), Math.max(...results.map((r) => r.revision)));
      } finally {
        await reopened.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
