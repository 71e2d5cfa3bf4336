// kill -9 of `migrate` (the real bin), both ways, at every step (the target marked, the copy
// half done, the verification half done, and the last step before the target is declared
// complete), then a real server started on the target (the etcd prefix, or the data dir): it
// refuses with one line naming the migration and what to run; that command, run as the line
// says, removes what the killed one wrote and completes, and a server then serves every object.
// Then kills at no chosen step, while a larger store is copied into etcd.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Etcd3 } from 'etcd3';
import { servedServiceCidrs } from './served-service-cidrs.js';
import { requireEtcd, startEtcdCluster, type EtcdCluster } from '../support/etcd-process.js';
import { fillServiceCidrs } from '../support/large-store.js';
import { assertServerRefuses, killAt, killWhen, namedCommand } from '../support/kill-points.js';
import { runCli } from '../support/run-cli.js';

const haveEtcd = requireEtcd('migrations are killed midway into and out of a real etcd') !== undefined;
// Nothing the server would write on its own: what it serves is what the migration wrote.
const ARGS = ['--controllers='];
const SQLITE_ARGS = [...ARGS, '--snapshot-schedule-cron', ''];
// Marked (before the first object), the copy half done, the verification half done, the last step before complete.
const TO_STEPS = ['migrate-to-etcd:marked', 'migrate-to-etcd:copying', 'migrate-to-etcd:verifying', 'migrate-to-etcd:compacted'];
const FROM_STEPS = ['migrate-from-etcd:marked', 'migrate-from-etcd:copying', 'migrate-from-etcd:verifying', 'migrate-from-etcd:renamed'];

/** Every ServiceCIDR a server started with `args` serves, by name. */
const served = (args: string[], dataDir?: string): Promise<Map<string, string>> =>
  servedServiceCidrs({ ...(dataDir ? { dataDir, removeOnStop: false } : {}), args: [...(dataDir ? SQLITE_ARGS : ARGS), ...args] });

describe('migrate killed with SIGKILL', { skip: !haveEtcd }, () => {
  const root = mkdtempSync(join(tmpdir(), 'platform-migrate-kill-'));
  const data = join(root, 'data');
  let etcd: EtcdCluster;
  let expected: Map<string, string>;
  const onEtcd = (prefix: string): string[] => ['--storage-backend', 'etcd', '--etcd-servers', etcd.endpoints, '--etcd-prefix', prefix];
  after(async () => {
    await etcd?.stop();
    rmSync(root, { recursive: true, force: true });
  });
  before(async () => {
    etcd = await startEtcdCluster();
    await fillServiceCidrs(data, 1000, 2048);
    expected = await served([], data);
    assert.equal(expected.size, 1000);
  });

  for (const [i, step] of TO_STEPS.entries()) {
    test(`to etcd, killed at ${step}: a server refuses the prefix; the command it names completes, and every object is served`, { timeout: 300_000 }, async () => {
      const prefix = `/killed-to-${i}`;
      await killAt(['migrate', '--data-dir', data, '--to-etcd-servers', etcd.endpoints, '--etcd-prefix', prefix], step);
      const refusal = await assertServerRefuses(
        ['--data-dir', join(root, `server-${i}`), ...ARGS, ...onEtcd(prefix)],
        new RegExp(`^platform-apiserver: etcd prefix ${prefix}/ holds an unfinished store: \`platform-apiserver migrate --data-dir \\S+ --to-etcd-servers \\S+ --etcd-prefix ${prefix}\` \\(pid \\d+ on [^,]+, started [^)]+\\) did not finish`),
      );
      const again = await runCli(namedCommand(refusal.stderr), { timeoutMs: 120_000 });
      assert.equal(again.code, 0, again.stderr);
      if (step !== 'migrate-to-etcd:marked') assert.match(again.stderr, /removed the \d+ keys an interrupted `platform-apiserver migrate .*` \(pid \d+, started .*\) wrote under /);
      assert.match(again.stdout, /verified key by key and by content digest \(sha256 [0-9a-f]{64} on both sides\)/);
      assert.deepEqual(await served(onEtcd(prefix)), expected);
    });
  }

  for (const [i, step] of FROM_STEPS.entries()) {
    test(`back from etcd, killed at ${step}: a server refuses the data dir; the command it names completes, and every object is served`, { timeout: 300_000 }, async () => {
      const source = '/killed-source';
      if (i === 0) assert.equal((await runCli(['migrate', '--data-dir', data, '--to-etcd-servers', etcd.endpoints, '--etcd-prefix', source])).code, 0);
      const dir = join(root, `back-${i}`);
      await killAt(['migrate', '--from-etcd-servers', etcd.endpoints, '--etcd-prefix', source, '--data-dir', dir], step);
      const refusal = await assertServerRefuses(
        ['--data-dir', dir, ...SQLITE_ARGS],
        /^platform-apiserver: data dir \/\S+ holds an unfinished store: `platform-apiserver migrate --from-etcd-servers \S+ --etcd-prefix \/killed-source --data-dir \/\S+` \(pid \d+ on [^,]+, started [^)]+\) did not finish; run that command again/,
      );
      const again = await runCli(namedCommand(refusal.stderr), { timeoutMs: 120_000 });
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stderr, /removed what an interrupted `platform-apiserver migrate --from-etcd-servers .*` \(pid \d+, started .*\) left in /);
      assert.deepEqual(readdirSync(dir).sort(), ['state.db'], 'nothing the killed migration left remains');
      assert.deepEqual(await served([], dir), expected);
    });
  }

  test('into etcd and back, killed while a larger store is copied, at chosen moments: refused or served whole, never in part', { timeout: 600_000 }, async () => {
    const big = join(root, 'big');
    await fillServiceCidrs(big, 8000, 2048);
    const whole = await served([], big);
    const client = new Etcd3({ hosts: etcd.endpoints.split(',') });
    try {
      for (const [i, keys] of [1, 3000, 6500].entries()) {
        const prefix = `/killed-big-${i}`;
        const copied = async (): Promise<number> => Number(await client.getAll().prefix(`${prefix}/`).count().catch(() => 0));
        const outcome = await killWhen(['migrate', '--data-dir', big, '--to-etcd-servers', etcd.endpoints, '--etcd-prefix', prefix, '--no-advance-revision'], async () => (await copied()) >= keys);
        process.stdout.write(`# migrate killed after ${keys} keys: ${outcome} (${await copied()} keys under the prefix)\n`);
        if (outcome === 'killed') {
          const refusal = await assertServerRefuses(['--data-dir', join(root, `big-server-${i}`), ...ARGS, ...onEtcd(prefix)], new RegExp(`etcd prefix ${prefix}/ holds an unfinished store`));
          const again = await runCli(namedCommand(refusal.stderr), { timeoutMs: 180_000 });
          assert.equal(again.code, 0, again.stderr);
        }
        assert.deepEqual(await served(onEtcd(prefix)), whole);
      }
    } finally {
      client.close();
    }
    // And back, killed once the new database has begun, and once it is well under way.
    for (const [i, bytes] of [1, 8 * 1024 * 1024].entries()) {
      const dir = join(root, `big-back-${i}`);
      // The bytes of the database being written (whatever its temporary name), not yet renamed into place.
      const written = (): number => {
        try {
          const names = readdirSync(dir);
          if (names.includes('state.db')) return 0;
          return names.filter((n) => !/\.(lock|unfinished)$/.test(n)).reduce((sum, n) => sum + statSync(join(dir, n)).size, 0);
        } catch {
          return 0;
        }
      };
      const outcome = await killWhen(['migrate', '--from-etcd-servers', etcd.endpoints, '--etcd-prefix', '/killed-big-2', '--data-dir', dir], () => written() >= bytes);
      process.stdout.write(`# migrate back killed after ${bytes} bytes: ${outcome} (${readdirSync(dir).join(' ')})\n`);
      if (outcome === 'killed') {
        const refusal = await assertServerRefuses(['--data-dir', dir, ...SQLITE_ARGS], /data dir \/\S+ holds an unfinished store/);
        assert.equal((await runCli(namedCommand(refusal.stderr), { timeoutMs: 180_000 })).code, 0);
      }
      assert.deepEqual(await served([], dir), whole);
    }
  });
});
