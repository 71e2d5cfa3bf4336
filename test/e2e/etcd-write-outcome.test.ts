// What a client hears when etcd's answer to a write is lost, through a real etcd behind loopback
// proxies that cut the connection after forwarding the write: a create that committed is
// answered as created (never 409 from a blind retry); an update whose outcome cannot be read
// back is answered with a Timeout that says it may have been applied. And writes never wait for
// watches being set up.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { EtcdStore } from '../../src/storage/etcd/etcd-store.js';
import { isStorageError } from '../../src/storage/revisioned-store.js';
import { requireEtcd, startEtcdCluster, type EtcdCluster } from '../support/etcd-process.js';
import { startTcpProxy, type TcpProxy, type Trap } from '../support/tcp-proxy.js';

const haveEtcd = requireEtcd('the write-outcome tests run on a real etcd') !== undefined;
let cluster: EtcdCluster | undefined;
const proxies: TcpProxy[] = [];
after(async () => {
  for (const p of proxies) await p.close();
  await cluster?.stop();
});

/** A store whose two endpoints are proxies to one member, sharing their traps. */
async function proxiedStore(tag: string): Promise<{ store: EtcdStore; prefix: string; trap: (marker: string, beforeCut?: () => Promise<void>) => Promise<void> }> {
  cluster ??= await startEtcdCluster();
  const port = Number(new URL(cluster.members[0]!.clientUrl).port);
  const traps: Trap[] = [];
  const a = await startTcpProxy(port, traps);
  const b = await startTcpProxy(port, traps);
  proxies.push(a, b);
  const prefix = `/outcome-${process.pid}-${tag}`;
  const store = new EtcdStore({ servers: [a.url, b.url], root: '', prefix, requestTimeoutMs: 5000 });
  return { store, prefix, trap: (marker, beforeCut) => a.loseAnswerTo(Buffer.from(marker), undefined, beforeCut) };
}

test('a create whose answer was lost after etcd applied it is answered as created, not AlreadyExists', { skip: !haveEtcd, timeout: 60_000 }, async () => {
  const { store, trap } = await proxiedStore('create');
  try {
    await store.currentRevision(); // connections up
    const value = new TextEncoder().encode(`{"uid":"create-marker-${process.pid}"}`);
    const sprung = trap(`create-marker-${process.pid}`);
    const res = await store.optimisticPut('/x/a', value, 0);
    await sprung;
    const stored = await store.get('/x/a');
    assert.equal(res.revision, stored.kv!.modRevision);
    assert.equal(res.kv.createRevision, stored.kv!.createRevision);
  } finally {
    await store.close();
  }
});

test('an update whose answer was lost and whose key moved on since is a Timeout that says it may have been applied', { skip: !haveEtcd, timeout: 60_000 }, async () => {
  const { store, prefix, trap } = await proxiedStore('update');
  // Another writer, straight to etcd (not through the proxies the store's calls may be held in).
  const other = new EtcdStore({ servers: [cluster!.members[0]!.clientUrl], root: '', prefix });
  try {
    const created = await store.optimisticPut('/x/b', new TextEncoder().encode('v1'), 0);
    // The lost update reaches etcd, and another writer changes the key while its answer is held
    // back, so before the store can read it back: its outcome cannot be read back.
    const marker = `update-marker-${process.pid}`;
    const sprung = trap(marker, async () => {
      const cur = await other.get('/x/b');
      await other.optimisticPut('/x/b', new TextEncoder().encode('v3'), cur.kv!.modRevision);
    });
    const err = await store.optimisticPut('/x/b', new TextEncoder().encode(marker), created.revision).then(
      () => undefined,
      (e: unknown) => e,
    );
    await sprung;
    assert.ok(isStorageError(err, 'Timeout'), `a Timeout, not ${String(err)}`);
    assert.match(err.message, /may have been applied/);
  } finally {
    await store.close();
    await other.close();
  }
});

test('writes never wait for a watch that etcd has not created yet', { skip: !haveEtcd, timeout: 60_000 }, async () => {
  cluster ??= await startEtcdCluster();
  const store = new EtcdStore({ servers: [cluster.members[0]!.clientUrl], root: '', prefix: `/nowait-${process.pid}` });
  const ac = new AbortController();
  try {
    await store.currentRevision();
    // A watch stream that etcd never answers (a member slow to create watchers, many watches
    // re-established at once after a re-list).
    const watchClient = store.client.watchClient as unknown as { watch: () => Promise<unknown> };
    const silent = { write() {}, on() {}, pause() {}, resume() {}, end() {}, cancel() {} };
    const real = watchClient.watch.bind(watchClient);
    watchClient.watch = async () => silent;
    for (let i = 0; i < 5; i++) store.watch(`/w${i}/`, { afterRevision: 0, signal: ac.signal });
    watchClient.watch = real;
    const started = Date.now();
    for (let i = 0; i < 5; i++) await store.optimisticPut(`/k/${i}`, new Uint8Array([i]), 0);
    // The old rule held every write up to 2 s for pending watch creations: 10 s for these five.
    assert.ok(Date.now() - started < 8000, `five writes took ${Date.now() - started} ms`);
  } finally {
    ac.abort();
    await store.close();
  }
});
