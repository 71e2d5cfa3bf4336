// The etcd fault checker, short and bounded for CI (test/support/etcd-chaos.ts): two replicas
// on a 3-member etcd, about 30 s of writes and watches under faults, including one restore to
// an older snapshot. `npm run chaos` runs it for longer and prints its figures.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requireEtcd } from '../support/etcd-process.js';
import { requireTool } from '../e2e/require-tool.js';
import { runChaos } from '../support/etcd-chaos.js';

const haveTools = requireEtcd('the fault checker runs a real 3-member etcd') !== undefined && requireTool('etcdctl', "the fault checker's faults and ground truth use etcdctl") !== undefined;

test('under etcd faults, caches equal etcd, watches have no gap or duplicate, no write is lost or wrongly failed', { skip: !haveTools, timeout: 240_000 }, async () => {
  const seed = Number(process.env.CHAOS_SEED ?? Date.now() % 100000);
  const figures = await runChaos({ durationMs: Number(process.env.CHAOS_CI_MS ?? 30_000), members: 3, seed, faultEveryMs: 3500, restore: true });
  const faults = Object.values(figures.faults).reduce((a, b) => a + b, 0);
  assert.deepEqual(figures.divergences, [], `seed ${seed}`);
  assert.ok(faults >= 4, `faults were injected (${JSON.stringify(figures.faults)})`);
  assert.ok(figures.writes.acknowledged > 50 && figures.eventsChecked > 100, `traffic: ${JSON.stringify(figures)}`);
  assert.ok(figures.quietChecks >= 1);
});
