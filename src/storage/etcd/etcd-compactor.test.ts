// Coordinated compaction between replicas: two stores (two replicas) on one real etcd take
// turns on the compaction key; one compacts per interval, the other observes, and reads below
// the compaction get etcd's own Compacted.

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EtcdStore } from './etcd-store.js';
import { compactionTurn } from './etcd-compactor.js';
import { isStorageError } from '../revisioned-store.js';
import { requireEtcd, startEtcdCluster, type EtcdCluster } from '../../../test/support/etcd-process.js';

const haveEtcd = requireEtcd('coordinated compaction is tested on a real etcd') !== undefined;
let cluster: EtcdCluster | undefined;
after(async () => cluster?.stop());

describe('etcd compaction coordinated between replicas', { skip: !haveEtcd }, () => {
  test('one replica compacts per interval, the other observes; old reads are Compacted on both', async () => {
    cluster = await startEtcdCluster();
    const servers = cluster.endpoints.split(',');
    const a = new EtcdStore({ servers, root: '', prefix: '/a' });
    const b = new EtcdStore({ servers, root: '', prefix: '/a' });
    try {
      const enc = (s: string) => new TextEncoder().encode(s);
      const first = await a.optimisticPut('/k', enc('1'), 0);
      // Interval 1: both take their first turn; one wins (nothing to compact yet), one loses.
      let ta = await compactionTurn(a, 0, 0);
      let tb = await compactionTurn(b, 0, 0);
      assert.equal(ta.compactedTo, undefined);
      assert.equal(tb.compactedTo, undefined);
      assert.equal(tb.version, ta.version, 'the loser learns the key version the winner wrote');
      const second = await b.optimisticPut('/k', enc('2'), first.revision);
      // Interval 2: whoever goes first compacts to the revision it noted an interval ago.
      const ta2 = await compactionTurn(a, ta.version, ta.revision);
      const tb2 = await compactionTurn(b, tb.version, tb.revision);
      assert.equal(ta2.compactedTo, ta.revision);
      assert.equal(tb2.compactedTo, undefined, 'only one replica compacts per interval');
      assert.equal(await a.compactedRevision(), ta.revision);
      assert.equal(await b.compactedRevision(), ta.revision, 'the other replica observed the compaction');
      for (const s of [a, b]) await assert.rejects(s.get('/k', { revision: first.revision }), (e: unknown) => isStorageError(e, 'Compacted'));
      assert.equal(new TextDecoder().decode((await b.get('/k')).kv!.value), '2');
      assert.ok(second.revision > first.revision);
      ta = ta2;
      tb = tb2;
      // A replica that starts late (version 0) loses its first turn and learns the state.
      const late = new EtcdStore({ servers, root: '', prefix: '/a' });
      try {
        const tl = await compactionTurn(late, 0, 0);
        assert.equal(tl.version, ta.version);
        assert.equal(await late.compactedRevision(), ta2.compactedTo);
      } finally {
        await late.close();
      }
    } finally {
      await a.close();
      await b.close();
    }
  });
});
