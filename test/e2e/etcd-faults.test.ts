// Faults on a 3-member etcd under one replica: one member down changes nothing a client sees;
// quorum lost makes writes fail within the request timeout with a clean 504 Status carrying
// etcd's reason and Retry-After, /readyz fails its etcd check, while resourceVersion=0 lists
// keep being served from the cache; quorum back, the replica recovers by itself (ready again)
// and nothing acknowledged is lost.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './harness.js';
import { eventually } from '../support/polling.js';
import { requireEtcd, startEtcdCluster, type EtcdCluster } from '../support/etcd-process.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';
const haveEtcd = requireEtcd('the fault tests run the server on a real 3-member etcd') !== undefined;
const scidr = (name: string, i: number) => ({ apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name }, spec: { cidrs: [`10.90.${i}.0/24`] } });

describe('a replica on a 3-member etcd under faults', { skip: !haveEtcd }, () => {
  let etcd: EtcdCluster;
  let server: TestServer;
  /** Every object whose create a client saw succeed. */
  const acknowledged = new Set<string>();
  let n = 0;
  const create = async () => {
    const name = `fault-${++n}`;
    const r = await server.request('POST', SC, { body: scidr(name, n) });
    if (r.status === 201) acknowledged.add(name);
    return r;
  };

  before(async () => {
    etcd = await startEtcdCluster({ size: 3 });
    server = await startServer({ args: ['--storage-backend', 'etcd', '--etcd-servers', etcd.endpoints] });
  });
  after(async () => {
    await server?.stop();
    await etcd?.stop();
  });

  test('one member down: creates, gets and lists go on', async () => {
    assert.equal((await create()).status, 201);
    await etcd.members[2]!.stop();
    for (let i = 0; i < 5; i++) {
      const r = await create();
      assert.equal(r.status, 201, r.text);
      assert.equal((await server.request('GET', `${SC}/${r.json.metadata.name}`)).status, 200);
    }
    const list = await server.request('GET', SC);
    assert.equal(list.status, 200);
    assert.equal((await eventually(() => server.request('GET', '/readyz'), (r) => r.status === 200)).status, 200, 'ready with two of three members');
    for (const name of acknowledged) assert.ok(list.json.items.some((i: any) => i.metadata.name === name), name);
  });

  test('quorum lost: a write fails with 504 Timeout and Retry-After; resourceVersion=0 lists are still served', async () => {
    await etcd.members[1]!.stop();
    const r = await create();
    assert.equal(r.status, 504, r.text);
    assert.equal(r.json.kind, 'Status');
    assert.equal(r.json.reason, 'Timeout');
    assert.match(r.json.message, /etcd/);
    assert.ok(Number(r.headers['retry-after']) >= 1);
    const ready = await eventually(() => server.request('GET', '/readyz?verbose'), (x) => x.status === 500);
    assert.equal(ready.status, 500);
    assert.match(ready.text, /\[-\]etcd failed: reason withheld\n/);
    const reason = await server.request('GET', '/readyz/etcd');
    assert.equal(reason.status, 500);
    assert.match(reason.text, /^internal server error: etcd: /, 'the check names etcd\'s reason on its own path');
    const cached = await server.request('GET', `${SC}?resourceVersion=0`);
    assert.equal(cached.status, 200, cached.text);
    for (const name of acknowledged) assert.ok(cached.json.items.some((i: any) => i.metadata.name === name), name);
  });

  test('quorum back: the replica recovers by itself and every acknowledged write is there', async () => {
    await Promise.all([etcd.members[1]!.start(), etcd.members[2]!.start()]);
    let ok = false;
    for (let i = 0; i < 60 && !ok; i++) {
      ok = (await create()).status === 201;
      if (!ok) await new Promise((r) => setTimeout(r, 500));
    }
    assert.ok(ok, 'writes succeed again');
    let list;
    for (let i = 0; i < 60; i++) {
      list = await server.request('GET', SC);
      if (list.status === 200) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    assert.equal(list!.status, 200, list!.text);
    assert.equal((await eventually(() => server.request('GET', '/readyz'), (x) => x.status === 200)).status, 200, 'ready again');
    const names = new Set(list!.json.items.map((i: any) => i.metadata.name));
    for (const name of acknowledged) assert.ok(names.has(name), `acknowledged ${name} is kept`);
  });
});

