// The window's events are the same changes as the live ones, in key-value objects of their own:
// what readers keep per key-value object (decoded objects, served JSON) is not held for the
// window's whole length.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CacheContents } from './cache-contents.js';

test("the window holds each change's bytes in key-values of its own", () => {
  const contents = new CacheContents(10);
  contents.replace({ kvs: [], more: false, revision: 1 });
  const value = new TextEncoder().encode('{"a":1}');
  const put = { type: 'put' as const, revision: 2, kv: { key: '/x/a', value, createRevision: 2, modRevision: 2 } };
  const update = { type: 'put' as const, revision: 3, kv: { key: '/x/a', value, createRevision: 2, modRevision: 3 }, prevKv: put.kv };
  const del = { type: 'delete' as const, revision: 4, key: '/x/a', prevKv: { ...update.kv } };
  for (const e of [put, update, del]) contents.apply(e);
  const replayed = contents.history('/x/', 1, 4, 100);
  assert.deepEqual(replayed, [put, update, del], 'the same changes');
  const [p, u, d] = replayed as [typeof put, typeof update, typeof del];
  assert.notEqual(p.kv, put.kv);
  assert.notEqual(u.kv, update.kv);
  assert.notEqual(u.prevKv, update.prevKv);
  assert.notEqual(d.prevKv, del.prevKv);
  assert.equal(p.kv.value, value, 'the bytes are shared, not copied');
  // The current value is the live key-value itself (reads share what the fan-out derived).
  contents.apply({ type: 'put', revision: 5, kv: put.kv });
  assert.equal(contents.get('/x/a'), put.kv);
});
