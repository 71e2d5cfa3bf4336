// The duration flags take Go durations, as kube-apiserver's flags do (one parser for them and
// for ?timeout=), and refuse a malformed or negative one with the flag named.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFlags } from './flags.js';

const parse = (...args: string[]) => parseFlags(args, 'test');

test('duration flags read Go durations', () => {
  const c = parse('--request-timeout', '1m30s', '--shutdown-timeout', '1.5h', '--shutdown-delay-duration', '250ms', '--etcd-compaction-interval', '0', '--max-event-loop-delay', '2000000ns');
  assert.equal(c.requestTimeoutMs, 90_000);
  assert.equal(c.shutdownTimeoutMs, 5_400_000);
  assert.equal(c.shutdownDelayMs, 250);
  assert.equal(c.compactionIntervalMs, 0);
  assert.equal(c.maxEventLoopDelayMs, 2);
  const d = parse();
  assert.deepEqual([d.requestTimeoutMs, d.shutdownTimeoutMs, d.shutdownDelayMs, d.compactionIntervalMs, d.maxEventLoopDelayMs], [60_000, 60_000, 0, 300_000, 100]);
});

test('malformed or negative durations are refused with the flag named', () => {
  assert.throws(() => parse('--request-timeout', '5 minutes'), { message: '--request-timeout: time: unknown unit " minutes" in duration "5 minutes"' });
  assert.throws(() => parse('--shutdown-timeout', '5'), { message: '--shutdown-timeout: time: missing unit in duration "5"' });
  assert.throws(() => parse('--etcd-compaction-interval', '1d'), /--etcd-compaction-interval: time: unknown unit "d"/);
  assert.throws(() => parse('--shutdown-delay-duration', '-1s'), /--shutdown-delay-duration: must not be negative/);
});
