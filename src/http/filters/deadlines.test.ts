import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { DeadlineEntry, Deadlines } from './deadlines.js';

class Marker extends DeadlineEntry {
  constructor(
    readonly name: string,
    private readonly seen: string[],
  ) {
    super();
  }

  expire(): void {
    this.seen.push(this.name);
  }
}

test('entries expire in deadline order, whatever order they came in; a removed one never expires', async () => {
  const deadlines = new Deadlines(true);
  const seen: string[] = [];
  const now = performance.now();
  const late = new Marker('late', seen);
  const early = new Marker('early', seen);
  const gone = new Marker('gone', seen);
  const other = new Marker('other-list', seen);
  deadlines.add(late, now + 40, 1000);
  deadlines.add(early, now + 20, 1000);
  deadlines.add(gone, now + 10, 1000);
  deadlines.add(other, now + 30, 5);
  deadlines.remove(gone);
  deadlines.remove(gone);
  // Bounded: far past every deadline, however loaded the machine.
  for (let i = 0; i < 200 && seen.length < 3; i++) await sleep(10);
  assert.deepEqual(seen, ['early', 'other-list', 'late']);
});

test('an entry added to a list whose armed timer is for a later deadline is still on time; entries of a swept list can come back', async () => {
  const deadlines = new Deadlines(false);
  const seen: string[] = [];
  const now = performance.now();
  deadlines.add(new Marker('first-armed', seen), now + 60_000, 7);
  const sooner = new Marker('sooner', seen);
  deadlines.add(sooner, now + 15, 7);
  for (let i = 0; i < 200 && seen.length < 1; i++) await sleep(10);
  assert.deepEqual(seen, ['sooner']);
  const again = new Marker('again', seen);
  deadlines.add(again, performance.now() + 5, 3);
  for (let i = 0; i < 200 && seen.length < 2; i++) await sleep(10);
  assert.deepEqual(seen, ['sooner', 'again']);
});

test('an entry its own expiry adds back (a repeating wake-up) waits for its new deadline each time', async () => {
  const deadlines = new Deadlines(true);
  const at: number[] = [];
  const STEP = 30;
  class Repeating extends DeadlineEntry {
    expire(): void {
      at.push(performance.now());
      if (at.length < 3) deadlines.add(this, performance.now() + STEP, STEP);
    }
  }
  deadlines.add(new Repeating(), performance.now() + STEP, STEP);
  for (let i = 0; i < 300 && at.length < 3; i++) await sleep(10);
  await sleep(3 * STEP);
  assert.equal(at.length, 3);
  // A timer may fire up to a millisecond before a fractional deadline (the list sweeps what it was armed for).
  for (let i = 1; i < at.length; i++) assert.ok(at[i]! - at[i - 1]! >= STEP - 2, `wake-up ${i + 1} came ${(at[i]! - at[i - 1]!).toFixed(1)} ms after the one before`);
});
