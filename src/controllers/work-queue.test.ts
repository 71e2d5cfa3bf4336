// The work queue's contract (client-go's workqueue): dedupe of a queued key, a key being processed
// handed out again only after done(), keys in the order queued, O(1) per key (shown by the items
// the queue moves in memory, not by time), and workers that let the event loop run between keys.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FakeClock } from './fake-clock.js';
import { Fifo } from './fifo.js';
import { WorkQueue } from './work-queue.js';

describe('WorkQueue: order and cost', () => {
  test('keys come out in the order they were first queued; a re-add of a queued key keeps its place', async () => {
    const q = new WorkQueue(new FakeClock());
    for (const k of ['c', 'a', 'b', 'a', 'c', 'd']) q.add(k);
    const out: string[] = [];
    while (q.length) {
      const k = (await q.get())!;
      out.push(k);
      q.done(k);
    }
    assert.deepEqual(out, ['c', 'a', 'b', 'd']);
  });

  test('a key re-added while processed goes to the back, behind the keys queued meanwhile (no key starves)', async () => {
    const q = new WorkQueue(new FakeClock());
    q.add('hot');
    q.add('x');
    const first = (await q.get())!;
    assert.equal(first, 'hot');
    q.add('hot');
    q.add('y');
    q.done('hot');
    const out: string[] = [];
    while (q.length) {
      const k = (await q.get())!;
      out.push(k);
      q.done(k);
    }
    assert.deepEqual(out, ['x', 'y', 'hot']);
  });

  test('100,000 keys through the queue move at most about one item each in memory (O(1) per key; Array.shift moves all the rest)', async () => {
    const n = 100_000;
    const q = new WorkQueue(new FakeClock(), { yieldAfterMs: Infinity });
    for (let i = 0; i < n; i++) q.add(`k${i}`);
    for (let i = 0; i < n; i++) {
      const k = (await q.get())!;
      assert.equal(k, `k${i}`);
      q.done(k);
      // Keys keep arriving while the queue drains, as informer events do.
      if (i % 2 === 0) q.add(`late${i}`);
    }
    while (q.length) q.done((await q.get())!);
    assert.ok(q.moved <= 1.5 * n, `moved ${q.moved} items for ${1.5 * n} keys`);
  });

  test('Fifo: items moved stay within the items pushed, whatever the interleaving', () => {
    const f = new Fifo<number>();
    let pushed = 0;
    for (let round = 0; round < 50; round++) {
      for (let i = 0; i < 3000; i++) f.push(pushed++);
      for (let i = 0; i < 2000; i++) f.shift();
    }
    assert.equal(f.length, 50 * 1000);
    assert.ok(f.moved <= pushed, `moved ${f.moved} of ${pushed} pushed`);
    assert.equal(f.shift(), 150_000 - 50_000);
  });
});

describe('WorkQueue: workers share the event loop', () => {
  test('once a turn of work is over, get() waits for the event loop: a timer fires between keys', async () => {
    let now = 0;
    const q = new WorkQueue(new FakeClock(), { yieldAfterMs: 5, now: () => now });
    for (let i = 0; i < 20; i++) q.add(`k${i}`);
    const seen: string[] = [];
    const timer = new Promise<void>((resolve) =>
      setTimeout(() => {
        seen.push('timer');
        resolve();
      }, 0),
    );
    // A worker whose syncs never wait for I/O (each takes 2 ms of "CPU"): only microtasks.
    for (let i = 0; i < 20; i++) {
      const k = (await q.get())!;
      now += 2;
      seen.push(k);
      q.done(k);
    }
    await timer;
    const at = seen.indexOf('timer');
    // Without yielding, every key (40 ms of work) would go before the timer.
    assert.ok(at > 0 && at <= 10, `the timer ran after key ${at} of 20: ${seen.join(' ')}`);
    assert.ok(q.yields >= 4, `${q.yields} yields`);
  });

  test('workers waiting to yield share one turn of the event loop, then all go on', async () => {
    let now = 0;
    const q = new WorkQueue(new FakeClock(), { yieldAfterMs: 5, now: () => now });
    for (let i = 0; i < 10; i++) q.add(`k${i}`);
    now = 10;
    const got = await Promise.all([q.get(), q.get(), q.get()]);
    assert.deepEqual(got, ['k0', 'k1', 'k2']);
    assert.equal(q.yields, 1);
  });

  test('an idle queue hands a new key to a waiting worker at once', async () => {
    const q = new WorkQueue(new FakeClock());
    const waiting = q.get();
    q.add('a');
    assert.equal(await waiting, 'a');
    q.shutDown();
    assert.equal(await q.get(), undefined);
  });
});
