import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeRevisionedStore } from './storage-conformance.js';
import { openSqliteStore } from './sqlite-store.js';
import { isStorageError } from './revisioned-store.js';

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

  test('writes issued together commit in one transaction', async () => {
    const dir = tempDir();
    const store = openSqliteStore({ path: join(dir, 'state.db') });
    try {
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.optimisticPut(`/g/${i}`, new Uint8Array([i]), 0)));
      const revisions = results.map((r) => r.revision);
      assert.equal(new Set(revisions).size, 20);
      assert.equal(Math.max(...revisions) - Math.min(...revisions), 19);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
