// The etcd check's rate limit, on a fake clock and a probe the test answers: one probe per half
// deadline, checks meanwhile share the probe under way or get the last answer, and a slow old
// probe never overwrites the answer of a newer one.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rateLimitedCheck } from './etcd-health.js';

function harness() {
  let clock = 10_000;
  const probes: { deadline: number; resolve: () => void; reject: (e: Error) => void }[] = [];
  const check = rateLimitedCheck((deadline) => new Promise<void>((resolve, reject) => probes.push({ deadline, resolve, reject })), 2000, () => clock);
  return { check, probes, advance: (ms: number) => (clock += ms) };
}

test('one probe per second at the 2 s deadline; checks within the window share it or get the last answer', async () => {
  const { check, probes, advance } = harness();
  const a = check();
  const b = check();
  assert.equal(probes.length, 1, 'the second check shares the probe under way');
  assert.equal(probes[0]!.deadline, 12_000);
  probes[0]!.resolve();
  assert.deepEqual([await a, await b], [undefined, undefined]);
  advance(500);
  assert.equal(await check(), undefined, 'within the window: the last answer, no probe');
  assert.equal(probes.length, 1);
  advance(600);
  const c = check();
  assert.equal(probes.length, 2, 'past the window: a new probe');
  probes[1]!.reject(new Error('context deadline exceeded'));
  assert.match((await c) ?? '', /^etcd: /);
  advance(100);
  assert.match((await check()) ?? '', /^etcd: /, 'the failure is the last answer');
});

test('an older probe answering after a newer one does not overwrite its answer', async () => {
  const { check, probes, advance } = harness();
  const slow = check();
  advance(1500);
  const fast = check();
  probes[1]!.resolve();
  assert.equal(await fast, undefined);
  probes[0]!.reject(new Error('deadline'));
  assert.match((await slow) ?? '', /^etcd: /, 'its own caller hears its answer');
  advance(100);
  assert.equal(await check(), undefined, 'the newer answer stays');
});
