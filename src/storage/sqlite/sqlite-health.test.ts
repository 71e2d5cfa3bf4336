// The SQLite store's health checks: a full database (SQLITE_FULL, what a full disk gives) fails
// readiness until a write commits again; a closed store fails liveness.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from './sqlite-store.js';
import { isStorageError } from '../revisioned-store.js';

test('a write failing with "database or disk is full" fails readiness until a write commits', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sqlite-health-'));
  const store = openSqliteStore({ path: join(dir, 'state.db') });
  try {
    const first = await store.optimisticPut('/k/a', new Uint8Array(10), 0);
    assert.equal(store.readiness(), undefined);
    assert.equal(store.liveness(), undefined);
    // SQLite's page cap gives the same error as a full disk: the database cannot grow.
    // The cap goes on the writer's connection (a thread of its own).
    const pages = (await store.writerPragma('page_count')) as number;
    await store.writerPragma(`max_page_count = ${pages}`);
    await assert.rejects(store.optimisticPut('/k/big', new Uint8Array(1024 * 1024), 0), (err: unknown) => isStorageError(err, 'Unavailable') && /database or disk is full/.test((err as Error).message));
    assert.match(store.readiness() ?? '', /database or disk is full/);
    // Reads still work: the store is alive, only not ready.
    assert.equal(store.liveness(), undefined);
    assert.equal((await store.get('/k/a')).kv?.modRevision, first.revision);
    await store.writerPragma('max_page_count = 1073741823');
    await store.optimisticPut('/k/big', new Uint8Array(1024 * 1024), 0);
    assert.equal(store.readiness(), undefined);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
  assert.equal(store.liveness(), 'store is closed');
  assert.equal(store.readiness(), 'store is closed');
});
