// The in-process controllers on two replicas sharing one real etcd, both running them (issue
// #14: safe when every replica runs them): one default `kubernetes` ServiceCIDR, every new
// ServiceCIDR gets the finalizer and Ready=True once, and once settled nothing is written again
// (no flapping between replicas: the resourceVersion stays put). Deletion through the finalizer
// works whichever replica is asked.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServer, type TestServer } from './harness.js';
import { eventually } from '../support/polling.js';
import { requireEtcd, startEtcdCluster, type EtcdCluster } from '../support/etcd-process.js';
import { seededDataDirs } from '../support/replica-data-dirs.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';
const haveEtcd = requireEtcd('the replica controller tests run two servers on a real etcd') !== undefined;

/** Polls until `ok` holds, for at most `ms`; fails naming `what` otherwise. */
async function converged<T>(what: string, fn: () => Promise<T>, ok: (v: T) => boolean, ms = 20_000): Promise<T> {
  const last = await eventually(fn, ok, ms, 100);
  if (!ok(last)) assert.fail(`${what}: still ${JSON.stringify(last).slice(0, 400)}`);
  return last;
}

describe('controllers on two replicas over one etcd', { skip: !haveEtcd }, () => {
  let etcd: EtcdCluster;
  let a: TestServer;
  let b: TestServer;
  let seeded: { dirs: string[]; cleanup(): void };

  before(async () => {
    etcd = await startEtcdCluster();
    seeded = await seededDataDirs(2);
    const args = ['--storage-backend', 'etcd', '--etcd-servers', etcd.endpoints, '--etcd-prefix', `/controllers-${process.pid}`];
    [a, b] = await Promise.all(seeded.dirs.map((dataDir) => startServer({ dataDir, removeOnStop: true, args })));
  });

  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await etcd?.stop();
    seeded?.cleanup();
  });

  test('one default ServiceCIDR, Ready once, then no writes from either replica', async () => {
    const list = await converged('the default ServiceCIDR', () => b.request('GET', SC), (r) => r.json?.items?.some((o: any) => o.metadata.name === 'kubernetes'));
    assert.deepEqual(list.json.items.filter((o: any) => o.metadata.name === 'kubernetes').length, 1);

    assert.equal((await a.request('POST', SC, { body: { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'shared' }, spec: { cidrs: ['10.80.0.0/24'] } } })).status, 201);
    const ready = (o: any) => o.metadata?.finalizers?.includes('networking.platform.io/service-cidr-finalizer') && o.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True');
    const settled = await converged('shared ready through B', () => b.request('GET', `${SC}/shared`), (r) => r.status === 200 && ready(r.json));
    const kubernetes = (await a.request('GET', `${SC}/kubernetes`)).json;
    assert.ok(ready(kubernetes), JSON.stringify(kubernetes.status));
    // Both replicas have had time to react to each other's writes; nothing may move any more.
    await sleep(3000);
    const later = await a.request('GET', `${SC}/shared`);
    assert.equal(later.json.metadata.resourceVersion, settled.json.metadata.resourceVersion, 'no replica rewrote a settled object');
    assert.deepEqual(later.json.status.conditions, settled.json.status.conditions);
    assert.equal((await b.request('GET', `${SC}/kubernetes`)).json.metadata.resourceVersion, kubernetes.metadata.resourceVersion);
  });

  test('a delete through either replica goes through the finalizer and the object goes', async () => {
    assert.equal((await b.request('POST', SC, { body: { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'doomed' }, spec: { cidrs: ['10.81.0.0/24'] } } })).status, 201);
    await converged('doomed has its finalizer', () => a.request('GET', `${SC}/doomed`), (r) => r.json?.metadata?.finalizers?.length === 1);
    const deleting = await a.request('DELETE', `${SC}/doomed`);
    assert.equal(deleting.status, 200, deleting.text);
    assert.ok(deleting.json.metadata.deletionTimestamp, 'held by the finalizer at first');
    await converged('doomed gone through B', () => b.request('GET', `${SC}/doomed`), (r) => r.status === 404, 30_000);
  });
});
