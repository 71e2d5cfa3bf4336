// npm test says how long to expect before it starts (scripts/test-duration.ts, its pretest): the
// documented estimate until a run passed here, then that run's time, recorded by the posttest.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function phase(name: string, record: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', join(repo, 'scripts', 'test-duration.ts'), name], { cwd: repo, timeout: 60_000, env: { ...process.env, TEST_RUNS_FILE: record } }, (err, _stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stderr }),
    );
  });
}

test('before a run: the estimate, then the last passing run; after a passing run: its time, recorded', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'platform-test-runs-'));
  try {
    const record = join(dir, 'cache', 'test-runs.json');
    const first = await phase('start', record);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stderr, /^npm test: typecheck, layer rules, then \d+ test files, two at a time; no run recorded here yet: about 10-20 minutes on 2 cores\n$/);
    // The run started 754 s ago and passed.
    writeFileSync(record, JSON.stringify({ startedAt: Date.now() - 754_000 }));
    const end = await phase('end', record);
    assert.equal(end.code, 0, end.stderr);
    assert.match(end.stderr, /^npm test: passed in 12 min 3[45] s\n$/);
    const next = await phase('start', record);
    assert.match(next.stderr, /; the last full run here took 12 min 3[45] s \(\d{4}-\d\d-\d\d \d\d:\d\d UTC\)\n$/);
    assert.ok(JSON.parse(readFileSync(record, 'utf8')).startedAt > 0);
    assert.equal((await phase('nonsense', record)).code, 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
