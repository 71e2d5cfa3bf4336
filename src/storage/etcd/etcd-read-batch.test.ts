// Consistent gets of one event-loop turn share one etcd call: the batching on its own (which
// keys go in which call, answers and failures back to the right get), then the store on a real
// etcd, counted by etcd itself (its gRPC counters): one read-only Txn for gets started together,
// a plain Range for a get alone, every answer the key's own value.

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_READS_PER_TXN, ReadBatch, type KeysRead } from './etcd-read-batch.js';
import { EtcdStore } from './etcd-store.js';
import { isStorageError } from '../revisioned-store.js';
import { requireEtcd, startEtcdCluster, type EtcdCluster } from '../../../test/support/etcd-process.js';

const kv = (key: Buffer) => ({ key, value: Buffer.from(`value of ${key.toString()}`), create_revision: '1', mod_revision: '1', version: '1', lease: '0' });

describe('ReadBatch', () => {
  test('gets started in one turn go in one call, in order; a get in a later turn in its own', async () => {
    const calls: string[][] = [];
    const batch = new ReadBatch(async (keys) => {
      calls.push(keys.map((k) => k.toString()));
      return { kvs: keys.map((k) => (k.toString() === 'missing' ? undefined : kv(k))), revision: 40 + calls.length };
    });
    const together = ['a', 'missing', 'c', 'a'].map((k) => batch.get(Buffer.from(k)));
    const answers = await Promise.all(together);
    assert.deepEqual(calls, [['a', 'missing', 'c', 'a']]);
    assert.deepEqual(answers.map((a) => [a.kv?.value.toString(), a.revision]), [['value of a', 41], [undefined, 41], ['value of c', 41], ['value of a', 41]]);
    const alone = await batch.get(Buffer.from('d'));
    assert.deepEqual(calls[1], ['d']);
    assert.equal(alone.revision, 42);
  });

  test(`more than ${MAX_READS_PER_TXN} gets in a turn are split into calls of at most ${MAX_READS_PER_TXN}`, async () => {
    const sizes: number[] = [];
    const batch = new ReadBatch(async (keys) => {
      sizes.push(keys.length);
      return { kvs: keys.map(kv), revision: 7 };
    });
    const keys = Array.from({ length: 2 * MAX_READS_PER_TXN + 1 }, (_, i) => `k${i}`);
    const answers = await Promise.all(keys.map((k) => batch.get(Buffer.from(k))));
    assert.deepEqual(sizes, [MAX_READS_PER_TXN, MAX_READS_PER_TXN, 1]);
    assert.deepEqual(answers.map((a) => a.kv?.key.toString()), keys, 'each get has its own key back');
  });

  test(`exactly ${MAX_READS_PER_TXN} gets in a turn are one call, with no empty call after it`, async () => {
    const sizes: number[] = [];
    const batch = new ReadBatch(async (keys) => {
      sizes.push(keys.length);
      return { kvs: keys.map(kv), revision: 7 };
    });
    await Promise.all(Array.from({ length: MAX_READS_PER_TXN }, (_, i) => batch.get(Buffer.from(`k${i}`))));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(sizes, [MAX_READS_PER_TXN]);
  });

  test("a failed call fails every get it carried, and no other call's", async () => {
    let n = 0;
    const batch = new ReadBatch(async (keys): Promise<KeysRead> => {
      if (++n === 1) throw new Error('etcd away');
      return { kvs: keys.map(kv), revision: 3 };
    });
    const failed = [batch.get(Buffer.from('a')), batch.get(Buffer.from('b'))];
    for (const p of failed) await assert.rejects(p, /etcd away/);
    assert.equal((await batch.get(Buffer.from('c'))).kv?.key.toString(), 'c');
  });
});

const haveEtcd = requireEtcd('consistent gets are batched against a real etcd') !== undefined;
let cluster: Promise<EtcdCluster> | undefined;
const etcd = (): Promise<EtcdCluster> => (cluster ??= startEtcdCluster());
after(async () => {
  if (cluster) await (await cluster).stop();
});

/** etcd's count of Range and Txn calls it handled (its Prometheus metrics). */
async function handled(clientUrl: string): Promise<{ Range: number; Txn: number }> {
  const text = await (await fetch(`${clientUrl}/metrics`)).text();
  const count = (method: string) => [...text.matchAll(new RegExp(`^grpc_server_handled_total\\{[^}]*grpc_method="${method}"[^}]*\\} (\\S+)$`, 'gm'))].reduce((n, m) => n + Number(m[1]), 0);
  return { Range: count('Range'), Txn: count('Txn') };
}

describe('EtcdStore consistent gets on a real etcd', { skip: !haveEtcd }, () => {
  test('gets started together are one read-only Txn; each answers its own key at one current revision', async () => {
    const c = await etcd();
    const clientUrl = c.members[0]!.clientUrl;
    const store = new EtcdStore({ servers: [clientUrl], root: '', prefix: `/batch-${process.pid}` });
    try {
      const enc = (s: string) => new TextEncoder().encode(s);
      const written: number[] = [];
      for (let i = 0; i < 10; i++) written.push((await store.optimisticPut(`/k${i}`, enc(`v${i}`), 0)).revision);
      await store.get('/k0'); // the unfinished-prefix check reads etcd once, before the first get
      const before = await handled(clientUrl);
      const keys = [...Array.from({ length: 10 }, (_, i) => `/k${i}`), '/absent'];
      const answers = await Promise.all(keys.map((k) => store.get(k)));
      const after = await handled(clientUrl);
      assert.deepEqual({ Range: after.Range - before.Range, Txn: after.Txn - before.Txn }, { Range: 0, Txn: 1 }, 'one call for the 11 gets');
      answers.slice(0, 10).forEach((a, i) => {
        assert.equal(new TextDecoder().decode(a.kv!.value), `v${i}`);
        assert.equal(a.kv!.key, `/k${i}`);
        assert.equal(a.kv!.modRevision, written[i]);
      });
      assert.equal(answers[10]!.kv, undefined);
      assert.ok(answers.every((a) => a.revision === answers[0]!.revision && a.revision >= written[9]!), 'one revision, read after every write');

      // A get alone in its turn is the plain Range kube sends.
      const one = await handled(clientUrl);
      assert.equal(new TextDecoder().decode((await store.get('/k3')).kv!.value), 'v3');
      const two = await handled(clientUrl);
      assert.deepEqual({ Range: two.Range - one.Range, Txn: two.Txn - one.Txn }, { Range: 1, Txn: 0 });
    } finally {
      await store.close();
    }
  });

  test('a closed store refuses a get before sending it', async () => {
    const store = new EtcdStore({ servers: [(await etcd()).members[0]!.clientUrl], root: '', prefix: `/batch-closed-${process.pid}` });
    await store.get('/x');
    await store.close();
    await assert.rejects(store.get('/x'), (err: unknown) => isStorageError(err, 'Unavailable'));
  });
});
