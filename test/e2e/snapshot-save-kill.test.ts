// kill -9 of `snapshot save` (the real bin) at every step (before the copy, after it, while it is
// sealed, sealed but not yet renamed), saving over an existing snapshot: the target is always
// the old snapshot, whole (its checksum checks), never a part of the new one; what the killed
// save left is never taken for a snapshot; the next save removes it and replaces the target;
// and a server started on the target restored serves exactly what the target held.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from './harness.js';
import { fillServiceCidrs } from '../support/large-store.js';
import { killAt } from '../support/kill-points.js';
import { runCli } from '../support/run-cli.js';

const STEPS = ['save:before-copy', 'save:copied', 'save:sealing', 'save:sealed'];

async function status(file: string): Promise<{ revision: number; totalObjects: number; checksum: string }> {
  const r = await runCli(['snapshot', 'status', file, '-o', 'json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

describe('snapshot save killed with SIGKILL', () => {
  const dir = mkdtempSync(join(tmpdir(), 'platform-save-kill-'));
  const data = join(dir, 'data');
  const snaps = join(dir, 'snaps');
  const target = join(snaps, 'nightly.db');
  let first: { revision: number; totalObjects: number };
  after(() => rmSync(dir, { recursive: true, force: true }));
  before(async () => {
    mkdirSync(snaps);
    await fillServiceCidrs(data, 1000, 2048);
    assert.equal((await runCli(['snapshot', 'save', target, '--data-dir', data])).code, 0);
    first = await status(target);
    // The store moves on: the next save would hold more.
    await fillServiceCidrs(data, 500, 2048, 1000);
  });

  for (const step of STEPS) {
    test(`killed at ${step}: the target is the previous snapshot, whole; nothing left is taken for one`, { timeout: 180_000 }, async () => {
      await killAt(['snapshot', 'save', target, '--data-dir', data], step);
      const now = await status(target);
      assert.deepEqual([now.revision, now.totalObjects, now.checksum], [first.revision, first.totalObjects, 'ok'], 'the old snapshot, its checksum checked');
      const ls = await runCli(['snapshot', 'ls', '--snapshot-dir', snaps, '-o', 'json']);
      assert.deepEqual((JSON.parse(ls.stdout) as { name: string }[]).map((s) => s.name), ['nightly.db']);
      for (const left of readdirSync(snaps).filter((n) => n !== 'nightly.db')) {
        assert.match(left, /\.partial(-journal|-wal|-shm)?$/);
        const r = await runCli(['snapshot', 'status', join(snaps, left)]);
        assert.equal(r.code, 1, `${left} is refused`);
        const restore = await runCli(['snapshot', 'restore', join(snaps, left), '--data-dir', join(dir, `from-${left}`)]);
        assert.equal(restore.code, 1);
      }
    });
  }

  test('the next save removes what the killed ones left and replaces the target; restored, it is served whole', { timeout: 180_000 }, async () => {
    assert.equal((await runCli(['snapshot', 'save', target, '--data-dir', data])).code, 0);
    assert.deepEqual(readdirSync(snaps), ['nightly.db']);
    const now = await status(target);
    assert.equal(now.totalObjects, 1500);
    const restored = join(dir, 'restored');
    assert.equal((await runCli(['snapshot', 'restore', target, '--data-dir', restored])).code, 0);
    const server = await startServer({ dataDir: restored, args: ['--controllers=', '--snapshot-schedule-cron', ''] });
    try {
      const r = await server.request('GET', '/apis/networking.platform.io/v1/servicecidrs');
      assert.equal(r.json.items.length, 1500);
    } finally {
      await server.stop();
    }
  });
});
