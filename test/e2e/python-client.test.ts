// The Python client suite (test/clients/python/) against a server started as `npm start` runs
// it: Debian's python3-kubernetes 22.6 through /usr/bin/python3 (not whatever python comes first
// on PATH). Missing python3 or its kubernetes package: a loud SKIPPED locally, a failure in CI.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeCACert } from '../fixtures/certs.js';
import { startServer, type TestServer } from './harness.js';
import { requireModule } from './require-module.js';

const PYTHON = '/usr/bin/python3';
const SUITE = join(dirname(fileURLToPath(import.meta.url)), '..', 'clients', 'python');
const python = requireModule(PYTHON, ['-c', 'import kubernetes'], 'python3-kubernetes (the official Python client) is a supported client');

function run(args: string[], env: Record<string, string>, timeoutMs: number): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(PYTHON, args, { cwd: SUITE, env: { ...process.env, ...env }, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

describe('the official Python client (python3-kubernetes)', { skip: !python }, () => {
  let server: TestServer;
  let scratch: string;
  before(async () => {
    server = await startServer();
    scratch = mkdtempSync(join(tmpdir(), 'platform-python-'));
    writeFileSync(join(scratch, 'ca.pem'), (await makeCACert({ commonName: 'python-suite' })).pem);
  });
  after(async () => {
    await server?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  test('discovery, CRUD, four patch types, status, apply, watches, paging, delete-collection, 422 and 409', async () => {
    const r = await run(['-m', 'unittest', '-v'], { KUBECONFIG: server.kubeconfigPath, PLATFORM_TEST_CA_PEM: join(scratch, 'ca.pem'), HOME: scratch }, 240_000);
    // unittest reports on stderr: every test's line, then the failures in full.
    assert.equal(r.code, 0, `python suite failed:\n${r.stderr}\n${r.stdout}`);
    const ran = /^Ran (\d+) tests? in/m.exec(r.stderr);
    assert.ok(ran && Number(ran[1]) >= 15, r.stderr);
    assert.doesNotMatch(r.stderr, /skipped/i);
  });
});
