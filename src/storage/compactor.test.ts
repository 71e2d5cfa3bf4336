import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryStore } from './memory-store.js';
import { parseDuration, startCompactor } from './compactor.js';

test('durations in kube flag form', () => {
  assert.equal(parseDuration('5m'), 300_000);
  assert.equal(parseDuration('1h30m'), 5_400_000);
  assert.equal(parseDuration('250ms'), 250);
  assert.equal(parseDuration('0'), 0);
  assert.throws(() => parseDuration('5 minutes'), /invalid duration/);
});

test('each tick compacts to the revision of the tick before', async () => {
  const store = new MemoryStore();
  try {
    const a = await store.optimisticPut('/k/a', new Uint8Array([1]), 0);
    const compactor = startCompactor(store, 40, (err) => assert.fail(String(err)));
    await new Promise((r) => setTimeout(r, 10));
    const b = await store.optimisticPut('/k/a', new Uint8Array([2]), a.revision);
    assert.equal(await store.compactedRevision(), 0, 'nothing is compacted before one interval has passed');
    for (let i = 0; i < 100 && (await store.compactedRevision()) < a.revision; i++) await new Promise((r) => setTimeout(r, 10));
    compactor.stop();
    assert.equal(await store.compactedRevision(), a.revision, 'history newer than one interval is kept');
    assert.ok(b.revision > a.revision);
  } finally {
    await store.close();
  }
});
