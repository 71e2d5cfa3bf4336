// Opening a SQLite store file: what an interrupted snapshot save left beside it is cleared, a file
// that cannot be opened leaves no lock behind, and the main thread's connection only reads (the
// writer thread owns every write).

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { openSqliteStore, type SqliteStore } from './sqlite-store.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const tempDir = (): string => mkdtempSync(join(tmpdir(), 'sqlite-open-'));
const readConnection = (store: SqliteStore): Database.Database => (store as unknown as { db: Database.Database }).db;

describe('sqlite store: opening a file', () => {
  test("a dead process's unfinished snapshot save beside the file is removed; a live process's is kept", async () => {
    const dir = tempDir();
    try {
      const dead = join(dir, '.backup.db.2147483646.a1b2c3.partial');
      const live = join(dir, `.backup.db.${process.pid}.d4e5f6.partial`);
      writeFileSync(dead, 'half a snapshot');
      writeFileSync(live, 'a snapshot being written');
      const store = openSqliteStore({ path: join(dir, 'state.db'), writer: 'inline' });
      try {
        assert.equal(existsSync(dead), false, 'the dead save is cleared');
        assert.equal(existsSync(live), true, 'a save still running is left alone');
      } finally {
        await store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a file that is not a database is refused, and the lock is released so a good file opens after', async () => {
    const dir = tempDir();
    const path = join(dir, 'state.db');
    try {
      writeFileSync(path, 'this is not a SQLite database, just text long enough to be read as a header........'.repeat(20));
      assert.throws(() => openSqliteStore({ path }), /not a database/);
      assert.equal(existsSync(`${path}.lock`), false, 'no lock left behind by the failed open');
      rmSync(path);
      const store = openSqliteStore({ path, durability: 'normal' });
      try {
        assert.equal((await store.optimisticPut('/o/a', enc('a'), 0)).kv.key, '/o/a');
      } finally {
        await store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("with a writer thread, the main thread's connection refuses writes (query_only); inline, it is the writer", async () => {
    const dir = tempDir();
    try {
      const threaded = openSqliteStore({ path: join(dir, 'threaded.db'), durability: 'normal' });
      try {
        await threaded.optimisticPut('/q/a', enc('a'), 0);
        assert.equal(readConnection(threaded).pragma('query_only', { simple: true }), 1);
        assert.throws(() => readConnection(threaded).prepare("UPDATE meta SET value = value WHERE name = 'compacted'").run(), /readonly/);
      } finally {
        await threaded.close();
      }
      const inline = openSqliteStore({ path: join(dir, 'inline.db'), durability: 'normal', writer: 'inline' });
      try {
        assert.equal(readConnection(inline).pragma('query_only', { simple: true }), 0);
        assert.equal(inline.stats().transactions, 0);
        await inline.optimisticPut('/q/a', enc('a'), 0);
        assert.equal(inline.stats().transactions, 1);
        assert.equal((inline as unknown as { thread: unknown }).thread, undefined, 'no writer thread');
      } finally {
        await inline.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
