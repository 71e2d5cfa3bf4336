// The Ruby smoke suite (test/clients/ruby/) against a server started as `npm start` runs it:
// Debian's ruby-kubeclient 4.9.3. Missing ruby or kubeclient: a loud SKIPPED locally, a failure
// in CI.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, type TestServer } from './harness.js';
import { requireModule } from './require-module.js';

const SUITE = join(dirname(fileURLToPath(import.meta.url)), '..', 'clients', 'ruby');
const ruby = requireModule('ruby', ['-e', 'require "kubeclient"; require "minitest"'], 'ruby-kubeclient (Ruby tooling such as krane uses it) is a supported client');

describe('Ruby kubeclient', { skip: !ruby }, () => {
  let server: TestServer;
  let home: string;
  before(async () => {
    server = await startServer();
    home = mkdtempSync(join(tmpdir(), 'platform-ruby-'));
  });
  after(async () => {
    await server?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  test('list, create, get, patch ×3, apply, watch and delete on both kinds; a 422 as an HttpError', async () => {
    const r = await new Promise<{ code: number; out: string }>((resolve) => {
      execFile(ruby!, ['smoke_test.rb'], { cwd: SUITE, env: { ...process.env, KUBECONFIG: server.kubeconfigPath, HOME: home }, timeout: 120_000 }, (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, out: `${String(stdout)}${String(stderr)}` });
      });
    });
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /^3 runs, \d+ assertions, 0 failures, 0 errors, 0 skips$/m, r.out);
  });
});
