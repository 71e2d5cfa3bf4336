// The graceful stop's order and its timeout, with the server and storage stood in for.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { installShutdown } from './shutdown.js';

const quiet = { debug() {}, info() {}, warn() {}, error() {}, child() { return quiet; } };

test('not ready first, then the delay, then stop serving, then release, then exit 0', async () => {
  const steps: string[] = [];
  const s = installShutdown({
    logger: quiet,
    delayMs: 50,
    timeoutMs: 5000,
    signals: [],
    stopServing: async () => void steps.push(`stop serving (shutting down: ${s.shuttingDown})`),
    release: async () => void steps.push('release'),
    exit: (code) => void steps.push(`exit ${code}`),
  });
  assert.equal(s.shuttingDown, false);
  const started = Date.now();
  const done = s.stop('test');
  assert.equal(s.shuttingDown, true, 'readiness fails at once');
  assert.deepEqual(steps, [], 'nothing stops during the delay');
  await done;
  assert.ok(Date.now() - started >= 45);
  assert.deepEqual(steps, ['stop serving (shutting down: true)', 'release', 'exit 0']);
  await s.stop('again');
  assert.deepEqual(steps, ['stop serving (shutting down: true)', 'release', 'exit 0'], 'one stop only');
});

test('requests that outlive the shutdown timeout do not keep storage open', async () => {
  const steps: string[] = [];
  const s = installShutdown({
    logger: quiet,
    delayMs: 0,
    timeoutMs: 50,
    signals: [],
    stopServing: () => new Promise<void>(() => {}),
    release: async () => void steps.push('release'),
    exit: (code) => void steps.push(`exit ${code}`),
  });
  await s.stop('test');
  assert.deepEqual(steps, ['release', 'exit 0']);
});
