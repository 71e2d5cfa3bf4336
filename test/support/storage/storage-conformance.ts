// One conformance suite for every RevisionedStore backend (memory, sqlite, later etcd): the cases
// of Kubernetes' storage tests that apply to the contract. Backends call describeRevisionedStore.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isStorageError, type RevisionedStore, type StorageErrorCode, type WatchEvent } from '../../../src/storage/revisioned-store.js';

export type StoreFactory = () => Promise<{ store: RevisionedStore; cleanup(): Promise<void> }>;

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const text = (b: Uint8Array | undefined): string | undefined => (b ? new TextDecoder().decode(b) : undefined);

const rejectsWith = (p: Promise<unknown>, code: StorageErrorCode) => assert.rejects(p, (e: unknown) => isStorageError(e, code));

/** Collects `n` events from a watch, failing after a bounded wait. */
async function take(watch: AsyncIterable<WatchEvent>, n: number, ms = 5000): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  const it = watch[Symbol.asyncIterator]();
  const deadline = setTimeout(() => it.return?.(), ms);
  try {
    while (out.length < n) {
      const r = await it.next();
      if (r.done) break;
      out.push(r.value);
    }
  } finally {
    clearTimeout(deadline);
  }
  return out;
}

const summary = (e: WatchEvent): string =>
  e.type === 'put' ? `put ${e.kv.key}=${text(e.kv.value)}@${e.revision}${e.prevKv ? ` prev=${text(e.prevKv.value)}` : ''}` : e.type === 'delete' ? `delete ${e.key}@${e.revision} prev=${text(e.prevKv.value)}` : `progress@${e.revision}`;

export function describeRevisionedStore(name: string, makeStore: StoreFactory): void {
  const withStore = (fn: (s: RevisionedStore) => Promise<void>) => async () => {
    const { store, cleanup } = await makeStore();
    try {
      await fn(store);
    } finally {
      await cleanup();
    }
  };

  describe(`RevisionedStore conformance: ${name}`, () => {
    // etcd's first revision is 1; a revision (resourceVersion) of 0 means "any" to clients, so a
    // fresh store must never answer it, and its first write must be newer than what it answered.
    test('a fresh store is at revision 1 or later, and its first write is newer', withStore(async (s) => {
      const fresh = await s.currentRevision();
      assert.ok(fresh >= 1, `fresh revision ${fresh}`);
      const empty = await s.list('/r/fresh/');
      assert.equal(empty.revision, fresh);
      assert.deepEqual(empty.kvs, []);
      assert.equal((await s.get('/r/fresh/x')).revision, fresh);
      const w = await s.optimisticPut('/r/fresh/x', bytes('1'), 0);
      assert.ok(w.revision > fresh);
    }));

    test('create, read back, and KeyExists with the current value', withStore(async (s) => {
      const r = await s.optimisticPut('/r/a/1', bytes('v1'), 0);
      assert.equal(r.kv.modRevision, r.revision);
      assert.equal(r.kv.createRevision, r.revision);
      const got = await s.get('/r/a/1');
      assert.equal(text(got.kv?.value), 'v1');
      assert.equal(got.kv?.modRevision, r.revision);
      await assert.rejects(s.optimisticPut('/r/a/1', bytes('v2'), 0), (e: unknown) => isStorageError(e, 'KeyExists') && text(e.current?.value) === 'v1');
    }));

    test('revisions increase strictly across keys', withStore(async (s) => {
      const a = await s.optimisticPut('/r/a/1', bytes('x'), 0);
      const b = await s.optimisticPut('/r/b/1', bytes('y'), 0);
      assert.ok(b.revision > a.revision);
      assert.equal(await s.currentRevision(), b.revision);
    }));

    test('compare-and-swap: conflict carries the current value; a missing key is KeyNotFound', withStore(async (s) => {
      const c = await s.optimisticPut('/r/a/1', bytes('v1'), 0);
      const u = await s.optimisticPut('/r/a/1', bytes('v2'), c.revision);
      assert.equal(u.kv.createRevision, c.revision);
      await assert.rejects(s.optimisticPut('/r/a/1', bytes('v3'), c.revision), (e: unknown) => isStorageError(e, 'Conflict') && e.current?.modRevision === u.revision);
      await rejectsWith(s.optimisticPut('/r/a/missing', bytes('v'), 5), 'KeyNotFound');
    }));

    test('an identical value is still a new revision (no-op detection is the registry\'s job)', withStore(async (s) => {
      const c = await s.optimisticPut('/r/a/1', bytes('same'), 0);
      const u = await s.optimisticPut('/r/a/1', bytes('same'), c.revision);
      assert.ok(u.revision > c.revision);
    }));

    test('conditional delete, then the key is gone; deleting again is KeyNotFound', withStore(async (s) => {
      const c = await s.optimisticPut('/r/a/1', bytes('v1'), 0);
      await rejectsWith(s.optimisticDelete('/r/a/1', c.revision + 100), 'Conflict');
      const d = await s.optimisticDelete('/r/a/1', c.revision);
      assert.equal(text(d.prevKv.value), 'v1');
      assert.equal((await s.get('/r/a/1')).kv, undefined);
      await rejectsWith(s.optimisticDelete('/r/a/1', c.revision), 'KeyNotFound');
    }));

    test('get at a past revision, beyond the current one, and after compaction', withStore(async (s) => {
      const c = await s.optimisticPut('/r/a/1', bytes('v1'), 0);
      const u = await s.optimisticPut('/r/a/1', bytes('v2'), c.revision);
      assert.equal(text((await s.get('/r/a/1', { revision: c.revision })).kv?.value), 'v1');
      assert.equal(text((await s.get('/r/a/1', { revision: u.revision })).kv?.value), 'v2');
      await rejectsWith(s.get('/r/a/1', { revision: u.revision + 10 }), 'RevisionTooLarge');
      await s.compact(u.revision);
      assert.equal(await s.compactedRevision(), u.revision);
      await rejectsWith(s.get('/r/a/1', { revision: c.revision }), 'Compacted');
      assert.equal(text((await s.get('/r/a/1')).kv?.value), 'v2', 'the current value survives compaction');
    }));

    test('list: ordered by key, prefix isolation, count', withStore(async (s) => {
      for (const k of ['/r/a/b', '/r/a/a', '/r/ab/x', '/r/a/c']) await s.optimisticPut(k, bytes(k), 0);
      const l = await s.list('/r/a/');
      assert.deepEqual(l.kvs.map((kv) => kv.key), ['/r/a/a', '/r/a/b', '/r/a/c']);
      assert.equal(l.more, false);
      assert.equal(await s.count('/r/a/'), 3);
    }));

    test('list pages over one snapshot while writes continue', withStore(async (s) => {
      for (const k of ['1', '2', '3', '4', '5']) await s.optimisticPut(`/r/p/${k}`, bytes(k), 0);
      const first = await s.list('/r/p/', { limit: 2 });
      assert.deepEqual(first.kvs.map((kv) => kv.key), ['/r/p/1', '/r/p/2']);
      assert.equal(first.more, true);
      const three = await s.get('/r/p/3');
      await s.optimisticPut('/r/p/3', bytes('changed'), three.kv!.modRevision);
      await s.optimisticDelete('/r/p/4', (await s.get('/r/p/4')).kv!.modRevision);
      await s.optimisticPut('/r/p/6', bytes('6'), 0);
      const rest = await s.list('/r/p/', { limit: 10, startAfter: '/r/p/2', revision: first.revision });
      assert.deepEqual(rest.kvs.map((kv) => `${kv.key}=${text(kv.value)}`), ['/r/p/3=3', '/r/p/4=4', '/r/p/5=5']);
      assert.equal(rest.more, false);
      assert.equal(rest.revision, first.revision);
      const now = await s.list('/r/p/');
      assert.deepEqual(now.kvs.map((kv) => `${kv.key}=${text(kv.value)}`), ['/r/p/1=1', '/r/p/2=2', '/r/p/3=changed', '/r/p/5=5', '/r/p/6=6']);
    }));

    test('list counts the keys past its page when asked (countRemaining), now and at a past revision', withStore(async (s) => {
      for (const k of ['1', '2', '3', '4', '5']) await s.optimisticPut(`/r/n/${k}`, bytes(k), 0);
      await s.optimisticPut('/r/nx/1', bytes('other prefix'), 0);
      const first = await s.list('/r/n/', { limit: 2, countRemaining: true });
      assert.deepEqual([first.kvs.length, first.more, first.remaining], [2, true, 3]);
      assert.equal((await s.list('/r/n/', { limit: 2 })).remaining, undefined, 'counted only when asked');
      await s.optimisticDelete('/r/n/5', (await s.get('/r/n/5')).kv!.modRevision);
      await s.optimisticPut('/r/n/6', bytes('6'), 0);
      await s.optimisticPut('/r/n/7', bytes('7'), 0);
      const past = await s.list('/r/n/', { limit: 1, startAfter: '/r/n/2', revision: first.revision, countRemaining: true });
      assert.deepEqual([past.kvs.map((kv) => kv.key), past.more, past.remaining], [['/r/n/3'], true, 2], 'keys 4 and 5 as of the first page');
      const now = await s.list('/r/n/', { limit: 1, startAfter: '/r/n/2', countRemaining: true });
      assert.deepEqual([now.more, now.remaining], [true, 3], 'keys 4, 6 and 7 now');
      const last = await s.list('/r/n/', { limit: 10, startAfter: '/r/n/2', countRemaining: true });
      assert.deepEqual([last.more, last.remaining], [false, 0]);
    }));

    test('watch from a revision sees only later changes, with prevKv', withStore(async (s) => {
      const c = await s.optimisticPut('/r/w/1', bytes('before'), 0);
      const ac = new AbortController();
      const w = s.watch('/r/w/', { afterRevision: c.revision, signal: ac.signal });
      const u = await s.optimisticPut('/r/w/1', bytes('after'), c.revision);
      await s.optimisticPut('/r/other/1', bytes('elsewhere'), 0);
      await s.optimisticDelete('/r/w/1', u.revision);
      const events = await take(w, 2);
      ac.abort();
      assert.deepEqual(events.map(summary), [`put /r/w/1=after@${u.revision} prev=before`, `delete /r/w/1@${u.revision + 2} prev=after`]);
    }));

    test('watch from a past revision replays history, then continues live without gaps or duplicates', withStore(async (s) => {
      await s.optimisticPut('/r/unrelated/0', bytes('0'), 0); // afterRevision 0 would mean "from now"
      const a = await s.optimisticPut('/r/w/a', bytes('1'), 0);
      await s.optimisticPut('/r/w/a', bytes('2'), a.revision);
      const ac = new AbortController();
      const w = s.watch('/r/w/', { afterRevision: a.revision - 1, signal: ac.signal });
      await s.optimisticPut('/r/w/b', bytes('3'), 0);
      const events = await take(w, 3);
      ac.abort();
      assert.deepEqual(events.map(summary), [`put /r/w/a=1@${a.revision}`, `put /r/w/a=2@${a.revision + 1} prev=1`, `put /r/w/b=3@${a.revision + 2}`]);
    }));

    test('watch from a compacted revision fails with Compacted', withStore(async (s) => {
      const a = await s.optimisticPut('/r/w/a', bytes('1'), 0);
      const b = await s.optimisticPut('/r/w/a', bytes('2'), a.revision);
      await s.optimisticPut('/r/w/a', bytes('3'), b.revision);
      await s.compact(b.revision);
      const w = s.watch('/r/w/', { afterRevision: a.revision, signal: new AbortController().signal });
      await assert.rejects(take(w, 1), (e: unknown) => isStorageError(e, 'Compacted'));
    }));

    test('a slow reader still gets every event in order; abort ends the iteration', withStore(async (s) => {
      const ac = new AbortController();
      const w = s.watch('/r/slow/', { afterRevision: 0, signal: ac.signal });
      const writes = await Promise.all(Array.from({ length: 50 }, (_, i) => s.optimisticPut(`/r/slow/${String(i).padStart(2, '0')}`, bytes(String(i)), 0)));
      const events = await take(w, 50);
      assert.deepEqual(events.map((e) => e.revision), writes.map((r) => r.revision).sort((x, y) => x - y));
      ac.abort();
      assert.deepEqual(await take(w, 1, 1000), []);
    }));

    test('requestProgress reports the current revision after earlier events', withStore(async (s) => {
      const ac = new AbortController();
      const w = s.watch('/r/prog/', { afterRevision: 0, signal: ac.signal });
      await s.optimisticPut('/r/prog/1', bytes('x'), 0);
      const other = await s.optimisticPut('/r/elsewhere/1', bytes('y'), 0);
      w.requestProgress();
      const events = await take(w, 2);
      ac.abort();
      assert.deepEqual(events.map(summary), [`put /r/prog/1=x@${other.revision - 1}`, `progress@${other.revision}`]);
    }));

    test('get of a missing key has no value and reports the current revision', withStore(async (s) => {
      const c = await s.optimisticPut('/r/a/1', bytes('v1'), 0);
      const got = await s.get('/r/a/2');
      assert.equal(got.kv, undefined);
      assert.equal(got.revision, c.revision);
    }));

    test('a key deleted and created again starts a new incarnation', withStore(async (s) => {
      const c = await s.optimisticPut('/r/a/1', bytes('v1'), 0);
      await s.optimisticDelete('/r/a/1', c.revision);
      const again = await s.optimisticPut('/r/a/1', bytes('v2'), 0);
      assert.equal(again.kv.createRevision, again.revision);
      assert.ok(again.revision > c.revision + 1);
    }));

    test('list at a past revision, beyond the current one, and below the compacted one', withStore(async (s) => {
      const a = await s.optimisticPut('/r/l/a', bytes('a1'), 0);
      await s.optimisticPut('/r/l/b', bytes('b1'), 0);
      const a2 = await s.optimisticPut('/r/l/a', bytes('a2'), a.revision);
      const past = await s.list('/r/l/', { revision: a.revision });
      assert.deepEqual(past.kvs.map((kv) => `${kv.key}=${text(kv.value)}`), ['/r/l/a=a1']);
      assert.equal(past.revision, a.revision);
      await rejectsWith(s.list('/r/l/', { revision: a2.revision + 1 }), 'RevisionTooLarge');
      await s.compact(a2.revision);
      await rejectsWith(s.list('/r/l/', { revision: a.revision }), 'Compacted');
      const now = await s.list('/r/l/', { revision: a2.revision });
      assert.deepEqual(now.kvs.map((kv) => `${kv.key}=${text(kv.value)}`), ['/r/l/a=a2', '/r/l/b=b1']);
    }));

    test('list limit equal to the number of keys has no more; startAfter alone reads the latest', withStore(async (s) => {
      for (const k of ['1', '2', '3']) await s.optimisticPut(`/r/q/${k}`, bytes(k), 0);
      const all = await s.list('/r/q/', { limit: 3 });
      assert.equal(all.more, false);
      assert.equal(all.kvs.length, 3);
      const tail = await s.list('/r/q/', { startAfter: '/r/q/1', limit: 1 });
      assert.deepEqual(tail.kvs.map((kv) => kv.key), ['/r/q/2']);
      assert.equal(tail.more, true);
      assert.equal(await s.count('/r/q/'), 3);
      assert.equal(await s.count('/r/none/'), 0);
    }));

    test('values of 3 MiB round-trip', withStore(async (s) => {
      const big = new Uint8Array(3 * 1024 * 1024).map((_, i) => i % 251);
      const c = await s.optimisticPut('/r/big/1', big, 0);
      const got = await s.get('/r/big/1');
      assert.equal(got.kv?.value.byteLength, big.byteLength);
      assert.ok(Buffer.from(got.kv!.value).equals(Buffer.from(big)));
      assert.equal(got.kv?.modRevision, c.revision);
    }));

    test('replay carries delete events with prevKv; a watch from the compacted revision itself works', withStore(async (s) => {
      const a = await s.optimisticPut('/r/w/a', bytes('1'), 0);
      const d = await s.optimisticDelete('/r/w/a', a.revision);
      const b = await s.optimisticPut('/r/w/b', bytes('2'), 0);
      await s.compact(a.revision);
      const ac = new AbortController();
      const w = s.watch('/r/w/', { afterRevision: a.revision, signal: ac.signal });
      const events = await take(w, 2);
      ac.abort();
      assert.deepEqual(events.map(summary), [`delete /r/w/a@${d.revision} prev=1`, `put /r/w/b=2@${b.revision}`]);
    }));

    test('a long history replays in order, then live events follow', withStore(async (s) => {
      const first = await s.optimisticPut('/r/h/first', bytes('f'), 0);
      const writes = await Promise.all(Array.from({ length: 1200 }, (_, i) => s.optimisticPut(`/r/h/${String(i).padStart(4, '0')}`, bytes(String(i)), 0)));
      const ac = new AbortController();
      const w = s.watch('/r/h/', { afterRevision: first.revision, signal: ac.signal });
      const live = await s.optimisticPut('/r/h/live', bytes('l'), 0);
      const events = await take(w, 1201);
      ac.abort();
      const expected = [...writes.map((r) => r.revision).sort((x, y) => x - y), live.revision];
      assert.deepEqual(events.map((e) => e.revision), expected);
    }));

    test('a delayed reader gets every event in order while writes continue', withStore(async (s) => {
      const ac = new AbortController();
      const w = s.watch('/r/d/', { afterRevision: 0, signal: ac.signal });
      const it = w[Symbol.asyncIterator]();
      const revisions: number[] = [];
      let prev = 0;
      for (let i = 0; i < 20; i++) {
        const r = await s.optimisticPut(`/r/d/${i}`, bytes(String(i)), 0);
        revisions.push(r.revision);
        if (i % 2 === 0) await s.optimisticPut(`/r/d/${i}`, bytes(`${i}'`), r.revision).then((u) => revisions.push(u.revision));
      }
      const seen: number[] = [];
      while (seen.length < revisions.length) {
        await new Promise((r) => setTimeout(r, 2));
        const next = await it.next();
        if (next.done) break;
        assert.ok(next.value.revision > prev);
        prev = next.value.revision;
        seen.push(next.value.revision);
      }
      ac.abort();
      assert.deepEqual(seen, revisions);
    }));

    test('close ends open watches', withStore(async (s) => {
      const w = s.watch('/r/x/', { afterRevision: 0, signal: new AbortController().signal });
      const it = w[Symbol.asyncIterator]();
      const pending = it.next();
      await s.close();
      const r = await Promise.race([pending, new Promise((resolve) => setTimeout(() => resolve('timeout'), 2000))]);
      assert.deepEqual(r, { done: true, value: undefined });
    }));

    test('concurrent writes each get their own outcome', withStore(async (s) => {
      const c = await s.optimisticPut('/r/c/x', bytes('0'), 0);
      const results = await Promise.allSettled([
        s.optimisticPut('/r/c/x', bytes('a'), c.revision),
        s.optimisticPut('/r/c/x', bytes('b'), c.revision),
        s.optimisticPut('/r/c/y', bytes('y'), 0),
      ]);
      // Which of the two racing updates wins is the store's choice (over a network, arrival
      // order); that exactly one does, and the loser is told the winner's value, is the contract.
      const [a, b, y] = results;
      assert.equal(y!.status, 'fulfilled');
      assert.deepEqual([a!.status, b!.status].sort(), ['fulfilled', 'rejected']);
      const winner = a!.status === 'fulfilled' ? 'a' : 'b';
      const loser = (a!.status === 'rejected' ? a : b) as PromiseRejectedResult;
      assert.ok(isStorageError(loser.reason, 'Conflict'));
      assert.equal(text(loser.reason.current?.value), winner, 'the conflict carries the winning value');
      assert.equal(text((await s.get('/r/c/x')).kv?.value), winner);
    }));
  });
}
