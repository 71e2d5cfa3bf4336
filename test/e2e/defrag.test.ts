// `platform-apiserver defrag` and the store-size metrics, through the real bin and a real
// server: deletions and compaction leave free pages the file keeps (apiserver_storage_size_bytes
// stays, the bytes in use drop); defrag beside the running server gives them back while clients
// keep writing; offline it rewrites the file whole; killed with SIGKILL while it does, the store
// is left whole and the next defrag completes. `snapshot status` reports a snapshot's free pages.

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type TestServer } from './harness.js';
import { fillServiceCidrs, SERVICE_CIDR_KEY } from '../support/large-store.js';
import { killAt } from '../support/kill-points.js';
import { runCli } from '../support/run-cli.js';
import { openSqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import { saveSnapshot } from '../../src/storage/sqlite/snapshot-save.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';
const ARGS = ['--controllers=', '--snapshot-schedule-cron', ''];

/** 3,000 objects, then 2,000 of them deleted and compacted away: pages freed inside the file. */
async function storeWithFreePages(dir: string): Promise<void> {
  await fillServiceCidrs(dir, 3000, 2048);
  const store = openSqliteStore({ path: join(dir, 'state.db'), durability: 'normal' });
  try {
    for (let i = 0; i < 2000; i += 500) {
      await Promise.all(
        Array.from({ length: 500 }, async (_, j) => {
          const key = `${SERVICE_CIDR_KEY}large-${String(i + j).padStart(7, '0')}`;
          await store.optimisticDelete(key, (await store.get(key)).kv!.modRevision);
        }),
      );
    }
    await store.compact(await store.currentRevision());
  } finally {
    await store.close();
  }
}

/** The two size gauges for the SQLite store, from /metrics. */
async function sizes(server: TestServer): Promise<{ size: number; inUse: number }> {
  const text = (await server.request('GET', '/metrics')).text;
  const value = (name: string): number => {
    const m = new RegExp(`^${name}\\{storage_cluster_id="sqlite-0"\\} (\\d+)$`, 'm').exec(text);
    assert.ok(m, `${name} is exposed: ${text.split('\n').filter((l) => l.includes('storage_size')).join('; ')}`);
    return Number(m[1]);
  };
  return { size: value('apiserver_storage_size_bytes'), inUse: value('platform_apiserver_storage_size_in_use_bytes') };
}

const fileBytes = (dir: string): number => ['state.db', 'state.db-wal'].reduce((n, f) => n + (readdirSync(dir).includes(f) ? statSync(join(dir, f)).size : 0), 0);

describe('defrag and the store size', () => {
  const root = mkdtempSync(join(tmpdir(), 'platform-defrag-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  test('beside a running server while clients write: free pages given back, the metrics show it, every write kept', { timeout: 300_000 }, async () => {
    const dir = join(root, 'online');
    await storeWithFreePages(dir);
    const server = await startServer({ dataDir: dir, removeOnStop: false, args: ARGS });
    try {
      const before = await sizes(server);
      assert.equal(before.size, fileBytes(dir), 'apiserver_storage_size_bytes is the file and its WAL');
      assert.ok(before.inUse < before.size / 2, `most of the file is free pages: ${before.inUse} of ${before.size} in use`);
      let writing = true;
      let written = 0;
      const writer = (async () => {
        while (writing) {
          const r = await server.request('POST', SC, { body: { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: `during-${written}` }, spec: { cidrs: [`172.16.${written % 250}.0/24`] } } });
          assert.equal(r.status, 201, r.text);
          written++;
        }
      })();
      const r = await runCli(['defrag', '--data-dir', dir]);
      writing = false;
      await writer;
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^Defragmented .*state\.db online \(beside the running server\) in [\d.]+ s: [\d.]+ MiB → [\d.]+ MiB, free pages [1-9]\d* → 0\n$/);
      const dbFile = statSync(join(dir, 'state.db')).size;
      assert.ok(dbFile < before.size / 2, `the database file shrank: ${before.size} → ${dbFile}`);
      // The pages it moved went through the WAL; with no write going on, a second defrag empties it too.
      assert.equal((await runCli(['defrag', '--data-dir', dir])).code, 0);
      const afterDefrag = await sizes(server);
      process.stdout.write(`# online defrag: ${before.size} → ${dbFile} (database file), ${afterDefrag.size} (with the WAL, idle) bytes; in use ${before.inUse} → ${afterDefrag.inUse}; ${written} writes meanwhile\n`);
      assert.ok(afterDefrag.size < before.size / 2, `apiserver_storage_size_bytes shows it: ${before.size} → ${afterDefrag.size}`);
      const list = await server.request('GET', SC);
      assert.equal(list.json.items.length, 1000 + written, 'every object and every write during the defrag is served');
    } finally {
      await server.stop({ keepData: true });
    }
  });

  test('offline: the file rewritten whole; killed with SIGKILL midway, the store is whole and the next defrag completes', { timeout: 300_000 }, async () => {
    const dir = join(root, 'offline');
    await storeWithFreePages(dir);
    const before = statSync(join(dir, 'state.db')).size;
    for (const step of ['defrag:locked', 'rebuild:verifying', 'rebuild:written']) {
      await killAt(['defrag', '--data-dir', dir], step);
      assert.equal(statSync(join(dir, 'state.db')).size, before, `killed at ${step}: the store's file is as it was`);
      const server = await startServer({ dataDir: dir, removeOnStop: false, args: ARGS });
      try {
        assert.equal((await server.request('GET', SC)).json.items.length, 1000);
      } finally {
        await server.stop({ keepData: true });
      }
    }
    const r = await runCli(['defrag', '--data-dir', dir]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /offline \(rewritten whole\) .* free pages [1-9]\d* → 0\n$/);
    const after = statSync(join(dir, 'state.db')).size;
    assert.ok(after < before / 2, `${before} → ${after}`);
    assert.deepEqual(readdirSync(dir).filter((n) => n.includes('.partial')), [], 'what the killed runs left is gone');
    const server = await startServer({ dataDir: dir, removeOnStop: false, args: ARGS });
    try {
      assert.equal((await server.request('GET', SC)).json.items.length, 1000);
    } finally {
      await server.stop({ keepData: true });
    }
  });

  test('snapshot status reports the free pages a snapshot holds', { timeout: 120_000 }, async () => {
    const dir = join(root, 'snapshot');
    await storeWithFreePages(dir);
    // The online backup API copies pages as they are, free ones included (VACUUM INTO leaves none).
    const file = join(root, 'with-free-pages.db');
    await saveSnapshot({ dbPath: join(dir, 'state.db'), file, method: 'backup' });
    const r = await runCli(['snapshot', 'status', file, '-o', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const s = JSON.parse(r.stdout);
    assert.ok(s.freePages > 100, `free pages: ${s.freePages}`);
    assert.equal(s.freeSize, s.freePages * 16384);
    const table = await runCli(['snapshot', 'status', file]);
    assert.match(table.stdout, /^REVISION\s+COMPACTED\s+OBJECTS\s+SIZE\s+FREE\s+FORMAT/);
  });

  test('usage and refusals: no store, an unfinished one', async () => {
    const none = await runCli(['defrag', '--data-dir', join(root, 'nothing')]);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /^platform-apiserver defrag: no SQLite store at .*nothing\/state\.db\n$/);
    assert.equal((await runCli(['defrag', '--bogus'])).code, 2);
    // What a killed restore leaves: a marked data dir is no store to defragment.
    const marked = join(root, 'marked');
    await fillServiceCidrs(marked, 10, 100);
    writeFileSync(join(marked, 'state.db.unfinished'), JSON.stringify({ command: 'platform-apiserver snapshot restore /b.db --data-dir /x', doc: 'docs/backup-and-restore.md', pid: 999999, host: 'elsewhere', startedAt: '2026-01-01T00:00:00Z' }));
    const refused = await runCli(['defrag', '--data-dir', marked]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^platform-apiserver defrag: data dir .*marked holds an unfinished store: `platform-apiserver snapshot restore \/b\.db --data-dir \/x` \(pid 999999 on elsewhere, started 2026-01-01T00:00:00Z\) did not finish; run that command again/);
  });
});
