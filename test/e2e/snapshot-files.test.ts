// `snapshot save|status|restore|ls|delete|prune` through the real bin on real SQLite files, with
// no server: what status says of a good, a damaged, a truncated and a foreign file; restore's
// refusals writing nothing; a full disk (a 1 MiB tmpfs) failing a save and a restore with one
// line and nothing half-written left behind.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openSqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import { runCli, type CliResult } from '../support/run-cli.js';

const SC_PREFIX = '/registry/networking.platform.io/servicecidrs/';
const CTB_PREFIX = '/registry/certificates.platform.io/clustertrustbundles/';

/** A store of `objects` ServiceCIDR-keyed values of `bytes` each, and 3 bundles, written through the real SQLite store. */
async function makeStore(dataDir: string, objects: number, bytes: number): Promise<void> {
  mkdirSync(dataDir, { recursive: true });
  const store = openSqliteStore({ path: join(dataDir, 'state.db'), durability: 'normal' });
  const value = (i: number) => Buffer.from(JSON.stringify({ i, pad: 'x'.repeat(bytes) }));
  await Promise.all(Array.from({ length: objects }, (_, i) => store.optimisticPut(`${SC_PREFIX}sc-${i}`, value(i), 0)));
  await Promise.all(Array.from({ length: 3 }, (_, i) => store.optimisticPut(`${CTB_PREFIX}ctb-${i}`, value(i), 0)));
  await store.optimisticDelete(`${SC_PREFIX}sc-0`, (await store.get(`${SC_PREFIX}sc-0`)).kv!.modRevision);
  await store.close();
}

/** One line on stderr, a non-zero exit. */
function refused(r: CliResult, pattern: RegExp): void {
  assert.notEqual(r.code, 0, r.stdout);
  assert.equal(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr}`);
  assert.match(r.stderr.trim(), pattern);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack');
}

describe('snapshot files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'platform-snapfiles-'));
  const data = join(dir, 'data');
  const good = join(dir, 'good.db');
  after(() => rmSync(dir, { recursive: true, force: true }));
  before(async () => {
    await makeStore(data, 50, 200);
    const r = await runCli(['snapshot', 'save', good, '--data-dir', data]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Snapshot saved at .*good\.db \(revision 55, /);
  });

  test('status of a good snapshot: revision, objects per resource, size, integrity; table and -o json', async () => {
    const json = await runCli(['snapshot', 'status', good, '-o', 'json']);
    assert.equal(json.code, 0, json.stderr);
    const s = JSON.parse(json.stdout);
    assert.equal(s.revision, 55);
    assert.equal(s.totalObjects, 52);
    assert.deepEqual(s.resources, [
      { resource: 'clustertrustbundles.certificates.platform.io', objects: 3 },
      { resource: 'servicecidrs.networking.platform.io', objects: 49 },
    ]);
    assert.equal(s.integrity, 'ok');
    assert.equal(s.formatVersion, 2);
    assert.ok(s.totalSize > 0);
    assert.equal(s.checksum, 'ok');
    assert.match(s.sha256, /^[0-9a-f]{64}$/);
    assert.match(s.contentSha256, /^[0-9a-f]{64}$/);
    assert.equal(s.freePages, 0, 'a VACUUM INTO copy has no free pages');
    const table = await runCli(['snapshot', 'status', good]);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^REVISION\s+COMPACTED\s+OBJECTS\s+SIZE\s+FREE\s+FORMAT\s+CREATED\s+INTEGRITY\n55\s+0\s+52\s/);
    assert.match(table.stdout, new RegExp(`\nSHA256\\s+${s.sha256} \\(checked\\)\n`));
    assert.match(table.stdout, /servicecidrs\.networking\.platform\.io\s+49/);
  });

  test('status refuses a missing, foreign, damaged or truncated file, and the live store, with one line each', async () => {
    refused(await runCli(['snapshot', 'status', join(dir, 'missing.db')]), /missing\.db: no such file$/);
    const text = join(dir, 'text.db');
    writeFileSync(text, 'hello\n');
    refused(await runCli(['snapshot', 'status', text]), /not a platform-apiserver snapshot \(not a SQLite database\)$/);
    const foreign = join(dir, 'foreign.db');
    const db = new Database(foreign);
    db.exec('CREATE TABLE notes (t TEXT); INSERT INTO notes VALUES (1)');
    db.close();
    refused(await runCli(['snapshot', 'status', foreign]), /foreign\.db is not a platform-apiserver snapshot \(a SQLite database of another program\)$/);
    refused(await runCli(['snapshot', 'status', join(data, 'state.db')]), /is the database of a platform-apiserver store, not a snapshot/);
    // The b-tree page headers of every page but the first overwritten (bit rot): SQLite's integrity check finds it.
    const damaged = join(dir, 'damaged.db');
    copyFileSync(good, damaged);
    const fd = openSync(damaged, 'r+');
    const pages = readFileSync(good).length / 4096;
    for (let page = 1; page < pages; page++) writeSync(fd, Buffer.alloc(12, 0xff), 0, 12, page * 4096);
    closeSync(fd);
    refused(await runCli(['snapshot', 'status', damaged]), /damaged\.db is damaged/);
    const truncated = join(dir, 'truncated.db');
    writeFileSync(truncated, readFileSync(good).subarray(0, 8192));
    refused(await runCli(['snapshot', 'status', truncated]), /truncated\.db is damaged/);
    refused(await runCli(['snapshot', 'restore', damaged, '--data-dir', join(dir, 'from-damaged')]), /is damaged/);
    assert.equal(existsSync(join(dir, 'from-damaged')), false, 'a refused restore makes no directory');
    refused(await runCli(['snapshot', 'restore', foreign, '--data-dir', join(dir, 'from-foreign')]), /not a platform-apiserver snapshot/);
    assert.equal(existsSync(join(dir, 'from-foreign')), false);
  });

  test('restore refuses a non-empty target and leaves it as it was; an empty one is used', async () => {
    const full = join(dir, 'full-target');
    mkdirSync(full);
    writeFileSync(join(full, 'keep.txt'), 'mine');
    refused(await runCli(['snapshot', 'restore', good, '--data-dir', full]), /is not empty/);
    assert.deepEqual(readdirSync(full), ['keep.txt']);
    const empty = join(dir, 'empty-target');
    mkdirSync(empty);
    const r = await runCli(['snapshot', 'restore', good, '--data-dir', empty, '--bump-revision', '1000']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Restored 52 objects at revision 55 .*starts at revision 1055, compacted/);
    assert.deepEqual(readdirSync(empty), ['state.db']);
    const db = new Database(join(empty, 'state.db'), { readonly: true });
    assert.equal((db.prepare('SELECT COUNT(*) AS n FROM current').get() as { n: number }).n, 52);
    assert.equal((db.prepare("SELECT value FROM meta WHERE name = 'compacted'").get() as { value: number }).value, 1055);
    db.close();
  });

  test('ls, delete and prune: scheduled snapshots pruned oldest first, others kept, unfinished saves never listed', async () => {
    const snaps = join(dir, 'snaps');
    mkdirSync(snaps);
    for (const name of ['scheduled-20260101T000000.000Z.db', 'scheduled-20260102T000000.000Z.db', 'scheduled-20260103T000000.000Z.db', 'mine.db']) {
      assert.equal((await runCli(['snapshot', 'save', join(snaps, name), '--data-dir', data])).code, 0);
    }
    copyFileSync(good, join(snaps, '.x.db.999999.abcdef.partial'));
    writeFileSync(join(snaps, 'notes.txt'), 'not a snapshot');
    const ls = await runCli(['snapshot', 'ls', '--snapshot-dir', snaps, '-o', 'json']);
    assert.equal(ls.code, 0, ls.stderr);
    const names = (JSON.parse(ls.stdout) as { name: string; revision: number }[]).map((s) => s.name).sort();
    assert.deepEqual(names, ['mine.db', 'scheduled-20260101T000000.000Z.db', 'scheduled-20260102T000000.000Z.db', 'scheduled-20260103T000000.000Z.db']);
    const prune = await runCli(['snapshot', 'prune', '--snapshot-dir', snaps, '--snapshot-retention', '1']);
    assert.equal(prune.code, 0, prune.stderr);
    // Saved in name order, so the last one is the newest.
    assert.deepEqual(readdirSync(snaps).sort(), ['mine.db', 'notes.txt', 'scheduled-20260103T000000.000Z.db'], 'the stale partial file is gone too');
    refused(await runCli(['snapshot', 'delete', 'nope.db', '--snapshot-dir', snaps]), /no snapshot named nope\.db/);
    assert.equal((await runCli(['snapshot', 'delete', 'mine.db', '--snapshot-dir', snaps])).code, 0);
    assert.deepEqual(readdirSync(snaps).sort(), ['notes.txt', 'scheduled-20260103T000000.000Z.db']);
  });

  test('a full disk: save and restore fail with one line and leave nothing behind', async () => {
    const disk = join(dir, 'tiny');
    mkdirSync(disk);
    // A 1 MiB tmpfs (root); where mounting is not allowed, a 1 MiB file size limit (ulimit -f).
    let mounted = false;
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', disk], { stdio: 'ignore' });
      mounted = true;
    } catch {
      process.stderr.write('# cannot mount a tmpfs here: a file size limit stands for the full disk\n');
    }
    const limit = mounted ? {} : { fileSizeLimitKb: 1024 };
    const full = /(disk is full|ENOSPC|no space|disk I\/O error|EFBIG|file too large)/i;
    try {
      const big = join(dir, 'big');
      await makeStore(big, 400, 4000);
      const save = await runCli(['snapshot', 'save', join(disk, 'big.db'), '--data-dir', big], limit);
      refused(save, new RegExp(`cannot save a snapshot to .*big\\.db: .*${full.source}`, 'i'));
      assert.deepEqual(readdirSync(disk), [], 'no partial file left');
      const bigSnap = join(dir, 'big.db');
      assert.equal((await runCli(['snapshot', 'save', bigSnap, '--data-dir', big])).code, 0);
      const restore = await runCli(['snapshot', 'restore', bigSnap, '--data-dir', join(disk, 'restored')], limit);
      refused(restore, new RegExp(`cannot restore into .*restored: .*${full.source}`, 'i'));
      assert.deepEqual(readdirSync(disk), [], 'the target it made is removed again');
    } finally {
      if (mounted) execFileSync('umount', [disk]);
    }
  });
});
