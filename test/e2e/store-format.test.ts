// The SQLite store's size on disk against the JSON it holds, and the upgrade of a file of the old
// format, through the real bin: a store of ~2 KB objects takes at most twice their bytes (the
// old format, each value stored twice, the second copy spilling into overflow pages, took 4.3×);
// a schema-1 data dir is rewritten once when a server first opens it and then serves every
// object; and a server killed with SIGKILL while it rewrites the file leaves the old file whole,
// so the next start upgrades it and serves everything.

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startServer } from './harness.js';
import { fillSchemaOneStore, fillServiceCidrs } from '../support/large-store.js';
import { killAt } from '../support/kill-points.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';
const ARGS = ['--controllers=', '--snapshot-schedule-cron', ''];

const schemaOneStore = (dir: string, objects: number): number => fillSchemaOneStore(dir, objects, 2048);

async function servedCount(dataDir: string): Promise<{ count: number; log: string }> {
  const server = await startServer({ dataDir, removeOnStop: false, args: [...ARGS, '--log-level', 'info'] });
  try {
    const r = await server.request('GET', SC);
    assert.equal(r.status, 200, r.text);
    return { count: r.json.items.length, log: server.log() };
  } finally {
    await server.stop({ keepData: true });
  }
}

const storedBytes = (dir: string): number => {
  const db = new Database(join(dir, 'state.db'), { readonly: true });
  try {
    return (db.prepare('SELECT SUM(LENGTH(l.value)) AS n FROM current AS c JOIN log AS l ON l.revision = c.revision').get() as { n: number }).n;
  } finally {
    db.close();
  }
};

describe('the SQLite store on disk', () => {
  const root = mkdtempSync(join(tmpdir(), 'platform-store-format-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  test('3,000 objects of 2 KB take at most twice their JSON bytes', { timeout: 180_000 }, async () => {
    const dir = join(root, 'fresh');
    const json = await fillServiceCidrs(dir, 3000, 2048);
    const file = statSync(join(dir, 'state.db')).size;
    process.stdout.write(`# ${json} bytes of JSON in a ${file}-byte file: ${(file / json).toFixed(2)}×\n`);
    assert.ok(file <= 2 * json, `the file (${file} bytes) is at most twice the JSON (${json} bytes): ${(file / json).toFixed(2)}×`);
  });

  test('a schema-1 data dir is rewritten once when a server opens it, and every object is served', { timeout: 180_000 }, async () => {
    const dir = join(root, 'old');
    const json = schemaOneStore(dir, 3000);
    const before = statSync(join(dir, 'state.db')).size;
    const first = await servedCount(dir);
    assert.equal(first.count, 3000);
    assert.match(first.log, /"fromSchema":1,"objects":3000,.*"msg":"store file rewritten in the current format \(once\)"/);
    const after = statSync(join(dir, 'state.db')).size;
    process.stdout.write(`# schema 1: ${before} bytes; rewritten: ${after} bytes (${(after / json).toFixed(2)}× the JSON)\n`);
    assert.ok(after <= 2 * json && after < before / 2, `rewritten: ${before} → ${after} bytes`);
    assert.equal(storedBytes(dir), json, 'every value is there, byte for byte');
    // Once: the next start finds nothing to rewrite.
    const second = await servedCount(dir);
    assert.equal(second.count, 3000);
    assert.doesNotMatch(second.log, /rewritten in the current format/);
  });

  for (const step of ['rebuild:verifying', 'rebuild:written']) {
    test(`a server killed with SIGKILL while it rewrites a schema-1 file (${step}): the old file is whole, the next start upgrades it`, { timeout: 180_000 }, async () => {
      const dir = join(root, `killed-${step.replace(':', '-')}`);
      const json = schemaOneStore(dir, 2000);
      await killAt(['--data-dir', dir, '--secure-port', '0', ...ARGS], step);
      assert.ok(readdirSync(dir).some((n) => n.endsWith('.partial')), 'the rewrite was under way');
      const db = new Database(join(dir, 'state.db'), { readonly: true });
      assert.equal((db.prepare("SELECT value FROM meta WHERE name = 'schema_version'").get() as { value: number }).value, 1, 'the old file is still the store');
      db.close();
      assert.equal((await servedCount(dir)).count, 2000);
      assert.equal(storedBytes(dir), json);
      assert.ok(!readdirSync(dir).some((n) => n.includes('.partial')), 'the temporary file of the killed rewrite is gone');
      assert.ok(!existsSync(join(dir, 'state.db.unfinished')));
    });
  }
});
