// The compaction schedule: one run at a time however slow a run is, failures reported and the
// schedule kept, no compaction before a revision has been seen, none at all when disabled.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryStore } from './sqlite/memory-store.js';
import { runEveryInterval, startCompactor } from './compactor.js';

/** Lets the work a tick started settle (it settles within a few turns). */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

test('a run still going when the interval comes skips that tick; a failed run is reported and the next tick runs', async (t) => {
  t.mock.timers.enable({ apis: ['setInterval'] });
  const releases: (() => void)[] = [];
  const errors: unknown[] = [];
  let runs = 0;
  let fail = false;
  const schedule = runEveryInterval(
    10,
    () => {
      runs++;
      if (fail) return Promise.reject(new Error('boom'));
      return new Promise<void>((r) => releases.push(r));
    },
    (err) => errors.push(err),
  );
  try {
    assert.equal(runs, 1, 'the first run starts at once');
    t.mock.timers.tick(10);
    t.mock.timers.tick(10);
    await settle();
    assert.equal(runs, 1, 'no second run while the first is going');
    releases.shift()!();
    await settle();
    fail = true;
    t.mock.timers.tick(10);
    await settle();
    assert.equal(runs, 2);
    assert.deepEqual(errors.map((e) => (e as Error).message), ['boom']);
    t.mock.timers.tick(10);
    await settle();
    assert.equal(runs, 3, 'a failure does not stop the schedule');
    assert.equal(errors.length, 2);
  } finally {
    schedule.stop();
  }
  t.mock.timers.tick(50);
  await settle();
  assert.equal(runs, 3, 'nothing runs after stop');
});

/** A memory store that notes every compaction asked of it. */
function noting(): { store: MemoryStore; asked: number[] } {
  const store = new MemoryStore();
  const asked: number[] = [];
  const compact = store.compact.bind(store);
  store.compact = (revision: number) => {
    asked.push(revision);
    return compact(revision);
  };
  return { store, asked };
}

test('the first tick only notes the revision to compact to next', async (t) => {
  t.mock.timers.enable({ apis: ['setInterval'] });
  const { store, asked } = noting();
  try {
    const a = await store.optimisticPut('/k/a', new Uint8Array([1]), 0);
    const compactor = startCompactor(store, 40, (err) => assert.fail(String(err)));
    await settle();
    assert.deepEqual(asked, [], 'nothing to compact to before a revision has been seen');
    t.mock.timers.tick(40);
    await settle();
    compactor.stop();
    assert.deepEqual(asked, [a.revision]);
  } finally {
    await store.close();
  }
});

test('an interval of 0 compacts nothing, ever', async () => {
  // Real timers: a mocked interval of 0 would fire without end.
  const { store, asked } = noting();
  try {
    await store.optimisticPut('/k/a', new Uint8Array([1]), 0);
    const off = startCompactor(store, 0, (err) => assert.fail(String(err)));
    await new Promise((r) => setTimeout(r, 100));
    off.stop();
    assert.deepEqual(asked, []);
  } finally {
    await store.close();
  }
});

test('the schedule never keeps the process alive: its timer is unreferenced', async () => {
  const timers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
  const { store, asked } = noting();
  try {
    const before = timers();
    const compactor = startCompactor(store, 3_600_000, (err) => assert.fail(String(err)));
    try {
      assert.equal(timers(), before, 'no referenced timer added');
      await settle();
      assert.deepEqual(asked, []);
    } finally {
      compactor.stop();
    }
  } finally {
    await store.close();
  }
});
