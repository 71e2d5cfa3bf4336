// A snapshot proves its contents (the real bin, real files): `status` shows the SHA-256 it was
// sealed with and checks it, and `restore` checks it before writing anything. A snapshot with
// object bytes edited in place (same length, as a stray `sed` would), bytes appended, the end
// cut off (and cut exactly at its checksum), or two pages swapped is refused by both, with the
// expected and the actual sum, as etcdutl refuses one. --skip-hash-check skips the file's sum
// but not the restore's own check of the objects against the digest the snapshot recorded. A
// format-1 snapshot (no checksum) is shown with a warning and restored only with the flag.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startServer } from './harness.js';
import { fillServiceCidrs } from '../support/large-store.js';
import { runCli, type CliResult } from '../support/run-cli.js';

const SUMS = /expected sha256 ([0-9a-f]{64}), got ([0-9a-f]{64})/;

function refused(r: CliResult, pattern: RegExp): RegExpMatchArray {
  assert.equal(r.code, 1, `refused: ${r.stdout}${r.stderr}`);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line: ${r.stderr}`);
  const m = lines[0]!.match(pattern);
  assert.ok(m, `${lines[0]} matches ${pattern}`);
  return m;
}

describe('snapshot checksums', () => {
  const dir = mkdtempSync(join(tmpdir(), 'platform-snapsum-'));
  const data = join(dir, 'data');
  const good = join(dir, 'good.db');
  let bytes: Buffer;
  let saved: CliResult;
  after(() => rmSync(dir, { recursive: true, force: true }));
  before(async () => {
    await fillServiceCidrs(data, 400, 2048);
    saved = await runCli(['snapshot', 'save', good, '--data-dir', data]);
    assert.equal(saved.code, 0, saved.stderr);
    bytes = readFileSync(good);
  });

  /** A copy of the good snapshot, changed by `change`. */
  const variant = (name: string, change: (b: Buffer) => Buffer): string => {
    const file = join(dir, name);
    writeFileSync(file, change(Buffer.from(bytes)));
    return file;
  };

  test('save and status show the sum the file was sealed with, checked; -o json too', async () => {
    const sealed = bytes.subarray(bytes.length - 32).toString('hex');
    assert.match(saved.stdout, new RegExp(`sha256 ${sealed}\\)`));
    assert.equal(createHash('sha256').update(bytes.subarray(0, bytes.length - 32)).digest('hex'), sealed, 'the last 32 bytes are the SHA-256 of the rest');
    const json = await runCli(['snapshot', 'status', good, '-o', 'json']);
    assert.equal(json.code, 0, json.stderr);
    const s = JSON.parse(json.stdout);
    assert.equal(s.sha256, sealed);
    assert.equal(s.checksum, 'ok');
    assert.equal(s.formatVersion, 2);
    assert.match(s.contentSha256, /^[0-9a-f]{64}$/);
    const table = await runCli(['snapshot', 'status', good]);
    assert.match(table.stdout, new RegExp(`\\nSHA256 +${sealed} \\(checked\\)\\nCONTENT SHA256 +${s.contentSha256}\\n`));
  });

  const damaged: [string, (b: Buffer) => Buffer][] = [
    [
      'edited',
      (b) => {
        // 73 CIDRs rewritten in place, same length (`10.0.` → `1077.`): the file is still a sound database.
        const from = Buffer.from('"cidrs":["10.0.');
        let at = 0;
        for (let n = 0; n < 73; n++) {
          at = b.indexOf(from, at);
          assert.ok(at >= 0, 'the snapshot holds the CIDRs as text');
          b.write('"cidrs":["1077.', at);
          at += from.length;
        }
        return b;
      },
    ],
    ['appended', (b) => Buffer.concat([b, Buffer.alloc(5 * 1024, 0x61)])],
    ['truncated', (b) => b.subarray(0, b.length - 1000)],
    [
      'page-swapped',
      (b) => {
        const page = 16384;
        const a = Buffer.from(b.subarray(3 * page, 4 * page));
        b.copy(b, 3 * page, 4 * page, 5 * page);
        a.copy(b, 4 * page);
        return b;
      },
    ],
  ];

  for (const [name, change] of damaged) {
    test(`${name}: status and restore refuse it with both sums; nothing is written`, async () => {
      const file = variant(`${name}.db`, change);
      const [, expected, actual] = refused(await runCli(['snapshot', 'status', file]), new RegExp(`${name}\\.db is damaged: its contents do not match its checksum \\(${SUMS.source}\\)`));
      assert.notEqual(expected, actual);
      assert.equal(actual, createHash('sha256').update(readFileSync(file).subarray(0, readFileSync(file).length - 32)).digest('hex'), 'got: the sum of what the file holds');
      const target = join(dir, `from-${name}`);
      refused(await runCli(['snapshot', 'restore', file, '--data-dir', target]), SUMS);
      assert.equal(existsSync(target), false, 'a refused restore writes nothing');
    });
  }

  test('cut exactly at its checksum: refused as damaged', async () => {
    const file = variant('cut-at-sum.db', (b) => b.subarray(0, b.length - 32));
    refused(await runCli(['snapshot', 'status', file]), /cut-at-sum\.db is damaged: its checksum is missing \(the file was cut short\?\)$/);
    refused(await runCli(['snapshot', 'restore', file, '--data-dir', join(dir, 'from-cut')]), /checksum is missing/);
    assert.equal(existsSync(join(dir, 'from-cut')), false);
  });

  test('edited, restored with --skip-hash-check: the objects restored are checked against the recorded digest and refused', async () => {
    const target = join(dir, 'skip-edited');
    const r = await runCli(['snapshot', 'restore', join(dir, 'edited.db'), '--data-dir', target, '--skip-hash-check']);
    assert.equal(r.code, 1, r.stdout);
    const lines = r.stderr.trim().split('\n');
    assert.match(lines[0]!, /warning: --skip-hash-check: the snapshot's checksum is not checked/);
    assert.match(lines[1]!, /the restored objects do not match the snapshot's record of them \(expected sha256 [0-9a-f]{64}, got [0-9a-f]{64}\): the snapshot is damaged$/);
    assert.equal(existsSync(target), false, 'nothing is left of the refused restore');
  });

  test('a format-1 snapshot (no checksum): status warns, restore wants --skip-hash-check, then serves every object', { timeout: 180_000 }, async () => {
    const old = join(dir, 'format1.db');
    copyFileSync(good, old);
    truncateSync(old, bytes.length - 32);
    const db = new Database(old);
    db.exec("UPDATE snapshot_info SET value = 1 WHERE name = 'formatVersion'; DELETE FROM snapshot_info WHERE name = 'contentSha256'");
    db.close();
    const status = await runCli(['snapshot', 'status', old, '-o', 'json']);
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stderr, /warning: .*format1\.db is a format-1 snapshot, which carries no checksum: an edit to its contents cannot be detected/);
    assert.equal(JSON.parse(status.stdout).checksum, 'none');
    assert.equal(JSON.parse(status.stdout).sha256, null);
    const target = join(dir, 'from-format1');
    refused(await runCli(['snapshot', 'restore', old, '--data-dir', target]), /is a format-1 snapshot, which carries no checksum: its contents cannot be checked \(restore it with --skip-hash-check if you trust it\)$/);
    assert.equal(existsSync(target), false);
    const r = await runCli(['snapshot', 'restore', old, '--data-dir', target, '--skip-hash-check']);
    assert.equal(r.code, 0, r.stderr);
    const server = await startServer({ dataDir: target, args: ['--controllers=', '--snapshot-schedule-cron', ''] });
    try {
      const list = await server.request('GET', '/apis/networking.platform.io/v1/servicecidrs');
      assert.equal(list.json.items.length, 400);
    } finally {
      await server.stop();
    }
  });
});
