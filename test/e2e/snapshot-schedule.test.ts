// Scheduled snapshots in the real server: a cron expression every second fills --snapshot-dir,
// retention keeps the newest N, `snapshot ls` lists them, /metrics counts saves and failures and
// gives the last success's time; a schedule that cannot save (its directory cannot be made) is
// logged and counted while the server goes on serving writes. On etcd the schedule flags are
// refused with a clear message; a bad cron expression too.

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type TestServer } from './harness.js';
import { runCli } from '../support/run-cli.js';
import { eventually } from '../support/polling.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';

/** A metric's value (series without labels), from the Prometheus text format. */
async function metric(server: TestServer, name: string): Promise<number> {
  const r = await server.request('GET', '/metrics');
  assert.equal(r.status, 200, r.text);
  const line = r.text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.slice(name.length + 1)) : NaN;
}

describe('scheduled snapshots', () => {
  const dir = mkdtempSync(join(tmpdir(), 'platform-snapsched-'));
  const servers: TestServer[] = [];
  after(async () => {
    for (const s of servers) await s.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('every second, keeping 2: saves counted, the last success timed, ls lists the newest 2', { timeout: 180_000 }, async () => {
    const snaps = join(dir, 'snaps');
    const startedAt = Date.now() / 1000;
    const s = await startServer({ args: ['--snapshot-schedule-cron', '* * * * * *', '--snapshot-retention', '2', '--snapshot-dir', snaps] });
    servers.push(s);
    assert.equal((await s.request('POST', SC, { body: { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'kept' }, spec: { cidrs: ['10.9.0.0/16'] } } })).status, 201);
    const saves = await eventually(() => metric(s, 'platform_apiserver_snapshot_saves_total'), (n) => n >= 4, 60_000);
    assert.ok(saves >= 4, `saves: ${saves}\n${s.log()}`);
    assert.equal(await metric(s, 'platform_apiserver_snapshot_failures_total'), 0);
    assert.ok((await metric(s, 'platform_apiserver_snapshot_last_success_timestamp_seconds')) >= startedAt);
    // Stopped, so that the listing holds still (a stop waits for a save under way).
    await s.stop();
    const ls = await runCli(['snapshot', 'ls', '--snapshot-dir', snaps, '-o', 'json']);
    assert.equal(ls.code, 0, ls.stderr);
    const listed = JSON.parse(ls.stdout) as { name: string; revision: number }[];
    assert.equal(listed.length, 2, `retention: the newest 2 remain: ${ls.stdout}`);
    assert.deepEqual(readdirSync(snaps).sort(), listed.map((l) => l.name).sort(), 'nothing else is left in the directory');
    assert.ok(listed.every((l) => l.name.startsWith('scheduled-')));
    assert.ok(listed[0]!.name > listed[1]!.name, 'newest first');
    const status = await runCli(['snapshot', 'status', join(snaps, listed[0]!.name), '-o', 'json']);
    assert.equal(status.code, 0, status.stderr);
    assert.ok(JSON.parse(status.stdout).resources.some((r: any) => r.resource === 'servicecidrs.networking.platform.io' && r.objects >= 2));
  });

  test('a failing schedule is logged and counted; the server goes on serving writes', { timeout: 180_000 }, async () => {
    const blocker = join(dir, 'a-file');
    writeFileSync(blocker, 'not a directory');
    const s = await startServer({ args: ['--snapshot-schedule-cron', '* * * * * *', '--snapshot-dir', join(blocker, 'snaps')] });
    servers.push(s);
    const failures = await eventually(() => metric(s, 'platform_apiserver_snapshot_failures_total'), (n) => n >= 2, 60_000);
    assert.ok(failures >= 2, `failures: ${failures}`);
    assert.equal(await metric(s, 'platform_apiserver_snapshot_last_success_timestamp_seconds'), 0);
    const w = await s.request('POST', SC, { body: { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'still-serving' }, spec: { cidrs: ['10.8.0.0/16'] } } });
    assert.equal(w.status, 201, w.text);
    assert.equal((await s.request('GET', '/readyz')).status, 200);
    assert.match(s.log(), /scheduled snapshot failed/);
  });

  test('the schedule flags on etcd, and a bad cron expression, are refused at start with one line', async () => {
    const etcd = await runCli(['--storage-backend', 'etcd', '--etcd-servers', 'http://127.0.0.1:2379', '--snapshot-retention', '3']);
    assert.equal(etcd.code, 2);
    assert.equal(etcd.stderr, 'platform-apiserver: --snapshot-retention: scheduled snapshots are for the sqlite backend; back up etcd with etcdctl snapshot save\n');
    const cron = await runCli(['--snapshot-schedule-cron', '61 * * * *', '--data-dir', join(dir, 'unused')]);
    assert.equal(cron.code, 2);
    assert.match(cron.stderr, /^platform-apiserver: .*--snapshot-schedule-cron: "61 \* \* \* \*" is not a cron expression/);
    assert.equal(cron.stderr.trim().split('\n').length, 1);
  });
});
