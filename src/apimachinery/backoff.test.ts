import { test } from 'node:test';
import assert from 'node:assert/strict';
import { backoffDelay, backoffStep } from './backoff.js';

test('steps double from the first delay and stop at the cap', () => {
  assert.deepEqual([0, 1, 2, 3].map((n) => backoffStep(n, { initialMs: 5, maxMs: 1_000_000 })), [5, 10, 20, 40]);
  assert.equal(backoffStep(2000, { initialMs: 5, maxMs: 1_000_000 }), 1_000_000, '2^n past Infinity is still capped');
  assert.deepEqual([0, 9, 20].map((n) => backoffStep(n)), [100, 30_000, 30_000], 'the defaults: 100 ms doubling to 30 s');
});

test('the jittered delay stays within the upper half of its step', () => {
  assert.equal(backoffDelay(3, { initialMs: 100 }, () => 0), 400);
  assert.equal(backoffDelay(3, { initialMs: 100 }, () => 1), 800);
  assert.equal(backoffDelay(50, {}, () => 1), 30_000);
});
