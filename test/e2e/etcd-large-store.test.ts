// A replica starts on a store larger than one gRPC message: the watch cache lists in pages at
// one revision, each page sized by the values and halved when the connection refuses it. In CI
// the store is 12 values of 1 MB against a receive cap lowered to 4 MiB (the same code path
// as 72 MB against etcd3's default cap); ETCD_LARGE_STORE=1 runs the issue's 72 bundles of
// 1 MB with the default cap.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { EtcdStore } from '../../src/storage/etcd/etcd-store.js';
import { WatchCache } from '../../src/storage/cache/watch-cache.js';
import { requireEtcd, startEtcdCluster, type EtcdCluster } from '../support/etcd-process.js';

const haveEtcd = requireEtcd('the large-store test lists a real etcd') !== undefined;
const large = process.env.ETCD_LARGE_STORE === '1';
const COUNT = large ? 72 : 12;
const VALUE_BYTES = 1024 * 1024;
let cluster: EtcdCluster | undefined;
after(async () => cluster?.stop());

test(`a fresh replica's cache lists ${COUNT} values of 1 MB and becomes ready`, { skip: !haveEtcd, timeout: 300_000 }, async () => {
  cluster = await startEtcdCluster();
  const servers = [cluster.members[0]!.clientUrl];
  const prefix = `/large-${process.pid}`;
  const writer = new EtcdStore({ servers, root: '', prefix });
  for (let i = 0; i < COUNT; i++) {
    const value = new Uint8Array(VALUE_BYTES).fill(97 + (i % 26));
    await writer.optimisticPut(`/ctb/${String(i).padStart(3, '0')}`, value, 0);
  }
  await writer.close();
  const store = new EtcdStore({ servers, root: '', prefix, ...(large ? {} : { maxReceiveBytes: 4 * 1024 * 1024 }) });
  const cache = await WatchCache.start({ store, prefix: '/ctb/', startWaitMs: 120_000 });
  try {
    assert.equal(cache.health().ready, true, `ready (${cache.health().lastError ?? ''})`);
    const listed = await cache.list('/ctb/', { anyRecent: true });
    assert.equal(listed.kvs.length, COUNT);
    // Several pages (one 12 MB range would not pass the lowered cap; 72 MB not etcd3's default).
    assert.ok(store.stats().ranges > 2, `listed in pages (${store.stats().ranges} ranges)`);
    assert.ok(listed.kvs.every((kv, i) => kv.value.byteLength === VALUE_BYTES && kv.value[0] === 97 + (i % 26)));
  } finally {
    await cache.close();
    await store.close();
  }
});
