// A server started before its etcd exists: it starts anyway (the ready line comes after the
// controllers' bounded wait), reports itself not ready naming etcd, the informers, every watch
// cache and the controllers' post-start hook, and answers writes with a clean Status rather than
// hanging. Once etcd comes up on the configured port the server catches up by itself: ready,
// writes and watches work, and the controllers create the default `kubernetes` ServiceCIDR.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './harness.js';
import { bounded, eventually } from '../support/polling.js';
import { freePort, requireEtcd, startEtcdCluster, type EtcdCluster } from '../support/etcd-process.js';
import { openWatch } from '../support/watch-stream.js';
import { allResources } from '../../src/resources/all.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';
const haveEtcd = requireEtcd('the unreachable-at-start test runs the server against a real etcd started late') !== undefined;
const scidr = (name: string, cidr: string) => ({ apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name }, spec: { cidrs: [cidr] } });

describe('a server started while etcd is unreachable', { skip: !haveEtcd }, () => {
  let port: number;
  let server: TestServer;
  let etcd: EtcdCluster | undefined;

  before(async () => {
    port = await freePort();
    server = await startServer({ args: ['--storage-backend', 'etcd', '--etcd-servers', `http://127.0.0.1:${port}`, '--request-timeout', '5s'] });
  });
  after(async () => {
    await server?.stop();
    await etcd?.stop();
  });

  test('starts, and is not ready: etcd, informer-sync, every watch cache and the controllers fail', async () => {
    // The etcd probe's first answer may take its deadline; poll until it has spoken.
    const r = await eventually(() => server.request('GET', '/readyz?verbose'), (x) => /\[-\]etcd failed/.test(x.text), 10_000);
    assert.equal(r.status, 500, r.text);
    assert.match(r.text, /\[-\]etcd failed: reason withheld\n/);
    assert.match(r.text, /\[-\]informer-sync failed/);
    for (const d of allResources) assert.match(r.text, new RegExp(`\\[-\\]watch-cache/${d.plural} failed`), d.plural);
    assert.match(r.text, /\[-\]poststarthook\/start-service-cidr-controllers failed/);
    assert.match(r.text, /readyz check failed/);
    // The single check says why (verbose output withholds reasons, as kube's does).
    const one = await server.request('GET', '/readyz/etcd');
    assert.equal(one.status, 500, one.text);
    assert.match(one.text, /ECONNREFUSED|UNAVAILABLE|unavailable/i);
  });

  test('a write answers a clean Status within the request timeout, not a hang', async () => {
    const r = await bounded(server.request('POST', SC, { body: scidr('early', '10.91.0.0/24') }), 20_000, 'create while etcd is unreachable');
    assert.ok(r.status >= 500 && r.status < 600, `${r.status} ${r.text}`);
    assert.equal(r.json?.kind, 'Status', r.text);
    assert.equal(r.json.status, 'Failure');
    assert.equal(r.json.code, r.status);
    assert.ok(r.json.message, 'the Status says why');
    console.log(`# a create with etcd unreachable: ${r.status} ${r.json.reason}: ${r.json.message}`);
  });

  test('etcd comes up on the configured port: ready, creates and watches work, the default ServiceCIDR appears', async () => {
    etcd = await startEtcdCluster({ clientPorts: [port] });
    const ready = await eventually(() => server.request('GET', '/readyz?verbose'), (x) => x.status === 200, 40_000);
    assert.equal(ready.status, 200, ready.text);

    const created = await bounded(server.request('POST', SC, { body: scidr('late', '10.91.1.0/24') }), 20_000, 'create after etcd came up');
    assert.equal(created.status, 201, created.text);

    // The controllers caught up: the default ServiceCIDR exists and their finalizer is on it.
    const def = await eventually(() => server.request('GET', `${SC}/kubernetes`), (x) => x.status === 200, 20_000);
    assert.equal(def.status, 200, def.text);
    assert.ok(def.json.spec.cidrs.length > 0, def.text);

    // A watch from the list's resourceVersion sees the next create.
    const list = await server.request('GET', SC);
    assert.equal(list.status, 200, list.text);
    const names = list.json.items.map((i: any) => i.metadata.name);
    assert.ok(names.includes('late') && names.includes('kubernetes'), names.join(','));
    const watch = openWatch(server, `${SC}?watch=true&resourceVersion=${list.json.metadata.resourceVersion}`);
    try {
      assert.equal((await bounded(server.request('POST', SC, { body: scidr('watched', '10.91.2.0/24') }), 20_000, 'create under a watch')).status, 201);
      const ev = await watch.waitFor((e) => e.type === 'ADDED' && e.object?.metadata?.name === 'watched', 20_000);
      assert.ok(ev, `the watch saw the create (events: ${JSON.stringify(watch.events.map((e) => [e.type, e.object?.metadata?.name]))}, ended: ${watch.isEnded()})`);
      assert.equal(watch.status(), 200);
    } finally {
      watch.close();
    }
  });
});
