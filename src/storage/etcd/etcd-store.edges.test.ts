// The etcd store's edges on a real etcd (one process for the file, each test on its own prefix):
// the value-size limit, what a write answers (create revisions, the value a lost compare found),
// list bounds (startAfter at the prefix itself), the errors a read below the compaction or past
// the current revision carries, the compaction record, compaction's bounds, the counters the
// benchmarks read, and a watch "from now" on a store that has seen nothing yet.

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { COMPACT_KEY, EtcdStore } from './etcd-store.js';
import { isStorageError, type StorageError, type WatchEvent } from '../revisioned-store.js';
import { requireEtcd, startEtcdCluster, type EtcdCluster } from '../../../test/support/etcd-process.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const dec = (b: Uint8Array | undefined): string | undefined => (b ? new TextDecoder().decode(b) : undefined);

const haveEtcd = requireEtcd('the etcd store edges run against a real etcd') !== undefined;
let cluster: Promise<EtcdCluster> | undefined;
const etcd = (): Promise<EtcdCluster> => (cluster ??= startEtcdCluster());
after(async () => {
  if (cluster) await (await cluster).stop();
});

let n = 0;
const stores: EtcdStore[] = [];
after(async () => {
  for (const s of stores) await s.close();
});
const freshStore = async (extra: { maxValueBytes?: number } = {}): Promise<EtcdStore> => {
  const s = new EtcdStore({ servers: (await etcd()).endpoints.split(','), root: '', prefix: `/edges-${process.pid}-${++n}`, ...extra });
  stores.push(s);
  return s;
};

/** The StorageError a promise rejects with. */
async function failure(p: Promise<unknown>): Promise<StorageError> {
  try {
    await p;
  } catch (err) {
    assert.ok(isStorageError(err), `a StorageError, not ${String(err)}`);
    return err as StorageError;
  }
  assert.fail('expected a failure');
}

/** etcd's count of calls it handled, by gRPC method (its Prometheus metrics). */
async function handled(method: string): Promise<number> {
  const text = await (await fetch(`${(await etcd()).members[0]!.clientUrl}/metrics`)).text();
  return [...text.matchAll(new RegExp(`^grpc_server_handled_total\\{[^}]*grpc_method="${method}"[^}]*\\} (\\S+)$`, 'gm'))].reduce((sum, m) => sum + Number(m[1]), 0);
}

describe('etcd store edges on a real etcd', { skip: !haveEtcd }, () => {
  test('a value over maxValueBytes is ValueTooLarge before it is sent; one of exactly the limit is written', async () => {
    const s = await freshStore({ maxValueBytes: 10 });
    const err = await failure(s.optimisticPut('/v/a', enc('x'.repeat(11)), 0));
    assert.equal(err.code, 'ValueTooLarge');
    assert.equal(err.message, 'value of 11 bytes exceeds the limit of 10');
    assert.equal(err.key, '/v/a');
    assert.equal(s.stats().txns, 0, 'nothing was sent');
    const ok = await s.optimisticPut('/v/a', enc('x'.repeat(10)), 0);
    assert.equal(dec(ok.kv.value), 'x'.repeat(10));
    // The default limit is 8 MiB (etcd here accepts 10 MiB requests: the store's own limit answers).
    const d = await freshStore();
    const big = await failure(d.optimisticPut('/v/b', new Uint8Array(8 * 1024 * 1024 + 1), 0));
    assert.equal(big.message, `value of ${8 * 1024 * 1024 + 1} bytes exceeds the limit of ${8 * 1024 * 1024}`);
  });

  test('a create answers its own revision as create revision; an update keeps the create revision; a delete answers the deleted value', async () => {
    const s = await freshStore();
    const c = await s.optimisticPut('/w/a', enc('1'), 0);
    assert.deepEqual([c.kv.key, c.kv.createRevision, c.kv.modRevision, dec(c.kv.value)], ['/w/a', c.revision, c.revision, '1']);
    const u = await s.optimisticPut('/w/a', enc('2'), c.revision);
    assert.ok(u.revision > c.revision);
    assert.deepEqual([u.kv.createRevision, u.kv.modRevision, dec(u.kv.value)], [c.revision, u.revision, '2']);
    const got = await s.get('/w/a');
    assert.deepEqual([got.kv!.createRevision, got.kv!.modRevision], [c.revision, u.revision]);
    const d = await s.optimisticDelete('/w/a', u.revision);
    assert.ok(d.revision > u.revision);
    assert.deepEqual([d.prevKv.key, dec(d.prevKv.value), d.prevKv.modRevision, d.prevKv.createRevision], ['/w/a', '2', u.revision, c.revision]);
  });

  test('a lost compare says what it found: KeyExists or Conflict with the current value, KeyNotFound for an absent key', async () => {
    const s = await freshStore();
    const c = await s.optimisticPut('/c/a', enc('1'), 0);
    const exists = await failure(s.optimisticPut('/c/a', enc('again'), 0));
    assert.deepEqual([exists.code, exists.message, exists.key, dec(exists.current?.value), exists.current?.modRevision], ['KeyExists', 'key /c/a already exists', '/c/a', '1', c.revision]);
    const conflict = await failure(s.optimisticPut('/c/a', enc('3'), c.revision - 1));
    assert.deepEqual([conflict.code, conflict.message, conflict.current?.key, dec(conflict.current?.value)], ['Conflict', `key /c/a is at revision ${c.revision}, not ${c.revision - 1}`, '/c/a', '1']);
    const delConflict = await failure(s.optimisticDelete('/c/a', c.revision + 1));
    assert.deepEqual([delConflict.code, delConflict.message, dec(delConflict.current?.value)], ['Conflict', `key /c/a is at revision ${c.revision}, not ${c.revision + 1}`, '1']);
    // A delete expecting "absent" of a key that exists: KeyNotFound, as deleting an absent key.
    const delAbsent = await failure(s.optimisticDelete('/c/a', 0));
    assert.deepEqual([delAbsent.code, delAbsent.message, delAbsent.key, delAbsent.current], ['KeyNotFound', 'key /c/a not found', '/c/a', undefined]);
    const missing = await failure(s.optimisticPut('/c/none', enc('x'), 5));
    assert.deepEqual([missing.code, missing.message, missing.key], ['KeyNotFound', 'key /c/none not found', '/c/none']);
    const missingDel = await failure(s.optimisticDelete('/c/none', 5));
    assert.deepEqual([missingDel.code, missingDel.message], ['KeyNotFound', 'key /c/none not found']);
    // Expecting "absent" of an absent key, etcd's compare holds and the delete deletes nothing.
    const absentDel = await failure(s.optimisticDelete('/c/none', 0));
    assert.deepEqual([absentDel.code, absentDel.message, absentDel.current], ['KeyNotFound', 'key /c/none not found', undefined]);
    assert.equal(dec((await s.get('/c/a')).kv?.value), '1', 'nothing changed');
  });

  test('get at a past revision answers that revision, with or without the key then', async () => {
    const s = await freshStore();
    const a = await s.optimisticPut('/g/a', enc('1'), 0);
    await s.optimisticPut('/g/a', enc('2'), a.revision);
    const then = await s.get('/g/a', { revision: a.revision });
    assert.deepEqual([then.revision, dec(then.kv?.value), then.kv?.key, then.kv?.modRevision], [a.revision, '1', '/g/a', a.revision]);
    const before = await s.get('/g/a', { revision: a.revision - 1 });
    assert.deepEqual(before, { revision: a.revision - 1 });
    const missing = await s.get('/g/none');
    assert.equal(missing.kv, undefined);
    assert.ok(missing.revision > a.revision);
  });

  test('list: startAfter the prefix itself skips a key equal to the prefix; one before the prefix starts at the prefix (no key before it); a limit of 0 or below is no limit', async () => {
    const s = await freshStore();
    for (const k of ['/l/', '/l/a', '/l/b']) await s.optimisticPut(k, enc(k), 0);
    for (const k of ['/k', '/kz']) await s.optimisticPut(k, enc('before the prefix'), 0);
    assert.deepEqual((await s.list('/l/')).kvs.map((kv) => kv.key), ['/l/', '/l/a', '/l/b']);
    assert.deepEqual((await s.list('/l/', { startAfter: '/l/' })).kvs.map((kv) => kv.key), ['/l/a', '/l/b']);
    assert.deepEqual((await s.list('/l/', { startAfter: '/k' })).kvs.map((kv) => kv.key), ['/l/', '/l/a', '/l/b']);
    for (const limit of [0, -1]) {
      const all = await s.list('/l/', { limit, countRemaining: true });
      assert.deepEqual([all.kvs.length, all.more, all.remaining], [3, false, 0], `limit ${limit}`);
    }
    const page = await s.list('/l/', { limit: 1, countRemaining: true });
    assert.deepEqual([page.kvs.map((kv) => kv.key), page.more, page.remaining], [['/l/'], true, 2]);
    assert.equal(page.revision, (await s.get('/l/a')).revision, 'the current revision');
  });

  test("a read past etcd's revision is RevisionTooLarge carrying the current revision", async () => {
    const s = await freshStore();
    const a = await s.optimisticPut('/f/a', enc('1'), 0);
    for (const [key, read] of [['/f/a', () => s.get('/f/a', { revision: a.revision + 1000 })], ['/f/', () => s.list('/f/', { revision: a.revision + 1000 })]] as const) {
      const err = await failure(read());
      assert.equal(err.code, 'RevisionTooLarge');
      assert.equal(err.key, key);
      assert.ok(err.revision !== undefined && err.revision >= a.revision && err.revision < a.revision + 1000, `current revision ${err.revision}`);
    }
  });

  test('the compaction record: absent is version 0 at revision 0; written, it is noted as compacted; a read below it carries it', async () => {
    const c = await etcd();
    const s = await freshStore();
    const raw = new EtcdStore({ servers: [c.members[0]!.clientUrl], root: '', prefix: '/raw' });
    stores.push(raw);
    await raw.client.delete().key(COMPACT_KEY);
    assert.deepEqual(await s.readCompactionRecord(), { version: 0, revision: 0 });
    assert.equal(await s.compactedRevision(), 0);
    await raw.client.put(COMPACT_KEY).value('not a number');
    assert.deepEqual(await s.readCompactionRecord(), { version: 1, revision: 0 });
    const a = await s.optimisticPut('/r/a', enc('1'), 0);
    const b = await s.optimisticPut('/r/a', enc('2'), a.revision);
    await raw.client.put(COMPACT_KEY).value(String(b.revision));
    // Another replica compacts etcd (not this store): the error carries the record's revision.
    await raw.client.kv.compact({ revision: b.revision });
    for (const read of [() => s.get('/r/a', { revision: a.revision }), () => s.list('/r/', { revision: a.revision })]) {
      const err = await failure(read());
      assert.deepEqual([err.code, err.revision], ['Compacted', b.revision]);
    }
    assert.equal(await s.compactedRevision(), b.revision);
    assert.deepEqual(await s.readCompactionRecord(), { version: 2, revision: b.revision });
    await raw.client.put(COMPACT_KEY).value(String(a.revision));
    await s.readCompactionRecord();
    assert.equal(await s.compactedRevision(), b.revision, 'the noted compaction never goes down');
    await raw.client.delete().key(COMPACT_KEY);
  });

  test('compact: to at most the current revision; again at or below what was compacted sends nothing; below what another replica compacted is no error', async () => {
    const s = await freshStore();
    const other = await freshStore();
    const a = await s.optimisticPut('/x/a', enc('1'), 0);
    const b = await s.optimisticPut('/x/a', enc('2'), a.revision);
    await s.compact(b.revision + 1000);
    const now = await s.currentRevision();
    assert.equal(await s.compactedRevision(), now, 'compacted to the current revision, not past it');
    assert.equal(dec((await s.get('/x/a')).kv?.value), '2');
    const sent = await handled('Compact');
    await s.compact(now);
    await s.compact(now - 1);
    assert.equal(await handled('Compact'), sent, 'nothing to compact: no call');
    // The other replica has not seen that compaction: etcd refuses, which is what it wanted.
    await other.compact(a.revision);
    assert.equal(await other.compactedRevision(), a.revision);
    assert.equal(await handled('Compact'), sent + 1);
  });

  test('the counters count what was sent: ranges, transactions, revision reads, watches', async () => {
    const s = await freshStore();
    assert.deepEqual(s.stats(), { ranges: 0, txns: 0, revisionReads: 0, watchesOpened: 0 });
    await s.optimisticPut('/s/a', enc('1'), 0);
    assert.deepEqual(s.stats(), { ranges: 0, txns: 1, revisionReads: 0, watchesOpened: 0 });
    await s.get('/s/a');
    await s.list('/s/');
    await s.count('/s/');
    assert.equal(await s.count('/s/'), 1);
    assert.deepEqual(s.stats(), { ranges: 4, txns: 1, revisionReads: 0, watchesOpened: 0 });
    await Promise.all([s.get('/s/a'), s.get('/s/b'), s.get('/s/c')]);
    assert.equal(s.stats().ranges, 7, 'a batched get counts one range per key');
    await s.currentRevision();
    assert.deepEqual(s.stats(), { ranges: 8, txns: 1, revisionReads: 1, watchesOpened: 0 });
    await s.readCompactionRecord();
    assert.equal(s.stats().ranges, 9);
    const ac = new AbortController();
    s.watch('/s/', { afterRevision: 1, signal: ac.signal });
    assert.equal(s.stats().watchesOpened, 1);
    ac.abort();
    const copy = s.stats();
    copy.txns = 99;
    assert.equal(s.stats().txns, 1, 'a copy');
  });

  test('a watch "from now" on a store that has seen nothing starts at the first revision read: the first write after it is seen', async () => {
    const s = await freshStore();
    const writer = await freshStore();
    await writer.optimisticPut('/n/before', enc('0'), 0);
    assert.equal(s.observedRevision(), 0);
    const ac = new AbortController();
    const w = s.watch('/n/', { afterRevision: 0, signal: ac.signal });
    const seen: WatchEvent[] = [];
    const first = new Promise<void>((resolve, reject) => {
      w.start({
        next: (e) => {
          if (e.type !== 'progress') seen.push(e);
          if (seen.length) resolve();
          return true;
        },
        end: (err) => (err ? reject(err) : resolve()),
      });
    });
    // This store's own write waits for the first revision read, so it lands above it.
    const put = await s.optimisticPut('/n/a', enc('a'), 0);
    await first;
    ac.abort();
    assert.deepEqual(seen.map((e) => [e.type, e.type === 'put' ? e.kv.key : undefined, e.revision]), [['put', '/n/a', put.revision]]);
    assert.equal(s.stats().revisionReads, 1, 'one read of where now is');
    assert.ok(s.observedRevision() >= put.revision);
    // Now that a revision was seen, a second watch from now reads nothing.
    const ac2 = new AbortController();
    s.watch('/n/', { afterRevision: 0, signal: ac2.signal });
    ac2.abort();
    assert.equal(s.stats().revisionReads, 1);
  });

  test('a closed store: every call is Unavailable, a watch ends at once and is not counted, close again is harmless', async () => {
    const s = await freshStore();
    await s.optimisticPut('/z/a', enc('1'), 0);
    await s.close();
    await s.close();
    for (const call of [() => s.get('/z/a'), () => s.get('/z/a', { revision: 1 }), () => s.list('/z/'), () => s.count('/z/'), () => s.optimisticPut('/z/b', enc('x'), 0), () => s.optimisticDelete('/z/a', 1), () => s.currentRevision()]) {
      const err = await failure(call());
      assert.deepEqual([err.code, err.message], ['Unavailable', 'store is closed']);
    }
    assert.equal((await failure(s.currentRevision())).key, '', 'a revision read names no key');
    const ended: unknown[] = [];
    s.watch('/z/', { afterRevision: 1 }).start({ next: () => true, end: (err) => void ended.push(err ?? 'clean') });
    for (let i = 0; i < 50 && !ended.length; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(ended.length, 1, 'the watch ended');
    assert.equal(s.stats().watchesOpened, 0);
  });
  test("without a root or prefix given, keys are kube's: /registry in the store is /registry in etcd", async () => {
    const s = new EtcdStore({ servers: [(await etcd()).members[0]!.clientUrl] });
    stores.push(s);
    await s.optimisticPut('/registry/edges.io/things/a', enc('x'), 0);
    assert.equal(await s.client.get('/registry/edges.io/things/a').string(), 'x');
    assert.deepEqual((await s.list('/registry/edges.io/')).kvs.map((kv) => kv.key), ['/registry/edges.io/things/a']);
  });

  test("a watch resuming above etcd's revision makes the store ask etcd where it is, and ends nothing when etcd did not go back", async () => {
    const s = await freshStore();
    const a = await s.optimisticPut('/u/a', enc('1'), 0);
    const reads = s.stats().revisionReads;
    const ac = new AbortController();
    const ended: unknown[] = [];
    s.watch('/u/', { afterRevision: a.revision + 100, signal: ac.signal }).start({ next: () => true, end: (e) => void ended.push(e ?? 'clean') });
    for (let i = 0; i < 200 && s.stats().revisionReads === reads; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(s.stats().revisionReads, reads + 1, 'one revision read');
    assert.equal(ended.length, 0);
    ac.abort();
  });
  test('what a watch shows the store: the revisions of its events, the compaction etcd names; an ended watch is let go', async () => {
    const s = await freshStore();
    const writer = new EtcdStore({ servers: (await etcd()).endpoints.split(','), root: '', prefix: s.keys.prefix });
    stores.push(writer);
    const a = await s.optimisticPut('/o/a', enc('1'), 0);
    const ac = new AbortController();
    const w = s.watch('/o/', { afterRevision: a.revision, signal: ac.signal });
    const got = new Promise<number>((resolve, reject) => w.start({ next: (e) => (e.type === 'put' && resolve(e.revision), true), end: (e) => (e ? reject(e) : undefined) }));
    // The writer is another replica: this store sees its revision only through the watch.
    const b = await writer.optimisticPut('/o/b', enc('2'), 0);
    assert.equal(await got, b.revision);
    assert.ok(s.observedRevision() >= b.revision, `observed ${s.observedRevision()}`);
    const watches = (s as unknown as { watches: Set<unknown> }).watches;
    assert.equal(watches.size, 1);
    ac.abort();
    assert.equal(watches.size, 0, 'let go');
    // Compacted by another replica: a watch from below learns where etcd compacted to.
    const c = await writer.optimisticPut('/o/b', enc('3'), b.revision);
    await writer.compact(c.revision);
    assert.equal(await s.compactedRevision(), 0);
    const ended = await new Promise<unknown>((resolve) => s.watch('/o/', { afterRevision: a.revision }).start({ next: () => true, end: resolve }));
    assert.ok(isStorageError(ended, 'Compacted'), String(ended));
    assert.equal(await s.compactedRevision(), c.revision);
  });
});
