// The compactor's schedule and its turns' edges, with etcd's answers scripted on the store's own
// client (no etcd behind it): each turn compares the key version the last turn saw and records
// the revision noted one interval earlier; a turn lost to a key that vanished starts over at
// version 0; a failed turn is reported and the next goes on; with no interval the replica only
// reads what the others compacted to. The turns on a real etcd are in etcd-compactor.test.ts.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IRangeResponse, ITxnRequest, ITxnResponse } from 'etcd3';
import { COMPACT_KEY, EtcdStore } from './etcd-store.js';
import { compactionTurn, startCompaction, startEtcdCompactor } from './etcd-compactor.js';
import { StorageError, isStorageError, type RevisionedStore } from '../revisioned-store.js';

const header = (revision: number) => ({ revision: String(revision) }) as ITxnResponse['header'];
const compactKv = (value: string, version: number) => ({ key: Buffer.from(COMPACT_KEY), value: Buffer.from(value), create_revision: '1', mod_revision: '2', version: String(version), lease: '0' });

let port = 40;
function scriptedStore(): { store: EtcdStore; kv: Record<string, unknown> } {
  const store = new EtcdStore({ servers: [`http://127.0.0.1:${++port}`], root: '', prefix: '/c', requestTimeoutMs: 1000 });
  return { store, kv: store.client.kv as unknown as Record<string, unknown> };
}

const waitFor = async (what: string, ok: () => boolean): Promise<void> => {
  for (let i = 0; i < 400 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(ok(), what);
};

test('turns compare the version the last turn saw and record the revision noted one turn earlier, which the next winning turn compacts to', async () => {
  const { store, kv } = scriptedStore();
  const txns: ITxnRequest[] = [];
  const compacted: number[] = [];
  let revision = 100;
  kv.txn = async (req: ITxnRequest) => {
    txns.push(req);
    return { header: header(++revision), succeeded: true, responses: [] } as unknown as ITxnResponse;
  };
  kv.range = async () => ({ header: header(revision), kvs: [], more: false, count: '0' }) as unknown as IRangeResponse;
  kv.compact = async (req: { revision: number }) => void compacted.push(Number(req.revision));
  const errors: unknown[] = [];
  const c = startEtcdCompactor(store, 20, (e) => errors.push(e));
  try {
    await waitFor('three turns', () => txns.length >= 3);
  } finally {
    c.stop();
  }
  const seen = txns.length;
  await new Promise((r) => setTimeout(r, 80));
  assert.equal(txns.length, seen, 'stopped');
  assert.deepEqual(errors, []);
  const versions = txns.slice(0, 3).map((t) => Number(t.compare![0]!.version));
  const recorded = txns.slice(0, 3).map((t) => t.success![0]!.request_put!.value!.toString());
  assert.deepEqual(versions, [0, 1, 2]);
  assert.deepEqual(recorded, ['0', '101', '102'], 'each turn records the revision of the turn before');
  assert.deepEqual(compacted.slice(0, 2), [101, 102]);
  assert.equal(await store.compactedRevision(), compacted.at(-1));
  await store.close();
});

test("a failed turn is reported as a StorageError and the next turn goes on from the last turn's state", async () => {
  const { store, kv } = scriptedStore();
  const versions: number[] = [];
  let calls = 0;
  kv.txn = async (req: ITxnRequest) => {
    versions.push(Number(req.compare![0]!.version));
    if (++calls === 2) throw new Error('etcdserver: no leader');
    return { header: header(200 + calls), succeeded: true, responses: [] } as unknown as ITxnResponse;
  };
  kv.range = async () => ({ header: header(300), kvs: [], more: false, count: '0' }) as unknown as IRangeResponse;
  kv.compact = async () => ({});
  const errors: unknown[] = [];
  const c = startEtcdCompactor(store, 20, (e) => errors.push(e));
  try {
    await waitFor('three turns', () => versions.length >= 3);
  } finally {
    c.stop();
  }
  assert.equal(errors.length, 1);
  assert.ok(isStorageError(errors[0], 'Unavailable') && (errors[0] as Error).message === 'etcd: etcdserver: no leader');
  assert.deepEqual(versions.slice(0, 3), [0, 1, 1], 'the failed turn changed nothing');
  await store.close();
});

test('a lost turn learns the key version and the compaction it records; a vanished key starts over at version 0', async () => {
  const { store, kv } = scriptedStore();
  let answer: ITxnResponse = { header: header(50), succeeded: false, responses: [{ response_range: { kvs: [compactKv('42', 7)] } }] } as unknown as ITxnResponse;
  kv.txn = async () => answer;
  assert.deepEqual(await compactionTurn(store, 3, 40), { version: 7, revision: 50 });
  assert.equal(await store.compactedRevision(), 42);
  answer = { header: header(51), succeeded: false, responses: [{ response_range: { kvs: [] } }] } as unknown as ITxnResponse;
  assert.deepEqual(await compactionTurn(store, 7, 50), { version: 0, revision: 51 });
  answer = { header: header(52), succeeded: false, responses: [{ response_range: { kvs: [compactKv('garbage', 9)] } }] } as unknown as ITxnResponse;
  assert.deepEqual(await compactionTurn(store, 0, 51), { version: 9, revision: 52 });
  assert.equal(await store.compactedRevision(), 42, 'an unreadable record notes nothing');
  // A won first turn (nothing noted yet) compacts nothing.
  let compacts = 0;
  kv.compact = async () => void compacts++;
  answer = { header: header(53), succeeded: true, responses: [] } as unknown as ITxnResponse;
  assert.deepEqual(await compactionTurn(store, 9, 0), { version: 10, revision: 53 });
  assert.equal(compacts, 0);
  // A turn that failed in transit is a StorageError.
  kv.txn = async () => {
    throw new Error('etcdserver: request timed out');
  };
  await assert.rejects(compactionTurn(store, 10, 53), (e: unknown) => e instanceof StorageError && e.code === 'Timeout');
  await store.close();
});

test('with no interval the replica takes no turn but reads the compaction record once (a failure is reported)', async () => {
  for (const interval of [0, -1]) {
    const { store, kv } = scriptedStore();
    let txns = 0;
    kv.txn = async () => void txns++;
    kv.range = async () => ({ header: header(9), kvs: [compactKv('33', 4)], more: false, count: '1' }) as unknown as IRangeResponse;
    const errors: unknown[] = [];
    const c = startEtcdCompactor(store, interval, (e) => errors.push(e));
    await waitFor('the record read', () => store.stats().ranges === 1);
    await waitFor('noted', () => errors.length > 0 || store.stats().ranges > 0);
    assert.equal(await store.compactedRevision(), 33);
    c.stop();
    assert.equal(txns, 0);
    assert.deepEqual(errors, []);
    await store.close();
  }
  const { store, kv } = scriptedStore();
  kv.range = async () => {
    throw new Error('etcdserver: request timed out');
  };
  const errors: unknown[] = [];
  startEtcdCompactor(store, 0, (e) => errors.push(e));
  await waitFor('reported', () => errors.length === 1);
  await store.close();
});

test('startCompaction: an etcd store takes turns on the compaction key; another store compacts itself', async () => {
  const { store, kv } = scriptedStore();
  const keys: string[] = [];
  kv.txn = async (req: ITxnRequest) => {
    keys.push(Buffer.from(req.compare![0]!.key as Buffer).toString());
    return { header: header(5), succeeded: true, responses: [] } as unknown as ITxnResponse;
  };
  const c = startCompaction(store, 1000, () => undefined);
  await waitFor('a turn', () => keys.length === 1);
  c.stop();
  assert.deepEqual(keys, [COMPACT_KEY]);
  await store.close();

  let asked = 0;
  const other = { currentRevision: async () => ++asked, compact: async () => undefined } as unknown as RevisionedStore;
  const o = startCompaction(other, 1000, () => undefined);
  await waitFor('its own compactor asked the revision', () => asked === 1);
  o.stop();
});
