// The etcd store's answers to failures a real etcd cannot be made to give on cue: a read whose
// connection failed (sent again to the next member, as many times as there are members), a write
// whose answer was lost (settled by reading the key, else a Timeout that says it may have been
// applied), a write etcd refused, a compaction etcd refused, the version and first-revision reads
// asked again after they failed, and a rewind noticed by a read. etcd's answers are scripted on
// the store's own client, which has no etcd behind it; the same contract on a real etcd is in
// etcd-store.test.ts and etcd-store.edges.test.ts.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GRPCUnavailableError, type IRangeRequest, type IRangeResponse, type ITxnRequest, type ITxnResponse } from 'etcd3';
import { COMPACT_KEY, EtcdStore } from './etcd-store.js';
import { HistoryRewound, StorageError, isStorageError, type WatchEvent } from '../revisioned-store.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

type Range = (req: IRangeRequest) => Promise<IRangeResponse>;
type Txn = (req: ITxnRequest) => Promise<ITxnResponse>;

interface Scripted {
  store: EtcdStore;
  /** Every range the store sent (not the unfinished-mark check), by key. */
  ranges: string[];
  txns: ITxnRequest[];
  onRange: (fn: Range) => void;
  onTxn: (fn: Txn) => void;
  onCompact: (fn: (req: { revision: number | string }) => Promise<unknown>) => void;
  onStatus: (fn: () => Promise<{ version: string; dbSize: string; dbSizeInUse: string }>) => void;
}

const header = (revision: number) => ({ revision: String(revision) }) as ITxnResponse['header'];
const rangeAt = (revision: number, kvs: IRangeResponse['kvs'] = []): IRangeResponse => ({ header: header(revision), kvs, more: false, count: String(kvs.length) }) as IRangeResponse;
const etcdKv = (key: string, value: string, mod: number, create = mod) => ({ key: Buffer.from(key), value: Buffer.from(value), create_revision: String(create), mod_revision: String(mod), version: '1', lease: '0' });

/** Unused low ports, a fresh one per member: no store shares a gRPC connection with another's. */
let port = 10;
function scripted(servers = 1): Scripted {
  const store = new EtcdStore({ servers: Array.from({ length: servers }, () => `http://127.0.0.1:${++port}`), root: '', prefix: '/s', requestTimeoutMs: 1000 });
  const ranges: string[] = [];
  const txns: ITxnRequest[] = [];
  let range: Range = async () => rangeAt(10);
  let txn: Txn = async () => ({ header: header(11), succeeded: true, responses: [] }) as unknown as ITxnResponse;
  let compact: (req: { revision: number | string }) => Promise<unknown> = async () => ({});
  let status = async () => ({ version: '3.5.9', dbSize: '100', dbSizeInUse: '50' });
  const kv = store.client.kv as unknown as Record<string, unknown>;
  kv.range = (req: IRangeRequest) => {
    const key = Buffer.from(req.key as Buffer).toString();
    if (key.startsWith('platform-apiserver/unfinished')) return Promise.resolve(rangeAt(1));
    ranges.push(key);
    return range(req);
  };
  kv.txn = (req: ITxnRequest) => {
    txns.push(req);
    return txn(req);
  };
  kv.compact = (req: { revision: number | string }) => compact(req);
  (store.client.maintenance as unknown as Record<string, unknown>).status = () => status();
  return {
    store,
    ranges,
    txns,
    onRange: (fn) => (range = fn),
    onTxn: (fn) => (txn = fn),
    onCompact: (fn) => (compact = fn),
    onStatus: (fn) => (status = fn as typeof status),
  };
}

const refused = () => new GRPCUnavailableError('14 UNAVAILABLE: connect ECONNREFUSED 127.0.0.1:9');
const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

test('a read whose connection failed goes to the next member, once per member; an answer from etcd is not sent again', async () => {
  const s = scripted(2);
  try {
    let calls = 0;
    s.onRange(async () => (++calls === 1 ? Promise.reject(refused()) : rangeAt(20)));
    assert.equal((await s.store.get('/a')).revision, 20);
    assert.equal(calls, 2);
    calls = 0;
    assert.equal((await s.store.list('/p/')).revision, 20);
    assert.equal(calls, 2);
    // Both members refused: the read fails, Unavailable, after one try each.
    calls = 0;
    s.onRange(async () => {
      calls++;
      throw refused();
    });
    await assert.rejects(s.store.get('/a'), (e: unknown) => isStorageError(e, 'Unavailable') && (e as StorageError).key === '/a' && (e as StorageError).revision === undefined);
    assert.equal(calls, 2);
    assert.deepEqual(s.ranges.filter((k) => k === 'compact_rev_key'), [], 'no compaction record read for an unavailable etcd');
    calls = 0;
    await assert.rejects(s.store.list('/p/'), (e: unknown) => isStorageError(e, 'Unavailable') && (e as StorageError).key === '/p/');
    assert.equal(calls, 2);
    // etcd answered (an error of its own): not sent again.
    calls = 0;
    s.onRange(async () => {
      calls++;
      throw new GRPCUnavailableError('etcdserver: leader changed');
    });
    await assert.rejects(s.store.get('/a'), (e: unknown) => isStorageError(e, 'Unavailable'));
    await assert.rejects(s.store.count('/p/'), (e: unknown) => isStorageError(e, 'Unavailable'));
    assert.equal(calls, 2, 'one call each');
  } finally {
    await s.store.close();
  }
});

test('with one member a failed read is not sent again; gets batched in one Txn are retried together', async () => {
  const one = scripted(1);
  try {
    let calls = 0;
    one.onRange(async () => {
      calls++;
      throw refused();
    });
    await assert.rejects(one.store.get('/a'), (e: unknown) => isStorageError(e, 'Unavailable'));
    await assert.rejects(one.store.list('/p/'), (e: unknown) => isStorageError(e, 'Unavailable'));
    assert.equal(calls, 2);
  } finally {
    await one.store.close();
  }
  const two = scripted(2);
  try {
    let calls = 0;
    two.onTxn(async (req) => {
      if (++calls === 1) throw refused();
      return { header: header(30), succeeded: true, responses: req.success!.map((op) => ({ response_range: { kvs: [etcdKv(Buffer.from(op.request_range!.key as Buffer).toString(), 'v', 5)] } })) } as unknown as ITxnResponse;
    });
    const [a, b] = await Promise.all([two.store.get('/a'), two.store.get('/b')]);
    assert.deepEqual([a.kv?.key, b.kv?.key, a.revision], ['/a', '/b', 30]);
    assert.equal(calls, 2);
    assert.equal(two.store.stats().ranges, 4, 'two keys, sent twice');
  } finally {
    await two.store.close();
  }
});

test('a write whose answer was lost is settled by reading the key: its own bytes above the expected revision are its answer', async () => {
  const s = scripted();
  try {
    s.onTxn(async () => {
      throw new Error('14 UNAVAILABLE: Connection dropped');
    });
    s.onRange(async () => rangeAt(40, [etcdKv('/s/a', 'mine', 40, 33)]));
    const put = await s.store.optimisticPut('/a', enc('mine'), 33);
    assert.equal(put.revision, 40);
    assert.deepEqual([put.kv.key, put.kv.modRevision, put.kv.createRevision], ['/a', 40, 33]);
    assert.equal(s.txns.length, 1, 'a write is never sent twice');
    // Other bytes there: someone else's write; the outcome stays unknown.
    const other = await assert.rejects(s.store.optimisticPut('/a', enc('not mine'), 33), (e: unknown) => isStorageError(e, 'Timeout') && /the write may have been applied \(etcd: 14 UNAVAILABLE: Connection dropped\)/.test((e as Error).message) && (e as StorageError).key === '/a');
    assert.equal(other, undefined);
    // Its bytes, but at the revision it expected: not this write.
    await assert.rejects(s.store.optimisticPut('/a', enc('mine'), 40), (e: unknown) => isStorageError(e, 'Timeout'));
    // The key is gone: unknown.
    s.onRange(async () => rangeAt(41));
    await assert.rejects(s.store.optimisticPut('/a', enc('mine'), 0), (e: unknown) => isStorageError(e, 'Timeout'));
    // The read that would settle it fails too: unknown.
    s.onRange(async () => Promise.reject(new Error('etcdserver: request timed out')));
    await assert.rejects(s.store.optimisticPut('/a', enc('mine'), 33), (e: unknown) => isStorageError(e, 'Timeout') && /may have been applied/.test((e as Error).message));
    // A delete whose answer was lost cannot be settled: a Timeout, no read.
    const before = s.ranges.length;
    await assert.rejects(s.store.optimisticDelete('/a', 40), (e: unknown) => isStorageError(e, 'Timeout') && /may have been applied/.test((e as Error).message));
    assert.equal(s.ranges.length, before);
  } finally {
    await s.store.close();
  }
});

test('a write etcd refused before proposing it fails with its reason and is not settled by a read', async () => {
  const s = scripted();
  try {
    s.onTxn(async () => {
      throw new Error('etcdserver: no leader');
    });
    for (const write of [() => s.store.optimisticPut('/a', enc('x'), 0), () => s.store.optimisticDelete('/a', 3)]) {
      await assert.rejects(write(), (e: unknown) => isStorageError(e, 'Unavailable') && (e as Error).message === 'etcd: etcdserver: no leader' && (e as StorageError).key === '/a');
    }
    assert.deepEqual(s.ranges, [], 'nothing read');
  } finally {
    await s.store.close();
  }
});

test('a create sends a bare put; an update asks for the previous value; a delete that found nothing is KeyNotFound', async () => {
  const s = scripted();
  try {
    s.onTxn(async (req) => {
      const put = req.success?.[0]?.request_put;
      return { header: header(50), succeeded: true, responses: [{ response_put: { prev_kv: put?.prev_kv ? etcdKv('/s/a', 'old', 45, 44) : undefined } }] } as unknown as ITxnResponse;
    });
    const created = await s.store.optimisticPut('/a', enc('x'), 0);
    assert.equal(s.txns[0]!.success![0]!.request_put!.prev_kv, false);
    assert.equal(created.kv.createRevision, 50);
    const updated = await s.store.optimisticPut('/a', enc('y'), 45);
    assert.equal(s.txns[1]!.success![0]!.request_put!.prev_kv, true);
    assert.equal(updated.kv.createRevision, 44);
    // A previous value without a create revision (0): the write's own.
    s.onTxn(async () => ({ header: header(51), succeeded: true, responses: [{ response_put: { prev_kv: etcdKv('/s/a', 'old', 45, 0) } }] }) as unknown as ITxnResponse);
    assert.equal((await s.store.optimisticPut('/a', enc('z'), 45)).kv.createRevision, 51);
    // A delete etcd says succeeded but that deleted nothing (the compare held on an absent key).
    s.onTxn(async () => ({ header: header(52), succeeded: true, responses: [{ response_delete_range: { prev_kvs: [] } }] }) as unknown as ITxnResponse);
    await assert.rejects(s.store.optimisticDelete('/a', 0), (e: unknown) => isStorageError(e, 'KeyNotFound'));
  } finally {
    await s.store.close();
  }
});

test('a write on a store that has seen no revision waits for a watch "from now" to learn where now is', async () => {
  const s = scripted();
  try {
    let answerRevision: (r: IRangeResponse) => void = () => undefined;
    s.onRange(() => new Promise((resolve) => (answerRevision = resolve)));
    const order: string[] = [] as string[];
    s.onTxn(async () => {
      order.push('txn');
      return { header: header(61), succeeded: true, responses: [{ response_put: {} }] } as unknown as ITxnResponse;
    });
    const ac = new AbortController();
    s.store.watch('/w/', { afterRevision: 0, signal: ac.signal });
    await settle();
    assert.equal(s.store.stats().revisionReads, 1);
    const put = s.store.optimisticPut('/w/a', enc('x'), 0);
    await settle();
    assert.equal(order.length, 0, 'the write waits for the first revision');
    order.push('revision');
    answerRevision(rangeAt(60));
    await put;
    assert.deepEqual(order, ['revision', 'txn']);
    ac.abort();
  } finally {
    await s.store.close();
  }
});

test('a first-revision read that failed is asked again by the next watch "from now"', async () => {
  const s = scripted();
  try {
    s.onRange(async () => {
      throw new Error('etcdserver: request timed out');
    });
    const ac = new AbortController();
    s.store.watch('/w/', { afterRevision: 0, signal: ac.signal });
    s.store.watch('/v/', { afterRevision: 0, signal: ac.signal });
    await settle();
    const first = s.store.stats().revisionReads;
    assert.ok(first >= 1);
    s.onRange(async () => rangeAt(70));
    const ended: unknown[] = [];
    s.store.watch('/x/', { afterRevision: 0, signal: ac.signal }).start({ next: () => true, end: (e) => void ended.push(e) });
    await settle();
    assert.ok(s.store.stats().revisionReads > first, 'read again');
    assert.equal(s.store.observedRevision(), 70);
    ac.abort();
  } finally {
    await s.store.close();
  }
});

test("the etcd version is asked once; a failed ask is asked again by the next watch; the oldest member's counts", async () => {
  const s = scripted();
  try {
    let asked = 0;
    s.onStatus(async () => {
      asked++;
      throw new Error('etcdserver: request timed out');
    });
    const ac = new AbortController();
    s.store.watch('/a/', { afterRevision: 5, signal: ac.signal });
    await settle();
    assert.equal(asked, 1);
    assert.equal(s.store.etcdVersion(), undefined);
    s.onStatus(async () => {
      asked++;
      return { version: '3.4.20', dbSize: '1', dbSizeInUse: '1' };
    });
    s.store.watch('/b/', { afterRevision: 5, signal: ac.signal });
    await settle();
    assert.equal(asked, 2);
    assert.equal(s.store.etcdVersion(), '3.4.20');
    s.store.watch('/c/', { afterRevision: 5, signal: ac.signal });
    await settle();
    assert.equal(asked, 2, 'known: not asked again');
    assert.equal(s.store.stats().watchesOpened, 3);
    ac.abort();
  } finally {
    await s.store.close();
  }
});

test("size() asks a member's Status with a one-second deadline", async () => {
  const s = scripted();
  try {
    let deadline = 0;
    (s.store.client.maintenance as unknown as Record<string, unknown>).status = async (opts: { deadline: number }) => {
      deadline = opts.deadline;
      return { dbSize: '1000', dbSizeInUse: '400' };
    };
    const before = Date.now();
    assert.deepEqual(await s.store.size(), { sizeBytes: 1000, inUseBytes: 400 });
    assert.ok(deadline >= before + 1000 && deadline <= Date.now() + 1000, `deadline ${deadline - before} ms ahead`);
  } finally {
    await s.store.close();
  }
});

test('compact: an error other than Compacted fails it and notes nothing; a read below the compaction whose record cannot be read keeps what was noted', async () => {
  const s = scripted();
  try {
    s.onRange(async () => rangeAt(100));
    s.onCompact(async () => {
      throw new Error('etcdserver: no leader');
    });
    await assert.rejects(s.store.compact(90), (e: unknown) => isStorageError(e, 'Unavailable'));
    assert.equal(await s.store.compactedRevision(), 0);
    let compactedTo: number | string = 0;
    s.onCompact(async (req) => {
      compactedTo = req.revision;
      throw new Error('etcdserver: mvcc: required revision has been compacted');
    });
    await s.store.compact(90);
    assert.equal(compactedTo, 90);
    assert.equal(await s.store.compactedRevision(), 90);
    s.onRange(async (req) => {
      if (Buffer.from(req.key as Buffer).toString() === COMPACT_KEY) throw new Error('etcdserver: request timed out');
      throw new Error('etcdserver: mvcc: required revision has been compacted');
    });
    await assert.rejects(s.store.get('/a', { revision: 3 }), (e: unknown) => isStorageError(e, 'Compacted') && (e as StorageError).revision === 90);
    // A future revision whose current revision cannot be read: no revision to name.
    s.onRange(async (req) => {
      if (req.revision === undefined) throw new Error('etcdserver: request timed out');
      throw new Error('etcdserver: mvcc: required revision is a future revision');
    });
    await assert.rejects(s.store.get('/a', { revision: 300 }), (e: unknown) => isStorageError(e, 'RevisionTooLarge') && (e as StorageError).revision === undefined);
  } finally {
    await s.store.close();
  }
});

test('a read answered at the revision already seen is no rewind; one below it ends the watches and forgets the noted compaction', async () => {
  const s = scripted();
  try {
    s.onRange(async (req) => (Buffer.from(req.key as Buffer).toString() === COMPACT_KEY ? rangeAt(100, [etcdKv(COMPACT_KEY, '80', 90)]) : rangeAt(100)));
    await s.store.get('/a');
    await s.store.readCompactionRecord();
    assert.equal(await s.store.compactedRevision(), 80);
    const ended: unknown[] = [];
    const events: WatchEvent[] = [];
    s.store.watch('/a', { afterRevision: 100 }).start({ next: (e) => {
        events.push(e);
        return true;
      }, end: (e) => void ended.push(e ?? 'clean') });
    await s.store.get('/a');
    await s.store.list('/');
    await settle();
    assert.equal(ended.length, 0, 'same revision: no rewind');
    assert.equal(s.store.observedRevision(), 100);
    // Restored from an older snapshot, with no compaction record there.
    s.onRange(async (req) => (Buffer.from(req.key as Buffer).toString() === COMPACT_KEY ? rangeAt(50) : rangeAt(50)));
    await s.store.list('/');
    await settle();
    assert.equal(ended.length, 1);
    assert.ok(ended[0] instanceof HistoryRewound);
    assert.deepEqual([(ended[0] as HistoryRewound).from, (ended[0] as HistoryRewound).to], [100, 50]);
    assert.equal(s.store.observedRevision(), 50);
    assert.equal(await s.store.compactedRevision(), 0, 'the compaction noted in the old history is forgotten');
  } finally {
    await s.store.close();
  }
});

test('a write answered below the revision already seen is a rewind too', async () => {
  const s = scripted();
  try {
    s.onRange(async () => rangeAt(100));
    await s.store.get('/a');
    const ended: unknown[] = [];
    s.store.watch('/a', { afterRevision: 100 }).start({ next: () => true, end: (e) => void ended.push(e ?? 'clean') });
    s.onTxn(async () => ({ header: header(20), succeeded: true, responses: [{ response_put: {} }] }) as unknown as ITxnResponse);
    await s.store.optimisticPut('/a', enc('x'), 0);
    await settle();
    assert.ok(ended[0] instanceof HistoryRewound);
    assert.equal(s.store.observedRevision(), 20);
  } finally {
    await s.store.close();
  }
});

test('a get that fails with a StorageError passes it on as it is', async () => {
  const s = scripted();
  try {
    const own = new StorageError('Unavailable', 'scripted', '/elsewhere');
    s.onRange(async () => {
      throw own;
    });
    await assert.rejects(s.store.get('/a'), (e: unknown) => e === own);
  } finally {
    await s.store.close();
  }
});

test('a store closed while a read waits to be sent again fails it Unavailable', async () => {
  const s = scripted(2);
  s.onRange(async () => {
    await s.store.close();
    throw refused();
  });
  for (const read of [() => s.store.get('/a'), () => s.store.list('/p/')]) {
    await assert.rejects(read(), (e: unknown) => isStorageError(e, 'Unavailable') && /store is closed/.test((e as Error).message));
  }
  assert.equal(s.ranges.length, 1, 'not sent again');
});

test('a suspected rewind is checked by one revision read at a time, and not at all once the store is closed', async () => {
  const s = scripted();
  const check = (): Promise<void> => (s.store as unknown as { checkRewind(): Promise<void> }).checkRewind();
  let answer: (r: IRangeResponse) => void = () => undefined;
  s.onRange(() => new Promise((resolve) => (answer = resolve)));
  const first = check();
  const second = check();
  await settle();
  assert.equal(s.store.stats().revisionReads, 1, 'one read for both');
  answer(rangeAt(5));
  await Promise.all([first, second]);
  s.onRange(async () => {
    throw new Error('etcdserver: request timed out');
  });
  await check();
  assert.equal(s.store.stats().revisionReads, 2, 'the next suspicion reads again; a failed read is no error');
  await s.store.close();
  await check();
  assert.equal(s.store.stats().revisionReads, 2);
});

test('an answer older than one already seen never lowers the revision the store noted', async () => {
  const s = scripted();
  try {
    const answers: ((r: IRangeResponse) => void)[] = [];
    s.onRange(() => new Promise((resolve) => answers.push(resolve)));
    const first = s.store.get('/a');
    await settle();
    const second = s.store.get('/b');
    await settle();
    assert.equal(answers.length, 2, 'two calls');
    answers[0]!(rangeAt(120));
    await first;
    answers[1]!(rangeAt(110));
    await second;
    assert.equal(s.store.observedRevision(), 120);
  } finally {
    await s.store.close();
  }
});

test('once any answer showed a revision, a write no longer waits for the first-revision read still on its way', async () => {
  const s = scripted();
  try {
    const answers: ((r: IRangeResponse) => void)[] = [];
    s.onRange(() => new Promise((resolve) => answers.push(resolve)));
    const ac = new AbortController();
    s.store.watch('/w/', { afterRevision: 0, signal: ac.signal });
    await settle();
    assert.equal(answers.length, 1, 'the first-revision read is on its way');
    const got = s.store.get('/w/x');
    await settle();
    answers[1]!(rangeAt(50));
    await got;
    const put = s.store.optimisticPut('/w/a', enc('x'), 0);
    await settle();
    assert.equal(s.txns.length, 1, 'sent without waiting');
    answers[0]!(rangeAt(50));
    await put;
    ac.abort();
  } finally {
    await s.store.close();
  }
});

test('a watch "from now" whose first-revision read failed starts, when it tries again, at the revision seen meanwhile without reading it', async () => {
  const s = scripted();
  try {
    let calls = 0;
    s.onRange(async () => (++calls === 1 ? Promise.reject(new Error('etcdserver: request timed out')) : rangeAt(70)));
    const ac = new AbortController();
    s.store.watch('/w/', { afterRevision: 0, signal: ac.signal });
    await settle();
    assert.equal(s.store.stats().revisionReads, 1);
    await s.store.get('/w/x');
    assert.equal(s.store.observedRevision(), 70);
    // The watch tries again after its first backoff (100 ms at most).
    await new Promise((r) => setTimeout(r, 400));
    assert.equal(s.store.stats().revisionReads, 1, 'no second read');
    ac.abort();
  } finally {
    await s.store.close();
  }
});
