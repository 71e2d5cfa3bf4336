// The in-flight pool's arithmetic (inflight-pool.ts): a user's share is half the pool, rounded
// up; a request's seats are its width, whole, between one and that share; a user past its share
// is refused only once the pool is past half used; release gives back exactly what was taken.
// Pinned here (issue #35): the max-in-flight filter's tests see the pool only through requests.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InflightPool } from './inflight-pool.js';

test("a user's share is half the pool, rounded up, one at least", () => {
  assert.deepEqual([1, 2, 5, 400].map((n) => new InflightPool(n).share), [1, 1, 3, 200]);
});

test("a request takes its width in whole seats, one at least and never more than a user's share", () => {
  const pool = new InflightPool(10);
  assert.deepEqual([0, 0.5, 1, 2.9, 5, 50].map((w) => pool.seatsFor(w)), [1, 1, 1, 2, 5, 5]);
});

test('the pool refuses past its limit', () => {
  const pool = new InflightPool(4);
  assert.ok(pool.tryAcquire('a', 2));
  assert.ok(pool.tryAcquire('b', 2));
  assert.equal(pool.inUse, 4);
  assert.equal(pool.tryAcquire('c', 1), false);
  pool.release('b', 2);
  assert.equal(pool.inUse, 2);
  assert.ok(pool.tryAcquire('c', 2));
  assert.equal(pool.tryAcquire('d'), false);
});

test('a user past its share is refused only while others could want the seats', () => {
  const pool = new InflightPool(10);
  // The pool up to half used: anyone may take it, even one user alone.
  assert.ok(pool.tryAcquire('noisy', 5));
  // Past half: noisy holds its share (5) and gets no more; another user still does.
  assert.equal(pool.tryAcquire('noisy'), false);
  assert.ok(pool.tryAcquire('quiet', 4));
  assert.ok(pool.tryAcquire('quiet'), 'quiet reaches its share of 5');
  assert.equal(pool.tryAcquire('quiet'), false, 'the pool is full');
  pool.release('quiet', 5);
  pool.release('noisy', 1);
  assert.equal(pool.inUse, 4);
  // noisy holds 4: one more reaches its share exactly.
  assert.ok(pool.tryAcquire('noisy'));
  assert.equal(pool.tryAcquire('noisy'), false);
});

test('a small pool: one user may take a share that is the whole half', () => {
  const pool = new InflightPool(3);
  assert.equal(pool.share, 2);
  assert.ok(pool.tryAcquire('a', 2));
  assert.equal(pool.tryAcquire('a', 1), false);
  assert.ok(pool.tryAcquire('b', 1));
});

test('release forgets a user at zero, and counts a user it never saw as giving back what it says', () => {
  const pool = new InflightPool(10);
  assert.ok(pool.tryAcquire('a', 3));
  pool.release('a', 3);
  assert.equal(pool.inUse, 0);
  // a is forgotten: it may take up to the whole half again.
  assert.ok(pool.tryAcquire('a', 5));
  assert.equal(pool.tryAcquire('a', 1), false);
  assert.ok(pool.tryAcquire('b', 3));
  pool.release('a', 2);
  assert.ok(pool.tryAcquire('a', 2), 'a partial release leaves the user with the rest');
  assert.equal(pool.tryAcquire('a', 1), false);
});
