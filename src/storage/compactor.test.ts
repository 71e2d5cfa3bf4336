import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryStore } from './sqlite/memory-store.js';
import { startCompactor } from './compactor.js';

test('each tick compacts to the revision of the tick before', async (t) => {
  // Mocked interval: the ticks come when the test says, however busy the machine is.
  t.mock.timers.enable({ apis: ['setInterval'] });
  const store = new MemoryStore();
  // Lets a tick's store calls finish (they settle within a few turns).
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  };
  try {
    const a = await store.optimisticPut('/k/a', new Uint8Array([1]), 0);
    const compactor = startCompactor(store, 40, (err) => assert.fail(String(err)));
    await settle();
    const b = await store.optimisticPut('/k/a', new Uint8Array([2]), a.revision);
    assert.equal(await store.compactedRevision(), 0, 'nothing is compacted before one interval has passed');
    t.mock.timers.tick(40);
    await settle();
    assert.equal(await store.compactedRevision(), a.revision, 'history newer than one interval is kept');
    t.mock.timers.tick(40);
    await settle();
    compactor.stop();
    assert.equal(await store.compactedRevision(), b.revision, 'the next tick compacts what the one before saw');
  } finally {
    await store.close();
  }
});
