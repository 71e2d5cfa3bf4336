// The etcd store's history-rewind detection when answers overlap: reads sent before a rewind was
// noticed come back from the new history below the old mark, and must not count as a second
// rewind that ends the watches opened since. etcd's range answers are scripted here (the order
// in which two in-flight answers arrive cannot be arranged on a real etcd); the watches are the
// store's own, on a client with no etcd behind it (they keep retrying, never end on their own).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IRangeRequest, IRangeResponse } from 'etcd3';
import { EtcdStore } from './etcd-store.js';
import { HistoryRewound, type WatchEvent } from '../revisioned-store.js';
import type { EventSink } from '../push-stream.js';

function endings(): { sink: EventSink<WatchEvent>; ended: unknown[] } {
  const ended: unknown[] = [];
  return { sink: { next: () => true, end: (err) => void ended.push(err ?? 'clean') }, ended };
}

test('a read sent before a rewind was noticed, answered from the new history, does not end the watches opened since', async () => {
  const store = new EtcdStore({ servers: ['http://127.0.0.1:9'], root: '', prefix: '/rewind', requestTimeoutMs: 1000 });
  const pending: ((revision: number) => void)[] = [];
  (store.client.kv as unknown as { range: (req: IRangeRequest) => Promise<IRangeResponse> }).range = (req) =>
    new Promise((resolve) => {
      const answer = (revision: number): void => resolve({ header: { revision: String(revision) }, kvs: [], more: false, count: '0' } as unknown as IRangeResponse);
      // The compaction record the store reads after a rewind, and the prefix's unfinished mark it
      // reads before its first request: there are none.
      const key = Buffer.from(req.key as Buffer).toString();
      if (key === 'compact_rev_key' || key.startsWith('platform-apiserver/unfinished')) answer(0);
      else pending.push(answer);
    });
  // A request reaches etcd a few microtasks after it is made (the store's checks go first).
  const next = async (): Promise<(revision: number) => void> => {
    for (let i = 0; i < 100 && !pending.length; i++) await new Promise((r) => setImmediate(r));
    return pending.shift()!;
  };
  try {
    const seen = store.get('/a');
    (await next())(100);
    await seen;
    assert.equal(store.observedRevision(), 100);

    const before = endings();
    store.watch('/a', { afterRevision: 100 }).start(before.sink);
    // Two reads on their way at once, each its own call (gets of one turn would share one).
    const first = store.get('/a');
    const answerFirst = await next();
    const second = store.get('/a');
    const answerSecond = await next();
    // etcd restored to revision 50: the first answer proves it.
    answerFirst(50);
    await first;
    assert.equal(before.ended.length, 1);
    assert.ok(before.ended[0] instanceof HistoryRewound, 'the watch from the old history ends with HistoryRewound');

    // A cache re-lists and watches again, from the new history.
    const after = endings();
    store.watch('/a', { afterRevision: 50 }).start(after.sink);
    // The second read, sent before the rewind was noticed, is answered from the new history.
    answerSecond(60);
    await second;
    assert.deepEqual(after.ended, [], 'the watch opened after the rewind goes on');
    assert.equal(store.observedRevision(), 60);
  } finally {
    await store.close();
  }
});
