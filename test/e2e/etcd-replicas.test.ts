// Two API server replicas on one real etcd, set up as docs/etcd.md (several replicas) says:
// each replica has its own data dir, seeded with the same operator-handed files (CA, serving
// certificate, admin token), so either replica is reached with one kubeconfig. What one replica
// writes, the other reads, lists and watches, with the same resourceVersions; a watch resumed
// on B from a resourceVersion seen on A misses and repeats nothing; racing updates through the
// two replicas give one 200 and one 409.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, watchEvents, type TestServer } from './harness.js';
import { requireEtcd, startEtcdCluster, type EtcdCluster } from '../support/etcd-process.js';
import { seededDataDirs } from '../support/replica-data-dirs.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';
const haveEtcd = requireEtcd('the multi-replica tests run two servers on a real etcd') !== undefined;

const scidr = (name: string, cidr: string) => ({ apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name }, spec: { cidrs: [cidr] } });
const mergePatch = { 'Content-Type': 'application/merge-patch+json' };

describe('two replicas on one etcd', { skip: !haveEtcd }, () => {
  let etcd: EtcdCluster;
  let a: TestServer;
  let b: TestServer;
  let seeded: { dirs: string[]; cleanup(): void };

  before(async () => {
    etcd = await startEtcdCluster();
    seeded = await seededDataDirs(2);
    // These tests pin resourceVersions exactly; the ServiceCIDR controllers' own writes on
    // several replicas are tested in etcd-replica-controllers.test.ts.
    const args = ['--controllers=-service-cidr-controller', '--storage-backend', 'etcd', '--etcd-servers', etcd.endpoints, '--etcd-prefix', `/replicas-${process.pid}`];
    [a, b] = await Promise.all(seeded.dirs.map((dataDir) => startServer({ dataDir, removeOnStop: true, args })));
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await etcd?.stop();
    seeded?.cleanup();
  });

  test('the replicas share one admin token and one CA', () => {
    assert.equal(a.token, b.token);
    assert.equal(a.caCertPem, b.caCertPem);
  });

  test('a write through A is seen by get, list and watch through B with the same resourceVersion', async () => {
    const watchB = watchEvents(b, `${SC}?watch=true&timeoutSeconds=20&fieldSelector=metadata.name%3Dshared-1`, 1);
    const created = await a.request('POST', SC, { body: scidr('shared-1', '10.81.0.0/24') });
    assert.equal(created.status, 201, created.text);
    const rv = created.json.metadata.resourceVersion;
    const got = await b.request('GET', `${SC}/shared-1`);
    assert.equal(got.status, 200, got.text);
    assert.equal(got.json.metadata.resourceVersion, rv);
    assert.equal(got.json.metadata.uid, created.json.metadata.uid);
    const listed = await b.request('GET', SC);
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.json.items.filter((i: any) => i.metadata.name === 'shared-1').map((i: any) => i.metadata.resourceVersion), [rv]);
    assert.ok(Number(listed.json.metadata.resourceVersion) >= Number(rv), 'a consistent list through B is at least as new as the write through A');
    const { events } = await watchB;
    // The watch (no resourceVersion: the current state first) sees the object, whichever side of
    // the create it started on: ADDED with the create's resourceVersion, once.
    assert.deepEqual(events.map((e) => [e.type, e.object.metadata.resourceVersion]), [['ADDED', rv]]);
  });

  test('a watch resumed on B from a resourceVersion seen on A continues without gap or duplicate', async () => {
    const c = await a.request('POST', SC, { body: scidr('resume-1', '10.82.0.0/24') });
    assert.equal(c.status, 201, c.text);
    const rvs: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await a.request('PATCH', `${SC}/resume-1`, { body: { metadata: { annotations: { step: String(i) } } }, headers: mergePatch });
      assert.equal(r.status, 200, r.text);
      rvs.push(r.json.metadata.resourceVersion);
    }
    const more = await a.request('PATCH', `${SC}/resume-1`, { body: { metadata: { annotations: { step: 'last' } } }, headers: mergePatch });
    rvs.push(more.json.metadata.resourceVersion);
    const { status, events } = await watchEvents(b, `${SC}?watch=true&timeoutSeconds=20&resourceVersion=${c.json.metadata.resourceVersion}&fieldSelector=metadata.name%3Dresume-1`, 6);
    assert.equal(status, 200);
    assert.deepEqual(events.map((e) => [e.type, e.object.metadata.resourceVersion]), rvs.map((rv) => ['MODIFIED', rv]));
    assert.deepEqual(events.map((e) => e.object.metadata.annotations.step), ['0', '1', '2', '3', '4', 'last']);
  });

  test('two replicas racing to update one object: one 200, one 409', async () => {
    for (let round = 0; round < 3; round++) {
      const name = `race-${round}`;
      const c = await a.request('POST', SC, { body: scidr(name, '10.83.0.0/24') });
      assert.equal(c.status, 201, c.text);
      const put = (server: TestServer, who: string) =>
        server.request('PUT', `${SC}/${name}`, { body: { ...c.json, metadata: { ...c.json.metadata, annotations: { writer: who } } } });
      const [ra, rb] = await Promise.all([put(a, 'a'), put(b, 'b')]);
      assert.deepEqual([ra.status, rb.status].sort(), [200, 409], `${ra.text}\n${rb.text}`);
      const loser = ra.status === 409 ? ra : rb;
      assert.equal(loser.json.reason, 'Conflict');
      const winner = ra.status === 200 ? 'a' : 'b';
      const now = await (winner === 'a' ? b : a).request('GET', `${SC}/${name}`);
      assert.equal(now.json.metadata.annotations.writer, winner, 'both replicas agree on the winner');
    }
  });

  test('a resourceVersion from A is never "too large" on B (B catches up instead)', async () => {
    const c = await a.request('POST', SC, { body: scidr('fresh-1', '10.84.0.0/24') });
    const rv = c.json.metadata.resourceVersion;
    const got = await b.request('GET', `${SC}/fresh-1?resourceVersion=${rv}`);
    assert.equal(got.status, 200, got.text);
    const listed = await b.request('GET', `${SC}?resourceVersion=${rv}&resourceVersionMatch=NotOlderThan`);
    assert.equal(listed.status, 200, listed.text);
    assert.ok(listed.json.items.some((i: any) => i.metadata.name === 'fresh-1'));
  });
});
