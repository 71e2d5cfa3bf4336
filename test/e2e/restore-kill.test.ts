// kill -9 of `snapshot restore` (the real bin) at every step (the data dir marked, the copy
// half done, the verification half done, the store renamed into place), then a real server
// started on the data dir: it refuses with one line naming the restore and what to run; that
// command, run as the line says, removes what the killed one left and completes, and a server
// then serves every object of the snapshot. Then kills at no chosen step, while a larger store
// is copied: whatever is left is refused or served whole, never served in part.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { servedServiceCidrs } from './served-service-cidrs.js';
import { fillServiceCidrs } from '../support/large-store.js';
import { assertServerRefuses, killAt, killWhen, namedCommand } from '../support/kill-points.js';
import { runCli } from '../support/run-cli.js';

// Nothing the server would write on its own: what it serves is what the restore wrote.
const ARGS = ['--controllers=', '--snapshot-schedule-cron', ''];
const STEPS = ['restore:marked', 'restore:copying', 'restore:verifying', 'restore:renamed'];
const REFUSAL = /^platform-apiserver: data dir \/\S+ holds an unfinished store: `platform-apiserver snapshot restore \/\S+ --data-dir \/\S+` \(pid \d+ on [^,]+, started [^)]+\) did not finish; run that command again to finish it/;

/** Every ServiceCIDR a server on `dataDir` serves, by name: its uid and its ~2 KB bytes' length. */
const served = (dataDir: string): Promise<Map<string, string>> => servedServiceCidrs({ dataDir, removeOnStop: false, args: ARGS });

describe('snapshot restore killed with SIGKILL', () => {
  const root = mkdtempSync(join(tmpdir(), 'platform-restore-kill-'));
  const data = join(root, 'data');
  const snapshot = join(root, 'snap.db');
  let expected: Map<string, string>;
  after(() => rmSync(root, { recursive: true, force: true }));
  before(async () => {
    await fillServiceCidrs(data, 1000, 2048);
    const save = await runCli(['snapshot', 'save', snapshot, '--data-dir', data]);
    assert.equal(save.code, 0, save.stderr);
    expected = await served(data);
    assert.equal(expected.size, 1000);
  });

  for (const step of STEPS) {
    test(`killed at ${step}: the server refuses the data dir; the command it names completes, and every object is served`, { timeout: 300_000 }, async () => {
      const dir = join(root, step.replace(':', '-'));
      await killAt(['snapshot', 'restore', snapshot, '--data-dir', dir], step);
      const refusal = await assertServerRefuses(['--data-dir', dir, ...ARGS], REFUSAL);
      const again = await runCli(namedCommand(refusal.stderr), { timeoutMs: 120_000 });
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stderr, /removed what an interrupted `platform-apiserver snapshot restore .*` \(pid \d+, started .*\) left in /);
      assert.deepEqual(readdirSync(dir).sort(), ['state.db'], 'nothing the killed restore left remains');
      assert.deepEqual(await served(dir), expected);
    });
  }

  test('killed while SQLite copies a larger store, at three moments: refused or served whole, never in part', { timeout: 600_000 }, async () => {
    const big = join(root, 'big');
    await fillServiceCidrs(big, 10_000, 2048);
    const bigSnapshot = join(root, 'big.db');
    assert.equal((await runCli(['snapshot', 'save', bigSnapshot, '--data-dir', big])).code, 0);
    const whole = await served(big);
    const size = statSync(bigSnapshot).size;
    for (const [i, fraction] of [0, 0.3, 0.7].entries()) {
      const dir = join(root, `big-${i}`);
      const partialBytes = (): number => {
        if (!existsSync(dir)) return 0;
        const p = readdirSync(dir).find((n) => n.endsWith('.partial'));
        try {
          return p ? statSync(join(dir, p)).size : 0;
        } catch {
          return 0;
        }
      };
      // Killed once the new store has passed this fraction of the snapshot's size (0: as soon as it exists).
      const outcome = await killWhen(['snapshot', 'restore', bigSnapshot, '--data-dir', dir], () => partialBytes() > fraction * size * 0.8 && readdirSync(dir).some((n) => n.endsWith('.partial')));
      process.stdout.write(`# restore killed at ${fraction}: ${outcome}, ${readdirSync(dir).join(' ')}\n`);
      if (outcome === 'killed') {
        const refusal = await assertServerRefuses(['--data-dir', dir, ...ARGS], REFUSAL);
        assert.equal((await runCli(namedCommand(refusal.stderr), { timeoutMs: 120_000 })).code, 0);
      }
      assert.deepEqual(await served(dir), whole);
    }
  });
});
