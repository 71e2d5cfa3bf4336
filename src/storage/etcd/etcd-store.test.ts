// etcd backend: the shared conformance suite against one real etcd process for the whole file
// (each test on its own fresh key prefix), plus what only a networked store has: a watch that
// survives its etcd restarting, and reads below etcd's compaction answered by etcd itself.

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeRevisionedStore } from '../../../test/support/storage/storage-conformance.js';
import { EtcdStore } from './etcd-store.js';
import { earlyProgressAnswers } from './etcd-version.js';
import { isStorageError, type WatchEvent } from '../revisioned-store.js';
import { requireEtcd, startEtcdCluster, type EtcdCluster } from '../../../test/support/etcd-process.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const dec = (b: Uint8Array | undefined): string | undefined => (b ? new TextDecoder().decode(b) : undefined);

const haveEtcd = requireEtcd('the etcd storage conformance suite runs against a real etcd') !== undefined;
let cluster: Promise<EtcdCluster> | undefined;
const etcd = (): Promise<EtcdCluster> => (cluster ??= startEtcdCluster());
after(async () => {
  if (cluster) await (await cluster).stop();
});

let suite = 0;
const freshStore = async (): Promise<EtcdStore> => new EtcdStore({ servers: (await etcd()).endpoints.split(','), root: '', prefix: `/conformance-${process.pid}-${++suite}` });

if (haveEtcd) {
  describeRevisionedStore('etcd', async () => {
    const store = await freshStore();
    return { store, cleanup: () => store.close() };
  });

  describe('etcd store on a real etcd', () => {
    test('the store learns the etcd version that gates the early-progress workaround', async () => {
      const store = await freshStore();
      const ac = new AbortController();
      try {
        store.watch('/v/', { afterRevision: 0, signal: ac.signal });
        for (let i = 0; i < 100 && store.etcdVersion() === undefined; i++) await new Promise((r) => setTimeout(r, 50));
        const v = store.etcdVersion();
        assert.match(v ?? '', /^3\.\d+\.\d+/);
        // etcd 3.4.23 (Debian) answers progress early: the workaround is in force there.
        if (/^3\.4\.(\d+)$/.test(v!) && Number(v!.split('.')[2]) < 25) assert.equal(earlyProgressAnswers(v), true);
      } finally {
        ac.abort();
        await store.close();
      }
    });

    test('a prefix marked unfinished serves nothing, reads or writes, until the mark goes; refuseUnfinished names the command', async () => {
      const c = await etcd();
      const prefix = `/unfinished-${process.pid}`;
      const mark = { command: 'platform-apiserver migrate --data-dir /d --to-etcd-servers http://e:2379 --etcd-prefix ' + prefix, pid: 7, host: 'h', startedAt: 't' };
      const store = new EtcdStore({ servers: [c.members[0]!.clientUrl], prefix });
      try {
        await store.client.put(`platform-apiserver/unfinished${prefix}`).value(JSON.stringify(mark));
        await assert.rejects(store.refuseUnfinished(), new RegExp(`^UnfinishedPrefixError: etcd prefix ${prefix}/ holds an unfinished store: \`platform-apiserver migrate .*\` \\(pid 7 on h, started t\\) did not finish`));
        for (const call of [() => store.list('/registry/g.io/things/'), () => store.get('/registry/g.io/things/a'), () => store.count('/registry/g.io/'), () => store.optimisticPut('/registry/g.io/things/a', enc('x'), 0)]) {
          await assert.rejects(call(), (err: unknown) => isStorageError(err, 'Unavailable') && /holds an unfinished store/.test((err as Error).message));
        }
        assert.equal(await store.client.get(`${prefix}/g.io/things/a`).string(), null, 'nothing was written');
        await store.client.delete().key(`platform-apiserver/unfinished${prefix}`);
        await store.refuseUnfinished();
        await store.optimisticPut('/registry/g.io/things/a', enc('x'), 0);
        assert.equal((await store.list('/registry/g.io/things/')).kvs.length, 1);
      } finally {
        await store.close();
      }
    });

    test("size() is etcd's database size and the part in use, from a member's Status", async () => {
      const store = await freshStore();
      try {
        await store.optimisticPut('/g.io/things/a', enc('x'.repeat(10_000)), 0);
        const { sizeBytes, inUseBytes } = await store.size();
        assert.ok(sizeBytes > 10_000 && inUseBytes > 0 && inUseBytes <= sizeBytes, `${inUseBytes} of ${sizeBytes}`);
      } finally {
        await store.close();
      }
    });

    test('keys live under the prefix in kube\'s layout', async () => {
      const c = await etcd();
      const store = new EtcdStore({ servers: [c.members[0]!.clientUrl], prefix: `/layout-${process.pid}` });
      try {
        await store.optimisticPut('/registry/g.io/things/a', enc('x'), 0);
        const raw = await store.client.get(`/layout-${process.pid}/g.io/things/a`).string();
        assert.equal(raw, 'x');
        const listed = await store.list('/registry/g.io/things/');
        assert.deepEqual(listed.kvs.map((kv) => kv.key), ['/registry/g.io/things/a']);
      } finally {
        await store.close();
      }
    });

    test('a watch continues across an etcd restart without gap or duplicate', async () => {
      const c = await etcd();
      const store = await freshStore();
      const ac = new AbortController();
      try {
        const first = await store.optimisticPut('/w/0', enc('0'), 0);
        const w = store.watch('/w/', { afterRevision: first.revision, signal: ac.signal });
        const seen: WatchEvent[] = [];
        const done = new Promise<void>((resolve, reject) => {
          w.start({
            next: (e) => {
              seen.push(e);
              if (seen.filter((x) => x.type !== 'progress').length === 4) resolve();
              return true;
            },
            end: (err) => (err ? reject(err) : resolve()),
          });
        });
        const written = [(await store.optimisticPut('/w/1', enc('1'), 0)).revision];
        await c.members[0]!.stop();
        await c.members[0]!.start();
        for (const k of ['2', '3', '4']) written.push(await retry(() => store.optimisticPut(`/w/${k}`, enc(k), 0)).then((r) => r.revision));
        await done;
        assert.deepEqual(seen.filter((e) => e.type !== 'progress').map((e) => e.revision), written);
      } finally {
        ac.abort();
        await store.close();
      }
    });

    test('a progress answer never overtakes the history a new watch is still replaying (etcd 3.4)', async () => {
      const store = await freshStore();
      const ac = new AbortController();
      try {
        const first = await store.optimisticPut('/p/first', enc('f'), 0);
        const writes = await Promise.all(Array.from({ length: 300 }, (_, i) => store.optimisticPut(`/p/${String(i).padStart(3, '0')}`, enc(String(i)), 0)));
        const last = Math.max(...writes.map((w) => w.revision));
        const w = store.watch('/p/', { afterRevision: first.revision, signal: ac.signal });
        w.requestProgress();
        const events: WatchEvent[] = [];
        await new Promise<void>((resolve, reject) => {
          w.start({
            next: (e) => {
              events.push(e);
              if (e.type === 'progress' && e.revision >= last) resolve();
              return true;
            },
            end: (err) => (err ? reject(err) : resolve()),
          });
        });
        const progressAt = events.findIndex((e) => e.type === 'progress');
        const delivered = events.slice(0, progressAt).filter((e) => e.revision <= events[progressAt]!.revision);
        assert.equal(delivered.length, 300, 'every event up to the progress revision came before it');
      } finally {
        ac.abort();
        await store.close();
      }
    });

    test('a read below the compaction is Compacted with the compacted revision; the current value stays', async () => {
      const store = await freshStore();
      try {
        const a = await store.optimisticPut('/k/a', enc('1'), 0);
        const b = await store.optimisticPut('/k/a', enc('2'), a.revision);
        await store.compact(b.revision);
        // A second replica that did not compact itself still gets etcd's 410.
        const other = await freshStore();
        try {
          await assert.rejects(other.list('/k/', { revision: a.revision }), (e: unknown) => isStorageError(e, 'Compacted'));
        } finally {
          await other.close();
        }
        assert.equal(dec((await store.get('/k/a')).kv?.value), '2');
      } finally {
        await store.close();
      }
    });
  });
}

/** Retries a write while etcd is still electing a leader after its restart (bounded). */
async function retry<T>(fn: () => Promise<T>): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (i >= 50 || !(isStorageError(err, 'Unavailable') || isStorageError(err, 'Timeout'))) throw err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}
