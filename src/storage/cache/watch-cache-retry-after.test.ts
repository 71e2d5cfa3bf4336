// The Retry-After a cache that is down gives the requests it turns away (kube's cacher curve):
// 1 s at first, e^(0.06 s⁻¹ · downtime) as the outage goes on, whole seconds, at most 30 s.
// Pinned here (issue #35): the recovery tests only see that it is at least one second.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { retryAfterSeconds } from './watch-cache.js';

test('Retry-After grows with the outage from 1 s to at most 30 s, in whole seconds', () => {
  const at = (s: number) => retryAfterSeconds(s * 1000);
  assert.deepEqual([0, 1, 11, 12, 20, 30, 56, 57, 60, 3600].map(at), [1, 1, 1, 2, 3, 6, 28, 30, 30, 30]);
  assert.equal(retryAfterSeconds(-5000), 1, 'a clock step back is still 1 s');
});
