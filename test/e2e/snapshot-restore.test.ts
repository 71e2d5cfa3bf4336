// Backup and restore end to end, through the real bin and real servers: `snapshot save` while
// clients write, `snapshot restore` into a new data dir, and a server started on it (same port,
// same certificates and token, as an operator restoring in place would do) serves exactly the
// objects at the snapshot's revision: every object equal, byte for byte as JSON, to what the old
// server listed at that revision (uids, specs, labels, managedFields, finalizers,
// deletionTimestamp, resourceVersions). Its next writes get resourceVersions past anything the
// old server handed out; a client-node informer that watched the old server gets 410 and
// re-lists to the restored state; a watch from an old resourceVersion gets 410 Expired.

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { makeCACert } from '../fixtures/certs.js';
import { startServer, type TestServer } from './harness.js';
import { runCli } from '../support/run-cli.js';
import { openWatch } from '../support/watch-stream.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';
const CTB = '/apis/certificates.platform.io/v1beta1/clustertrustbundles';
// The controllers would write on start; the comparison is of what clients wrote.
const ARGS = ['--controllers=', '--snapshot-schedule-cron', ''];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(what: string, cond: () => boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

const byName = (items: any[]) => [...items].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
const scidr = (name: string, i: number, extra: object = {}) => ({
  apiVersion: 'networking.platform.io/v1',
  kind: 'ServiceCIDR',
  metadata: { name, labels: { i: String(i) }, ...extra },
  spec: { cidrs: [`10.${i % 250}.0.0/16`] },
});

describe('snapshot save and restore with a server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'platform-snaprestore-'));
  const servers: TestServer[] = [];
  after(async () => {
    for (const s of servers) await s.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('save under writes, restore, serve exactly the snapshot; old clients get 410 and re-list', { timeout: 300_000 }, async () => {
    const a = await startServer({ args: ARGS });
    servers.push(a);
    const ca = await makeCACert({ commonName: 'snap-root' });
    for (let i = 0; i < 10; i++) assert.equal((await a.request('POST', SC, { body: scidr(`base-${i}`, i, { finalizers: ['example.com/keep'], annotations: { note: `n${i}` } }) })).status, 201);
    for (let i = 0; i < 2; i++) {
      const body = { apiVersion: 'certificates.platform.io/v1beta1', kind: 'ClusterTrustBundle', metadata: { name: `example.com:snap:b${i}` }, spec: { signerName: 'example.com/snap', trustBundle: ca.pem } };
      assert.equal((await a.request('POST', CTB, { body })).status, 201);
    }
    // Server-side apply by a second manager (managedFields), and a deletion held by its finalizer (deletionTimestamp).
    const apply = await a.request('PATCH', `${SC}/base-1?fieldManager=tool`, { body: { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'base-1', labels: { owner: 'tool' } } }, headers: { 'Content-Type': 'application/apply-patch+yaml' } });
    assert.equal(apply.status, 200, apply.text);
    assert.equal((await a.request('DELETE', `${SC}/base-2`)).status, 200);

    // A client-node informer on the old server, re-started after each error as its docs advise.
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(a.kubeconfigPath);
    const custom = kc.makeApiClient(k8s.CustomObjectsApi);
    const informer = k8s.makeInformer<any>(kc, SC, () => custom.listClusterCustomObject({ group: 'networking.platform.io', version: 'v1', plural: 'servicecidrs' }) as never);
    let stopped = false;
    const deleted: string[] = [];
    informer.on('delete', (o) => deleted.push(o.metadata.name));
    informer.on('error', () => {
      if (!stopped) setTimeout(() => void informer.start().catch(() => undefined), 300);
    });
    await informer.start();

    // Writers run while the snapshot is saved.
    let writing = true;
    let written = 0;
    const writer = async (w: number) => {
      for (let i = 0; writing; i++) {
        const r = i % 2 === 0 ? await a.request('POST', SC, { body: scidr(`w${w}-${i}`, i) }) : await a.request('PATCH', `${SC}/base-${w}`, { body: { metadata: { labels: { step: String(i) } } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
        assert.ok(r.status === 201 || r.status === 200, r.text);
        written++;
      }
    };
    const writers = [0, 3, 4, 5].map(writer);
    await waitFor('writes before the save', () => written >= 20);
    const file = join(dir, 'live.db');
    const save = await runCli(['snapshot', 'save', file, '--data-dir', a.dataDir]);
    assert.equal(save.code, 0, save.stderr);
    const atSave = written;
    await waitFor('writes after the save', () => written >= atSave + 20);
    writing = false;
    await Promise.all(writers);

    const status = await runCli(['snapshot', 'status', file, '-o', 'json']);
    assert.equal(status.code, 0, status.stderr);
    const revision = JSON.parse(status.stdout).revision as number;
    const exact = async (path: string) => {
      const r = await a.request('GET', `${path}?resourceVersion=${revision}&resourceVersionMatch=Exact`);
      assert.equal(r.status, 200, r.text);
      return byName(r.json.items);
    };
    const expected = { sc: await exact(SC), ctb: await exact(CTB) };
    const latest = await a.request('GET', SC);
    const handedOut = Number(latest.json.metadata.resourceVersion);
    assert.ok(handedOut > revision, 'the old server wrote past the snapshot');
    const afterSnapshot = latest.json.items.filter((o: any) => Number(o.metadata.resourceVersion) > revision && !expected.sc.some((e) => e.metadata.name === o.metadata.name));
    assert.ok(afterSnapshot.length > 0, 'objects created after the snapshot exist on the old server');
    await waitFor('the informer to see the old server', () => informer.list().length === latest.json.items.length);

    // The old server goes; the snapshot is restored into a new dir with the old certificates and token.
    await a.stop({ keepData: true });
    const restored = join(dir, 'restored');
    const r = await runCli(['snapshot', 'restore', file, '--data-dir', restored]);
    assert.equal(r.code, 0, r.stderr);
    for (const f of ['ca.crt', 'ca.key', 'apiserver.crt', 'apiserver.key', 'admin.token']) copyFileSync(join(a.dataDir, f), join(restored, f));
    const b = await startServer({ dataDir: restored, removeOnStop: true, args: [...ARGS, '--secure-port', String(a.port)] });
    servers.push(b);

    const listSc = await b.request('GET', SC);
    assert.deepEqual(byName(listSc.json.items), expected.sc, 'every ServiceCIDR exactly as at the snapshot revision');
    assert.deepEqual(byName((await b.request('GET', CTB)).json.items), expected.ctb, 'every ClusterTrustBundle exactly as at the snapshot revision');
    assert.ok(expected.sc.find((o) => o.metadata.name === 'base-2')?.metadata.deletionTimestamp, 'the held deletion is kept');
    assert.ok(expected.sc.find((o) => o.metadata.name === 'base-1')?.metadata.managedFields.some((m: any) => m.manager === 'tool'));
    assert.equal(Number(listSc.json.metadata.resourceVersion), revision + 1_000_000_000);

    const created = await b.request('POST', SC, { body: scidr('after-restore', 7) });
    assert.equal(created.status, 201, created.text);
    assert.ok(Number(created.json.metadata.resourceVersion) > revision + 1_000_000_000, 'new writes are past the bumped revision');
    assert.ok(Number(created.json.metadata.resourceVersion) > handedOut, 'never a resourceVersion the old server handed out');

    // A watch from before: 410 Expired.
    for (const rv of [revision, handedOut]) {
      const w = openWatch(b, `${SC}?watch=1&resourceVersion=${rv}`);
      const how = await Promise.race([w.ended, sleep(15_000).then(() => 'open')]);
      w.close();
      const gone = w.status() === 410 || w.events.some((e) => e.type === 'ERROR' && e.object?.code === 410);
      assert.ok(gone, `a watch from ${rv} is told 410 (status ${w.status()}, ${how}, events ${JSON.stringify(w.events)})`);
    }

    // The informer re-listed: exactly the restored objects plus the new one; what came after the snapshot is gone.
    const want = [...expected.sc.map((o) => o.metadata.name), 'after-restore'].sort().join();
    await waitFor('the informer to re-list from the restored server', () => informer.list().map((o) => o.metadata.name).sort().join() === want);
    for (const o of afterSnapshot) assert.ok(deleted.includes(o.metadata.name), `the informer saw ${o.metadata.name} go`);
    stopped = true;
    await informer.stop();
  });
});
