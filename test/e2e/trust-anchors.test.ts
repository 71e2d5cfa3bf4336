// `platform-apiserver trust-anchors` against the real server over HTTPS: the kubelet's
// clusterTrustBundle projection rules (by name; by signer and label selector; unset selector
// matches nothing, empty matches all; no match is an error unless --optional), overlapping
// bundles de-duplicated by DER and sorted, and --watch rewriting its file atomically (a new
// inode) on each change of the merged set, and only then. One-shot runs call the command in
// process (a process per run costs seconds of TypeScript loading); --watch runs
// `src/main.ts trust-anchors` as a user does, and stops on SIGTERM.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, type TestServer } from './harness.js';
import { makeCACert, toPEM, type TestCert } from '../fixtures/certs.js';
import { runTrustAnchors } from '../../src/cli/trust-anchors/command.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CTB = '/apis/certificates.platform.io/v1beta1/clustertrustbundles';
const SIGNER = 'example.com/edge';
const OTHER = 'example.com/other';
const prefix = (signer: string) => `${signer.replace(/\//g, ':')}:`;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The command in this process (one-shot runs; the --watch test runs the real binary path). */
async function cli(args: string[]): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await runTrustAnchors(args, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), stopped: Promise.resolve() });
  return { code, stdout, stderr };
}

/** The expected merged PEM, computed independently: DER sorted bytewise, each re-encoded. */
const expected = (...certs: TestCert[]): string =>
  [...new Map(certs.map((c) => [c.der.toString('hex'), c.der])).values()]
    .sort(Buffer.compare)
    .map((d) => toPEM(d))
    .join('');

describe('trust-anchors command', () => {
  let server: TestServer;
  let kc: string[];
  let A: TestCert, B: TestCert, C: TestCert, D: TestCert, E: TestCert;
  const bundle = (name: string, certs: TestCert[], signer?: string, labels?: Record<string, string>) => ({
    apiVersion: 'certificates.platform.io/v1beta1',
    kind: 'ClusterTrustBundle',
    metadata: labels ? { name, labels } : { name },
    spec: { ...(signer ? { signerName: signer } : {}), trustBundle: certs.map((c) => c.pem).join('') },
  });
  const create = async (obj: object) => assert.equal((await server.request('POST', CTB, { body: obj })).status, 201);

  before(async () => {
    server = await startServer();
    kc = ['--kubeconfig', server.kubeconfigPath];
    [A, B, C, D, E] = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((n) => makeCACert({ commonName: `anchor-${n}` })));
    await create(bundle(`${prefix(SIGNER)}prod`, [A, B], SIGNER, { env: 'prod' }));
    await create(bundle(`${prefix(SIGNER)}dev`, [B, C], SIGNER, { env: 'dev' }));
    await create(bundle(`${prefix(OTHER)}prod`, [D], OTHER, { env: 'prod' }));
    await create(bundle('plain', [E, A]));
  });
  after(async () => {
    await server?.stop();
  });

  test('by name: that bundle, sorted; missing is an error unless --optional', async () => {
    const r = await cli([...kc, '--name', 'plain']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, expected(E, A));
    const missing = await cli([...kc, '--name', 'nope']);
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, 'platform-apiserver trust-anchors: while getting ClusterTrustBundle: clustertrustbundles.certificates.platform.io "nope" not found\n');
    const optional = await cli([...kc, '--name', 'nope', '--optional']);
    assert.deepEqual([optional.code, optional.stdout], [0, '']);
  });

  test('by signer: overlapping bundles merged without duplicates; selectors as in a projection', async () => {
    const all = await cli([...kc, '--signer', SIGNER, '--selector', '']);
    assert.equal(all.code, 0, all.stderr);
    assert.equal(all.stdout, expected(A, B, C));
    assert.equal(all.stdout.split('BEGIN CERTIFICATE').length - 1, 3);
    assert.equal((await cli([...kc, '--signer', SIGNER, '--selector', 'env=prod'])).stdout, expected(A, B));
    assert.equal((await cli([...kc, '--signer', SIGNER, '--selector', 'env in (dev,prod)'])).stdout, expected(A, B, C));
    // Only the signer's own bundles: env=prod of the other signer and the unsigned bundle stay out.
    assert.equal((await cli([...kc, '--signer', OTHER, '--selector', 'env=prod'])).stdout, expected(D));
    const none = await cli([...kc, '--signer', SIGNER, '--selector', 'env=staging']);
    assert.equal(none.code, 1);
    assert.equal(none.stderr, 'platform-apiserver trust-anchors: combination of signerName and labelSelector matched zero ClusterTrustBundles\n');
    const unset = await cli([...kc, '--signer', SIGNER]);
    assert.equal(unset.code, 1);
    assert.match(unset.stderr, /matched zero ClusterTrustBundles \(no --selector: as in a projection, an unset selector matches nothing/);
    assert.deepEqual(await cli([...kc, '--signer', SIGNER, '--optional']).then((r) => [r.code, r.stdout]), [0, '']);
  });

  test('usage mistakes exit 2', async () => {
    const both = await cli([...kc, '--name', 'plain', '--signer', SIGNER]);
    assert.deepEqual([both.code, both.stderr], [2, 'platform-apiserver trust-anchors: exactly one of --name and --signer is required\n']);
    const noOut = await cli([...kc, '--name', 'plain', '--watch']);
    assert.deepEqual([noOut.code, noOut.stderr], [2, 'platform-apiserver trust-anchors: --watch needs --out\n']);
  });

  test('--watch rewrites the file atomically when the merged set changes, and only then', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trust-anchors-'));
    const out = join(dir, 'ca.pem');
    const child = spawn(process.execPath, ['--import', 'tsx', join(repo, 'src', 'main.ts'), 'trust-anchors', ...kc, '--signer', SIGNER, '--selector', 'env', '--watch', '--out', out], {
      cwd: repo,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const writes = () => stderr.split('\n').filter((l) => l.includes(' wrote ')).length;
    const waitWrites = async (n: number) => {
      for (let i = 0; i < 600 && writes() < n; i++) await new Promise((r) => setTimeout(r, 50));
      assert.equal(writes(), n, stderr);
    };
    try {
      await waitWrites(1);
      assert.equal(readFileSync(out, 'utf8'), expected(A, B, C));
      let inode = statSync(out).ino;
      const rewritten = async (n: number, want: string) => {
        await waitWrites(n);
        assert.equal(readFileSync(out, 'utf8'), want);
        const now = statSync(out).ino;
        assert.notEqual(now, inode, 'replaced by rename, not rewritten in place');
        inode = now;
      };

      // A new bundle of the signer adds its anchors.
      await create(bundle(`${prefix(SIGNER)}canary`, [D], SIGNER, { env: 'canary' }));
      await rewritten(2, expected(A, B, C, D));
      // Changes that leave the merged set as it is do not rewrite: a label, another signer's bundle,
      // a bundle whose anchors are all already present.
      await server.request('PATCH', `${CTB}/${prefix(SIGNER)}dev`, { body: { metadata: { labels: { env: 'dev', team: 'x' } } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
      await create(bundle(`${prefix(OTHER)}more`, [E], OTHER, { env: 'prod' }));
      await create(bundle(`${prefix(SIGNER)}dup`, [A], SIGNER, { env: 'dup' }));
      // Moving a bundle out of the selector drops the anchors only it held.
      await server.request('PATCH', `${CTB}/${prefix(SIGNER)}dev`, { body: { metadata: { labels: null } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
      await rewritten(3, expected(A, B, D));
      // Content changes and deletion.
      const cur = (await server.request('GET', `${CTB}/${prefix(SIGNER)}canary`)).json;
      cur.spec.trustBundle = E.pem;
      assert.equal((await server.request('PUT', `${CTB}/${prefix(SIGNER)}canary`, { body: cur })).status, 200);
      await rewritten(4, expected(A, B, E));
      await server.request('DELETE', `${CTB}/${prefix(SIGNER)}prod`);
      await rewritten(5, expected(A, E));
      assert.deepEqual(stderr.split('\n').filter(Boolean).slice(-1), [`platform-apiserver trust-anchors: wrote ${out} (2 certificates)`]);
    } finally {
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
