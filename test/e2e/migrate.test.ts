// A store moved from SQLite to etcd and back, as an operator does it: a real server on SQLite
// fills it (both kinds; signer-linked names with ':', server-side apply's managedFields, a
// generation past 1, an object held by a finalizer and being deleted, the controllers' own
// finalizers and conditions), is stopped, `platform-apiserver migrate` copies the store into etcd,
// and a real server on that etcd prefix serves every object exactly as before (all but
// resourceVersion, now above every old one), with its controllers writing nothing. Old
// resourceVersions get 410 Gone.
// Then back into a new data dir, and a server on it serves the same objects again.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, watchEvents, type TestServer } from './harness.js';
import { makeCACert, type TestCert } from '../fixtures/certs.js';
import { eventually } from '../support/polling.js';
import { requireEtcd, startEtcdCluster, type EtcdCluster } from '../support/etcd-process.js';
import { runMigrate } from '../../src/cli/migrate/command.js';
import { SERVICE_CIDR_FINALIZER } from '../../src/controllers/service-cidr-api.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const haveEtcd = requireEtcd('a store is migrated into a real etcd') !== undefined;
const CTB = '/apis/certificates.platform.io/v1beta1/clustertrustbundles';
const SC = '/apis/networking.platform.io/v1/servicecidrs';
const SIGNER = 'example.com/edge';
const SCIDRS = 20;

/** Both kinds as a server lists them, by kind and name. */
async function everything(server: TestServer): Promise<Map<string, any>> {
  const out = new Map<string, any>();
  for (const path of [CTB, SC]) {
    const r = await server.request('GET', path);
    assert.equal(r.status, 200, r.text);
    for (const item of r.json.items) out.set(`${item.kind}/${item.metadata.name}`, item);
  }
  return out;
}

/** The object without what a migration changes (its resourceVersion). */
const withoutRV = (o: any): any => {
  const { resourceVersion: _rv, ...metadata } = o.metadata;
  return { ...o, metadata };
};

/** A client presenting an old resourceVersion gets 410 Gone: as the watch's status or its ERROR event. */
async function assertGone(server: TestServer, rv: string): Promise<void> {
  const w = await watchEvents(server, `${SC}?watch=true&resourceVersion=${rv}&timeoutSeconds=10`, 1);
  const code = w.status === 200 ? w.events[0]?.object?.code : w.status;
  assert.equal(code, 410, `watch from ${rv}: ${JSON.stringify(w)}`);
  const exact = await server.request('GET', `${SC}?resourceVersion=${rv}&resourceVersionMatch=Exact`);
  assert.equal(exact.status, 410, exact.text);
}

async function migrate(...argv: string[]): Promise<string> {
  let out = '';
  let err = '';
  const code = await runMigrate(argv, { stdout: (t) => void (out += t), stderr: (t) => void (err += t) });
  assert.equal(code, 0, err);
  return out;
}

describe('migration from SQLite to etcd and back, served by real servers', { skip: !haveEtcd }, () => {
  const root = mkdtempSync(join(tmpdir(), 'migrate-e2e-'));
  const prefix = `/migrated-${process.pid}`;
  let etcd: EtcdCluster;
  let original: Map<string, any>;
  let servers: TestServer[] = [];
  let a: TestCert;
  let b: TestCert;
  let etcdRevision = 0;
  let etcdObjects: Map<string, any>;

  before(async () => {
    [etcd, a, b] = await Promise.all([startEtcdCluster(), makeCACert({ commonName: 'anchor-a' }), makeCACert({ commonName: 'anchor-b' })]);
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await etcd?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  test('a store filled by a server on SQLite', async () => {
    const s = await startServer({ dataDir: join(root, 'sqlite') });
    servers.push(s);
    const ok = (r: { status: number; text: string }, ...codes: number[]) => assert.ok(codes.includes(r.status), r.text);
    const bundle = (name: string, pem: string, extra: object = {}) => ({ apiVersion: 'certificates.platform.io/v1beta1', kind: 'ClusterTrustBundle', metadata: { name, ...extra }, spec: { signerName: SIGNER, trustBundle: pem } });
    ok(await s.request('POST', CTB, { body: bundle('example.com:edge:prod', a.pem, { labels: { env: 'prod' } }) }), 201);
    // Server-side apply twice (managedFields, generation 2).
    const apply = (pem: string) =>
      s.request('PATCH', `${CTB}/example.com:edge:applied?fieldManager=migrator&force=true`, { body: JSON.stringify(bundle('example.com:edge:applied', pem)), headers: { 'Content-Type': 'application/apply-patch+yaml' } });
    ok(await apply(a.pem), 201);
    ok(await apply(b.pem), 200);
    // Held by a finalizer, then deleted: deletionTimestamp set, still there.
    ok(await s.request('POST', CTB, { body: bundle('example.com:edge:held', b.pem, { finalizers: ['example.com/hold'] }) }), 201);
    ok(await s.request('DELETE', `${CTB}/example.com:edge:held`), 200);
    for (let i = 0; i < SCIDRS; i++) {
      ok(await s.request('POST', SC, { body: { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: `range-${i}`, labels: { n: String(i) } }, spec: { cidrs: [`10.${100 + i}.0.0/24`] } } }), 201);
    }
    // The controllers' work done (finalizer and Ready on every ServiceCIDR), so the copy is at rest.
    original = await eventually(
      () => everything(s),
      (all) => [...all.values()].filter((o) => o.kind === 'ServiceCIDR').every((o) => o.metadata.finalizers?.includes(SERVICE_CIDR_FINALIZER) && o.status?.conditions?.some((c: any) => c.type === 'Ready')),
    );
    assert.equal(original.size, 3 + SCIDRS + 1, [...original.keys()].join(' ')); // + the default `kubernetes` ServiceCIDR
    const held = original.get('ClusterTrustBundle/example.com:edge:held');
    assert.ok(held.metadata.deletionTimestamp);
    assert.equal(original.get('ClusterTrustBundle/example.com:edge:applied').metadata.generation, 2);
    assert.equal(original.get('ClusterTrustBundle/example.com:edge:applied').metadata.managedFields[0].operation, 'Apply');
  });

  test('the command refuses the data dir while the server holds it (the real binary)', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(repo, 'src', 'main.ts'), 'migrate', '--data-dir', servers[0]!.dataDir, '--to-etcd-servers', etcd.endpoints, '--etcd-prefix', prefix], { cwd: repo });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    assert.equal(code, 1);
    assert.match(stderr, new RegExp(`^platform-apiserver migrate: a running server \\(pid ${servers[0]!.pid}\\) holds .*state\\.db: stop it first`));
  });

  test('with --force, a consistent copy at one revision while the server keeps taking writes', async () => {
    const s = servers[0]!;
    let writes = 0;
    let stop = false;
    const writer = (async () => {
      while (!stop) {
        const r = await s.request('POST', CTB, { body: { apiVersion: 'certificates.platform.io/v1beta1', kind: 'ClusterTrustBundle', metadata: { name: `during-${writes}` }, spec: { trustBundle: a.pem } } });
        assert.equal(r.status, 201, r.text);
        writes++;
      }
    })();
    // Writes under way before the copy starts (and, as far as timing allows, during it).
    await eventually(async () => writes, (n) => n >= 3);
    let out = '';
    let err = '';
    const code = await runMigrate(['--data-dir', s.dataDir, '--to-etcd-servers', etcd.endpoints, '--etcd-prefix', `${prefix}-forced`, '--force'], { stdout: (t) => void (out += t), stderr: (t) => void (err += t) });
    stop = true;
    await writer;
    assert.equal(code, 0, err);
    assert.match(err, /warning: a running server holds .*; writes after revision (\d+) are not in this copy/);
    // Verified against the source at its revision: the count is what the store held then.
    const copied = Number(/^migrated (\d+) objects/.exec(out)![1]);
    assert.ok(copied >= original.size && copied <= original.size + writes, `${copied} objects copied, ${writes} written meanwhile`);
    // Removed again (no finalizer holds a bundle): the store is back to the objects the next tests compare.
    for (let i = 0; i < writes; i++) assert.equal((await s.request('DELETE', `${CTB}/during-${i}`)).status, 200);
  });

  test('migrated to etcd: a server on the prefix serves every object as it was, and its controllers write nothing', async () => {
    await servers[0]!.stop({ keepData: true });
    const out = await migrate('--data-dir', join(root, 'sqlite'), '--to-etcd-servers', etcd.endpoints, '--etcd-prefix', prefix);
    assert.match(out, new RegExp(`^migrated ${original.size} objects .* to etcd prefix ${prefix}/ \\(etcd revision (\\d+)\\), verified key by key`));
    etcdRevision = Number(/etcd revision (\d+)/.exec(out)![1]);
    const s = await startServer({ args: ['--storage-backend', 'etcd', '--etcd-servers', etcd.endpoints, '--etcd-prefix', prefix] });
    servers.push(s);
    etcdObjects = await everything(s);
    assert.deepEqual([...etcdObjects.keys()].sort(), [...original.keys()].sort());
    for (const [name, obj] of original) assert.deepEqual(withoutRV(etcdObjects.get(name)), withoutRV(obj), name);
    const sqliteNewest = Math.max(...[...original.values()].map((o) => Number(o.metadata.resourceVersion)));
    for (const obj of etcdObjects.values()) {
      assert.ok(Number(obj.metadata.resourceVersion) <= etcdRevision, `${obj.metadata.name} was written after the migration`);
      assert.ok(Number(obj.metadata.resourceVersion) > sqliteNewest, 'above every resourceVersion the SQLite store handed out');
    }
    // Ready (the controllers synced and initialized); give them a moment more: still nothing written.
    await new Promise((r) => setTimeout(r, 2000));
    const later = await everything(s);
    for (const [name, obj] of etcdObjects) assert.equal(later.get(name).metadata.resourceVersion, obj.metadata.resourceVersion, `${name} rewritten`);
    // Any resourceVersion the SQLite store handed out, its first and its newest: 410, re-list.
    await assertGone(s, '1');
    await assertGone(s, String(sqliteNewest));
    // A write based on a read from the old store: 409, never a match by chance.
    const stale = original.get('ServiceCIDR/range-0');
    const put = await s.request('PUT', `${SC}/range-0`, { body: { ...stale, metadata: { ...stale.metadata, labels: { n: 'stale' } } } });
    assert.equal(put.status, 409, put.text);
  });

  test('and back into a new data dir: a server on it serves the same objects; etcd-era resourceVersions get 410', async () => {
    await servers[1]!.stop();
    const back = join(root, 'back');
    await migrate('--from-etcd-servers', etcd.endpoints, '--etcd-prefix', prefix, '--data-dir', back);
    const s = await startServer({ dataDir: back });
    servers.push(s);
    const served = await everything(s);
    assert.deepEqual([...served.keys()].sort(), [...original.keys()].sort());
    for (const [name, obj] of original) assert.deepEqual(withoutRV(served.get(name)), withoutRV(obj), name);
    for (const obj of served.values()) assert.ok(Number(obj.metadata.resourceVersion) > etcdRevision, 'never an etcd-era resourceVersion again');
    const newest = Math.max(...[...etcdObjects.values()].map((o) => Number(o.metadata.resourceVersion)));
    await assertGone(s, String(newest));
    await new Promise((r) => setTimeout(r, 1000));
    const later = await everything(s);
    for (const [name, obj] of served) assert.equal(later.get(name).metadata.resourceVersion, obj.metadata.resourceVersion, `${name} rewritten`);
  });
});
