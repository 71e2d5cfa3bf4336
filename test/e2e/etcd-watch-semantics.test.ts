// The etcd watch's semantics against a real etcd, for the faults an operator meets: events that
// share one revision (a multi-key transaction, `etcdctl del --prefix`) are delivered once each,
// in order, across a broken stream too; a quiet cache told the current revision by a progress
// notification survives a compaction and an etcd restart without a re-list; an etcd restored
// from an older snapshot makes the cache re-list and end its client watches with 410.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EtcdStore } from '../../src/storage/etcd/etcd-store.js';
import { WatchCache } from '../../src/storage/cache/watch-cache.js';
import { isStorageError, type StoreWatch, type WatchEvent } from '../../src/storage/revisioned-store.js';
import { etcdctl, requireEtcd, startEtcdCluster, type EtcdCluster } from '../support/etcd-process.js';
import { requireTool } from './require-tool.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const haveTools = requireEtcd('the etcd watch semantics run on a real etcd') !== undefined && requireTool('etcdctl', 'multi-key deletes, compaction and snapshots come from etcdctl') !== undefined;
let cluster: EtcdCluster | undefined;
const dirs: string[] = [];
after(async () => {
  await cluster?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

let n = 0;
const setup = async () => {
  cluster ??= await startEtcdCluster();
  const etcdPrefix = `/sem-${process.pid}-${++n}`;
  const store = new EtcdStore({ servers: [cluster.members[0]!.clientUrl], root: '', prefix: etcdPrefix });
  return { c: cluster, store, etcdPrefix };
};

/** Collects a watch's events (progress left out) and how it ended. */
function collect(w: StoreWatch): { events: WatchEvent[]; ended: Promise<unknown> } {
  const events: WatchEvent[] = [];
  const ended = new Promise<unknown>((resolve) =>
    w.start({
      next: (e) => {
        if (e.type !== 'progress') events.push(e);
        return true;
      },
      end: (err) => resolve(err ?? 'clean'),
    }),
  );
  return { events, ended };
}

async function until(what: string, cond: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const keyOf = (e: WatchEvent): string => (e.type === 'put' ? `put ${e.kv.key}` : e.type === 'delete' ? `delete ${e.key}` : 'progress');

test('events sharing one revision are all delivered, in order, once, across an etcd restart; the cache converges', { skip: !haveTools, timeout: 120_000 }, async () => {
  const { c, store, etcdPrefix } = await setup();
  const cache = await WatchCache.start({ store, prefix: '/mk/' });
  const ac = new AbortController();
  try {
    let rev = 0;
    for (const k of ['a', 'b', 'c', 'd', 'e']) rev = (await store.optimisticPut(`/mk/${k}`, enc(k), 0)).revision;
    await until('the cache to hold the five keys', async () => (await cache.list('/mk/', { anyRecent: true })).kvs.length === 5);
    const raw = collect(store.watch('/mk/', { afterRevision: rev, signal: ac.signal }));
    const viaCache = collect(cache.watch('/mk/', { afterRevision: rev, signal: ac.signal }));

    await etcdctl(c.endpoints, ['del', '--prefix', `${etcdPrefix}/mk/`]);
    const put = (k: string) => ({ request_put: { key: Buffer.from(`${etcdPrefix}/mk/${k}`), value: Buffer.from(k) } });
    await store.client.kv.txn({ compare: [], success: [put('x'), put('y'), put('z')], failure: [] });
    const want1 = ['a', 'b', 'c', 'd', 'e'].map((k) => `delete /mk/${k}`).concat(['x', 'y', 'z'].map((k) => `put /mk/${k}`));
    await until('8 events on both watches', () => raw.events.length >= 8 && viaCache.events.length >= 8);

    // The stream breaks after a multi-key revision: the resumed stream must neither repeat it nor drop the next one.
    await c.members[0]!.stop();
    await c.members[0]!.start();
    await store.client.kv.txn({ compare: [], success: [put('p'), put('q')], failure: [] });
    const want = [...want1, 'put /mk/p', 'put /mk/q'];
    await until('10 events on both watches', () => raw.events.length >= 10 && viaCache.events.length >= 10);
    await new Promise((r) => setTimeout(r, 500)); // room for a duplicate to show
    assert.deepEqual(raw.events.map(keyOf), want);
    assert.deepEqual(viaCache.events.map(keyOf), want);
    // Each multi-key transaction is one revision.
    assert.equal(new Set(raw.events.slice(0, 5).map((e) => e.revision)).size, 1);

    const keys = async (anyRecent: boolean) => (await cache.list('/mk/', { anyRecent })).kvs.map((kv) => kv.key);
    assert.deepEqual(await keys(true), ['/mk/p', '/mk/q', '/mk/x', '/mk/y', '/mk/z']);
    assert.deepEqual(await keys(false), ['/mk/p', '/mk/q', '/mk/x', '/mk/y', '/mk/z']);
    assert.equal(cache.health().generation, 1, 'no re-list was needed');
  } finally {
    ac.abort();
    await cache.close();
    await store.close();
  }
});

test('a quiet cache told the current revision by progress survives a compaction and an etcd restart', { skip: !haveTools, timeout: 120_000 }, async () => {
  const { c, store } = await setup();
  await store.optimisticPut('/quiet/a', enc('a'), 0);
  const cache = await WatchCache.start({ store, prefix: '/quiet/' });
  const ac = new AbortController();
  try {
    const client = collect(cache.watch('/quiet/', { afterRevision: 0, signal: ac.signal }));
    // Other resources move etcd's revision; the quiet cache hears of it only by progress.
    for (let i = 0; i < 5; i++) await store.optimisticPut(`/busy/${i}`, enc('x'), 0);
    const current = await store.currentRevision();
    // A consistent list waits until the cache is at etcd's revision (a progress request).
    await cache.list('/quiet/');
    assert.ok(cache.health().revision >= current, `cache at ${cache.health().revision}, etcd at ${current}`);
    // etcd before 3.4.25 (Debian's 3.4.23) may send progress ahead of queued events: there the
    // resume point moves once the stream carried on for 300 ms after the notification.
    await new Promise((r) => setTimeout(r, 2000));
    await etcdctl(c.endpoints, ['compact', String(current)]);
    await c.members[0]!.stop();
    await c.members[0]!.start();
    const written = await store.optimisticPut('/quiet/b', enc('b'), 0);
    await until('the write after the restart to reach the client watch', () => client.events.length >= 1);
    assert.deepEqual(client.events.map(keyOf), ['put /quiet/b']);
    assert.equal(client.events[0]!.revision, written.revision);
    assert.equal(cache.health().generation, 1, 'the cache resumed without a re-list');
    assert.equal(await Promise.race([client.ended, new Promise((r) => setTimeout(() => r('open'), 200))]), 'open');
  } finally {
    ac.abort();
    await cache.close();
    await store.close();
  }
});

test('an etcd restored from an older snapshot: the cache re-lists and ends its client watches with 410', { skip: !haveTools, timeout: 120_000 }, async () => {
  const { c, store } = await setup();
  const dir = mkdtempSync(join(tmpdir(), 'etcd-snap-'));
  dirs.push(dir);
  for (const k of ['a', 'b']) await store.optimisticPut(`/rw/${k}`, enc(k), 0);
  const snapshot = join(dir, 'snap.db');
  await etcdctl(c.endpoints, ['snapshot', 'save', snapshot]);
  const snapshotRevision = await store.currentRevision();
  const cache = await WatchCache.start({ store, prefix: '/rw/' });
  const ac = new AbortController();
  try {
    for (const k of ['c', 'd', 'e']) await store.optimisticPut(`/rw/${k}`, enc(k), 0);
    await until('the cache to hold five keys', async () => (await cache.list('/rw/', { anyRecent: true })).kvs.length === 5);
    const client = collect(cache.watch('/rw/', { afterRevision: 0, signal: ac.signal }));

    await c.members[0]!.restore(snapshot);
    await c.members[0]!.start();
    const end = await Promise.race([client.ended, new Promise((r) => setTimeout(() => r('still open'), 30_000))]);
    assert.ok(isStorageError(end, 'Compacted'), `the client watch ended with a 410 (Compacted), not ${String(end)}`);
    await until('the cache to re-list the restored state', async () => cache.health().ready && cache.health().generation >= 2);
    const listed = await cache.list('/rw/', { anyRecent: true });
    assert.deepEqual(listed.kvs.map((kv) => kv.key), ['/rw/a', '/rw/b']);
    assert.ok(cache.health().revision < snapshotRevision + 3, `the cache is not from the future (${cache.health().revision})`);
    // A client that was not watching at the restore and comes back with its old resourceVersion: 410, not a silent wait.
    assert.throws(() => cache.watch('/rw/', { afterRevision: snapshotRevision + 3, signal: ac.signal }), (e: unknown) => isStorageError(e, 'Compacted'));
    // And it follows the restored etcd from there.
    await store.optimisticPut('/rw/f', enc('f'), 0);
    await until('the write to reach the cache', async () => (await cache.list('/rw/', { anyRecent: true })).kvs.length === 3);
  } finally {
    ac.abort();
    await cache.close();
    await store.close();
  }
});
