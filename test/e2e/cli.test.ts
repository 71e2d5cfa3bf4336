// The command-line contract: kube-apiserver flag names, the token file, the memory backend,
// bad flags refused with a clear message and exit code 2.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from './harness.js';

function runMain(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], { timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

describe('command line', () => {
  test('bad flags exit 2 with a message and no stack trace', async () => {
    const r = await runMain(['--storage-backend', 'mysql']);
    assert.equal(r.code, 2);
    assert.equal(r.stderr.trim(), 'platform-apiserver: --storage-backend must be sqlite, memory or etcd, not "mysql"');
    const p = await runMain(['--secure-port', 'x']);
    assert.equal(p.code, 2);
    assert.match(p.stderr, /--secure-port.*must be a port number/);
    assert.equal(p.stderr.trim().split('\n').length, 1, `printed once: ${p.stderr}`);
    const u = await runMain(['--bogus']);
    assert.equal(u.code, 2);
    assert.equal(u.stderr, "platform-apiserver: unknown option '--bogus'\n");
  });

  test('--token-auth-file users authenticate; the admin token and kubeconfig are private files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'platform-cli-'));
    const tokens = join(dir, 'tokens.csv');
    writeFileSync(tokens, 'alice-token,alice,u-1,"devs,qa"\n');
    const server = await startServer({ args: ['--token-auth-file', tokens] });
    try {
      const r = await server.request('GET', '/apis/certificates.platform.io/v1beta1/clustertrustbundles', { token: 'alice-token' });
      assert.equal(r.status, 200, r.text);
      const w = await server.request('GET', '/apis/networking.platform.io/v1/servicecidrs', { token: 'alice-token' });
      assert.equal(w.status, 403, 'without a policy only the built-in roles apply');
      assert.equal(statSync(join(server.dataDir, 'admin.token')).mode & 0o777, 0o600);
      assert.equal(statSync(server.kubeconfigPath).mode & 0o777, 0o600);
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('--storage-backend memory keeps nothing across restarts; sqlite keeps everything', async () => {
    const body = { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'kept' }, spec: { cidrs: ['10.0.0.0/8'] } };
    const mem = await startServer({ args: ['--storage-backend', 'memory'] });
    assert.equal((await mem.request('POST', '/apis/networking.platform.io/v1/servicecidrs', { body })).status, 201);
    await mem.stop({ keepData: true });
    const mem2 = await startServer({ dataDir: mem.dataDir, removeOnStop: true, args: ['--storage-backend', 'memory'] });
    assert.equal((await mem2.request('GET', '/apis/networking.platform.io/v1/servicecidrs/kept')).status, 404);
    assert.equal(mem2.token, mem.token, 'the admin token is kept in the data dir');
    await mem2.stop();
  });
});
