// The build's stamp (scripts/stamp-build-info.ts, run by `npm run build`): our version, the git
// commit and tree state as git tells them, the build date (SOURCE_DATE_EPOCH when set); outside a
// git checkout the git fields are empty. What the stamped build prints is checked on the packed
// package (install.test.ts).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function stamp(args: string[], env: Record<string, string> = {}): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'platform-stamp-'));
  try {
    const out = join(dir, 'build-info.json');
    execFileSync(process.execPath, ['--import', 'tsx', join(repo, 'scripts', 'stamp-build-info.ts'), ...args, '--out', out], { cwd: repo, env: { ...process.env, ...env }, timeout: 60_000 });
    return JSON.parse(readFileSync(out, 'utf8'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('in a git checkout: the version, HEAD, the tree state git reports and the build date', () => {
  const before = Date.now();
  const info = stamp([]);
  const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
  const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim();
  const dirty = execFileSync('git', ['status', '--porcelain'], { cwd: repo, encoding: 'utf8' }).trim() !== '';
  assert.deepEqual(Object.keys(info), ['version', 'gitCommit', 'gitTreeState', 'buildDate']);
  assert.equal(info.version, pkg.version);
  assert.equal(info.gitCommit, head);
  assert.equal(info.gitTreeState, dirty ? 'dirty' : 'clean');
  assert.match(info.buildDate!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.ok(Date.parse(info.buildDate!) >= Math.floor(before / 1000) * 1000 && Date.parse(info.buildDate!) <= Date.now());
});

test('outside a git checkout the git fields are empty; SOURCE_DATE_EPOCH fixes the date', () => {
  const dir = mkdtempSync(join(tmpdir(), 'platform-stamp-nogit-'));
  try {
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'platform-apiserver', version: '9.8.7' }));
    // GIT_CEILING_DIRECTORIES: git must not find a checkout above the temp dir.
    const info = stamp(['--repo', dir], { SOURCE_DATE_EPOCH: '86400', GIT_CEILING_DIRECTORIES: dirname(dir) });
    assert.deepEqual(info, { version: '9.8.7', gitCommit: '', gitTreeState: '', buildDate: '1970-01-02T00:00:00Z' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
