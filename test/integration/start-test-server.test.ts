// platform-apiserver/testing (src/testing/index.ts), driven as a test author drives it: a real
// server in this process on a free loopback port, reached with @kubernetes/client-node through
// the kubeconfig text it gives; users, an RBAC policy, controllers on and off; stop() releases
// everything (the port, the temp dir, every handle: a process that stopped its servers exits on its own).
// The published shape (the packed package, its types, the example) is checked by test/packaging/.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as k8s from '@kubernetes/client-node';
import { startTestServer } from '../../src/testing/index.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SCIDR = { group: 'networking.platform.io', version: 'v1', plural: 'servicecidrs' };

function client(kubeconfig: string): k8s.CustomObjectsApi {
  const kc = new k8s.KubeConfig();
  kc.loadFromString(kubeconfig);
  return kc.makeApiClient(k8s.CustomObjectsApi);
}

async function serviceCIDRNames(kubeconfig: string): Promise<string[]> {
  const list = (await client(kubeconfig).listClusterCustomObject(SCIDR)) as { items: { metadata: { name: string } }[] };
  return list.items.map((i) => i.metadata.name);
}

test('resolves to a url, an admin kubeconfig client-node loads and stop(); controllers on by default', async (t) => {
  const started = performance.now();
  const server = await startTestServer();
  t.diagnostic(`startTestServer() with controllers: ${Math.round(performance.now() - started)} ms (the first in this process, module loading excluded)`);
  try {
    assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const kc = new k8s.KubeConfig();
    kc.loadFromString(server.kubeconfig);
    assert.equal(kc.getCurrentCluster()?.server, server.url);
    assert.deepEqual(await serviceCIDRNames(server.kubeconfig), ['kubernetes'], 'the default ServiceCIDR exists once started');
    const created = (await client(server.kubeconfig).createClusterCustomObject({ ...SCIDR, body: { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'extra' }, spec: { cidrs: ['10.96.0.0/16'] } } })) as { metadata: { resourceVersion: string } };
    assert.ok(Number(created.metadata.resourceVersion) > 0);
  } finally {
    await server.stop();
  }
});

test('controllers: false: only what the test writes; two servers in one process are independent', async (t) => {
  const started = performance.now();
  const [a, b] = [await startTestServer({ controllers: false }), await startTestServer({ controllers: false })];
  t.diagnostic(`two startTestServer({ controllers: false }) in turn: ${Math.round(performance.now() - started)} ms`);
  try {
    assert.notEqual(a.url, b.url);
    assert.deepEqual(await serviceCIDRNames(a.kubeconfig), []);
    await client(a.kubeconfig).createClusterCustomObject({ ...SCIDR, body: { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'only-in-a' }, spec: { cidrs: ['10.1.0.0/16'] } } });
    assert.deepEqual(await serviceCIDRNames(a.kubeconfig), ['only-in-a']);
    assert.deepEqual(await serviceCIDRNames(b.kubeconfig), []);
    await assert.rejects(serviceCIDRNames(b.kubeconfig.replace(b.token, a.token)), (err: k8s.ApiException<unknown>) => err.code === 401, "one server's token is not another's");
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
});

test('users and an RBAC policy (objects or YAML text): each user gets what the policy grants', async () => {
  const reader = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'servicecidr-reader' },
    rules: [{ apiGroups: ['networking.platform.io'], resources: ['servicecidrs'], verbs: ['get', 'list', 'watch'] }],
  };
  const binding = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'readers' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'servicecidr-reader' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'readers' }],
  };
  for (const policy of [[reader, binding], `${JSON.stringify(reader)}\n---\n${JSON.stringify(binding)}\n`]) {
    const server = await startTestServer({ controllers: false, users: [{ name: 'alice', groups: ['readers'] }, { name: 'bob', token: 'bobs-token' }], policy });
    try {
      assert.deepEqual(await serviceCIDRNames(server.kubeconfigFor('alice')), []);
      await assert.rejects(serviceCIDRNames(server.kubeconfigFor('bob')), (err: k8s.ApiException<unknown>) => err.code === 403);
      assert.match(server.kubeconfigFor('bob'), /token: bobs-token/);
      await assert.rejects(
        client(server.kubeconfigFor('alice')).createClusterCustomObject({ ...SCIDR, body: { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'x' }, spec: { cidrs: ['10.2.0.0/16'] } } }),
        (err: k8s.ApiException<unknown>) => err.code === 403,
      );
      assert.throws(() => server.kubeconfigFor('carol'), /no user "carol" \(the users are alice, bob\)/);
    } finally {
      await server.stop();
    }
  }
});

/** Runs `fn` with os.tmpdir() a fresh dir of its own; resolves with what is left in it afterwards. */
async function inOwnTmpdir(fn: (dir: string) => Promise<void>): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'platform-testing-tmp-'));
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  try {
    await fn(dir);
    return readdirSync(dir);
  } finally {
    process.env.TMPDIR = saved;
    if (saved === undefined) delete process.env.TMPDIR;
    rmSync(dir, { recursive: true, force: true });
  }
}

test('bad options are refused before anything starts, leaving no temp dir', async () => {
  const left = await inOwnTmpdir(async () => {
    await assert.rejects(startTestServer({ users: [{ name: 'a,b' }] }), /user name "a,b" must be non-empty, without quotes, commas or line breaks/);
    await assert.rejects(startTestServer({ users: [{ name: 'a' }, { name: 'a' }] }), /user "a" is listed twice/);
    await assert.rejects(startTestServer({ policy: 'kind: Nope\n' }), /--authorization-policy-file \S+: /);
    await assert.rejects(startTestServer({ flags: ['--no-such-flag'] }), /unknown option '--no-such-flag'/);
  });
  assert.deepEqual(left.filter((n) => n.startsWith('platform-apiserver-test-')), []);
});

test('stop() releases the port, the temp dir and every handle: a process that stopped its server exits on its own', async () => {
  const script = `
    const { startTestServer } = await import(${JSON.stringify(join(repo, 'src', 'testing', 'index.ts'))});
    const { readdirSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const ours = () => readdirSync(tmpdir()).filter((n) => n.startsWith('platform-apiserver-test-')).length;
    const server = await startTestServer();
    const during = ours();
    await server.stop();
    await server.stop();
    console.log(JSON.stringify({ url: server.url, during, after: ours() }));
  `;
  let out: { code: number | null; stdout: string; stderr: string } | undefined;
  await inOwnTmpdir(async (dir) => {
    out = await new Promise((resolve) => {
      const child = execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: repo, timeout: 60_000, env: { ...process.env, TMPDIR: dir } }, (_err, stdout, stderr) =>
        resolve({ code: child.exitCode, stdout, stderr }),
      );
    });
  });
  assert.equal(out!.code, 0, `the process exits by itself once the server stopped (killed at the timeout otherwise): ${out!.stderr}`);
  const seen = JSON.parse(out!.stdout) as { url: string; during: number; after: number };
  assert.deepEqual([seen.during, seen.after], [1, 0], 'its temp dir while it ran, none after');
  const refused = await fetch(seen.url, { signal: AbortSignal.timeout(10_000) }).then(
    () => undefined,
    (err: Error & { cause?: { code?: string } }) => err.cause?.code,
  );
  assert.equal(refused, 'ECONNREFUSED', 'nothing listens on the port any more');
});
