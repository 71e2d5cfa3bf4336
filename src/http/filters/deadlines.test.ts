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

/** The lists a Deadlines keeps (private): their timers and sweeps, looked at directly. */
interface ListView {
  head: DeadlineEntry | undefined;
  timer: NodeJS.Timeout | undefined;
  armedFor: number;
}
const listsOf = (d: Deadlines): Map<number, ListView> => (d as unknown as { lists: Map<number, ListView> }).lists;
const sweep = (d: Deadlines, list: ListView): void => (d as unknown as { sweep(l: ListView): void }).sweep(list);

test('entries with the same deadline expire in the order they were added', async () => {
  const deadlines = new Deadlines(false);
  const seen: string[] = [];
  const at = performance.now() + 10;
  for (const name of ['a', 'b', 'c']) deadlines.add(new Marker(name, seen), at, 10);
  for (let i = 0; i < 200 && seen.length < 3; i++) await sleep(10);
  assert.deepEqual(seen, ['a', 'b', 'c']);
});

test('keepAlive: the timer holds the process while an entry waits, and lets go once none does', () => {
  const held = new Deadlines(true);
  const entry = new Marker('x', []);
  held.add(entry, performance.now() + 60_000, 60_000);
  const list = listsOf(held).get(60_000)!;
  assert.equal(list.timer!.hasRef(), true);
  held.remove(entry);
  assert.equal(list.head, undefined);
  assert.equal(list.timer!.hasRef(), false, 'the armed timer stays, holding nothing up');
  // The next entry reuses the armed timer, which holds the process again.
  const timer = list.timer;
  held.add(entry, performance.now() + 60_000, 60_000);
  assert.equal(list.timer, timer);
  assert.equal(list.timer!.hasRef(), true);
  held.remove(entry);
  clearTimeout(list.timer);

  const free = new Deadlines(false);
  free.add(entry, performance.now() + 60_000, 60_000);
  const freeList = listsOf(free).get(60_000)!;
  assert.equal(freeList.timer!.hasRef(), false);
  free.remove(entry);
  clearTimeout(freeList.timer);
});

test('a sweep expires what its timer was armed for, even when the clock is a little short of it', () => {
  const deadlines = new Deadlines(false);
  const seen: string[] = [];
  deadlines.add(new Marker('due', seen), performance.now() + 60_000, 60_000);
  deadlines.add(new Marker('later', seen), performance.now() + 120_000, 60_000);
  const list = listsOf(deadlines).get(60_000)!;
  clearTimeout(list.timer);
  sweep(deadlines, list);
  assert.deepEqual(seen, ['due']);
  // The entry still waiting gets its own timer, and the list is kept.
  assert.equal(listsOf(deadlines).get(60_000), list);
  assert.ok(list.timer);
  assert.equal(list.armedFor, list.head!.at);
  clearTimeout(list.timer);
});

test('an expiry that throws: the other due entries still expire, then the first error is thrown; an emptied list is dropped', () => {
  const deadlines = new Deadlines(false);
  const seen: string[] = [];
  class Failing extends DeadlineEntry {
    constructor(private readonly name: string) {
      super();
    }
    expire(): void {
      seen.push(this.name);
      throw new Error(`${this.name} failed`);
    }
  }
  const now = performance.now();
  deadlines.add(new Failing('first'), now - 3, 7);
  deadlines.add(new Marker('between', seen), now - 2, 7);
  deadlines.add(new Failing('second'), now - 1, 7);
  const list = listsOf(deadlines).get(7)!;
  clearTimeout(list.timer);
  assert.throws(() => sweep(deadlines, list), { message: 'first failed' });
  assert.deepEqual(seen, ['first', 'between', 'second']);
  assert.equal(listsOf(deadlines).has(7), false);
});
