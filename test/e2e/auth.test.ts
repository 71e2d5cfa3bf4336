// Authentication, RBAC, impersonation, signer attestation and the self-review APIs, through
// real HTTPS and the real kubectl (which sends its reviews as protobuf).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type TestServer } from './harness.js';
import { kubectlFor, type Kubectl } from './kubectl.js';
import { requireTool } from './require-tool.js';
import { makeCACert } from '../fixtures/certs.js';

const POLICY = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: cidr-reader}
rules:
- {verbs: [get, list, watch], apiGroups: [networking.platform.io], resources: [servicecidrs]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: alice-reads}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cidr-reader}
subjects: [{kind: User, name: alice}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: bundle-writer}
rules:
- {verbs: [create, update, delete], apiGroups: [certificates.platform.io], resources: [clustertrustbundles]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: example-signer}
rules:
- {verbs: [attest], apiGroups: [certificates.platform.io], resources: [signers], resourceNames: ["example.com/*"]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: writers}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: bundle-writer}
subjects: [{kind: User, name: carol}, {kind: User, name: dave}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: dave-attests}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: example-signer}
subjects: [{kind: User, name: dave}]
`;

const SC = '/apis/networking.platform.io/v1/servicecidrs';
const CTB = '/apis/certificates.platform.io/v1beta1/clustertrustbundles';
const binary = requireTool('kubectl', 'the auth end-to-end tests drive kubectl auth');

describe('authentication and authorization', () => {
  let server: TestServer;
  let kubectl: Kubectl | undefined;
  let dir: string;
  let caPem: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'platform-auth-'));
    writeFileSync(join(dir, 'policy.yaml'), POLICY);
    writeFileSync(join(dir, 'tokens.csv'), 'alice-token,alice,u-1,devs\ncarol-token,carol,u-3\ndave-token,dave,u-4\n');
    server = await startServer({ args: ['--authorization-policy-file', join(dir, 'policy.yaml'), '--token-auth-file', join(dir, 'tokens.csv')] });
    if (binary) kubectl = kubectlFor(binary, server.kubeconfigPath);
    caPem = (await makeCACert()).pem;
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('RBAC: reads allowed by a binding, writes refused in kube-apiserver words', async () => {
    assert.equal((await server.request('GET', SC, { token: 'alice-token' })).status, 200);
    const r = await server.request('POST', SC, { token: 'alice-token', body: { metadata: { name: 'x' }, spec: { cidrs: ['10.0.0.0/8'] } } });
    assert.equal(r.status, 403);
    assert.deepEqual(r.json, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'servicecidrs.networking.platform.io is forbidden: User "alice" cannot create resource "servicecidrs" in API group "networking.platform.io" at the cluster scope',
      reason: 'Forbidden',
      details: { group: 'networking.platform.io', kind: 'servicecidrs' },
      code: 403,
    });
  });

  test('every authenticated user may read ClusterTrustBundles, and nothing more by default', async () => {
    assert.equal((await server.request('GET', CTB, { token: 'alice-token' })).status, 200);
    assert.equal((await server.request('GET', '/apis/networking.platform.io/v1', { token: 'carol-token' })).status, 200, 'discovery');
    assert.equal((await server.request('GET', SC, { token: 'carol-token' })).status, 403);
  });

  test('signer attestation: create permission is not enough; attest on the domain is', async () => {
    const bundle = (name: string) => ({ apiVersion: 'certificates.platform.io/v1beta1', kind: 'ClusterTrustBundle', metadata: { name }, spec: { signerName: 'example.com/issuer', trustBundle: caPem } });
    const refused = await server.request('POST', CTB, { token: 'carol-token', body: bundle('example.com:issuer:a') });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.json.message, 'clustertrustbundles.certificates.platform.io "example.com:issuer:a" is forbidden: user not permitted to attest for signerName "example.com/issuer"');
    const invalidFirst = await server.request('POST', CTB, { token: 'carol-token', body: bundle('wrong-prefix') });
    assert.equal(invalidFirst.status, 422, 'validation answers before admission');
    const allowed = await server.request('POST', CTB, { token: 'dave-token', body: bundle('example.com:issuer:a') });
    assert.equal(allowed.status, 201, allowed.text);
    const plain = await server.request('POST', CTB, { token: 'carol-token', body: { ...bundle('plain'), spec: { trustBundle: caPem } } });
    assert.equal(plain.status, 201, 'no signer, no attest check');
  });

  test('impersonation needs the impersonate verb', async () => {
    const r = await server.request('GET', SC, { token: 'alice-token', headers: { 'Impersonate-User': 'bob' } });
    assert.equal(r.status, 403);
    assert.equal(r.json.message, 'users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope');
  });

  test('a broken policy file keeps the last good policy and fails readiness until it is fixed', async () => {
    const policyPath = join(dir, 'policy.yaml');
    const waitForReadyz = async (code: number) => {
      for (let i = 0; i < 100; i++) {
        const r = await server.request('GET', '/readyz?verbose', { anonymous: true });
        if (r.status === code) return r;
        await new Promise((res) => setTimeout(res, 100));
      }
      throw new Error(`readyz never answered ${code}`);
    };
    writeFileSync(policyPath, 'kind: [broken\n');
    const failing = await waitForReadyz(500);
    // As kube: the aggregate withholds the reason, the check's own path (for admins) gives it.
    assert.match(failing.text, /\[-\]authorization-policy-file failed: reason withheld\n/);
    assert.match(failing.text, /readyz check failed\n$/);
    const one = await server.request('GET', '/readyz/authorization-policy-file');
    assert.equal(one.status, 500);
    assert.match(one.text, /^internal server error: authorization policy file .* is invalid, keeping the last good policy/);
    assert.equal((await server.request('GET', SC, { token: 'alice-token' })).status, 200, 'the last good policy still applies');
    writeFileSync(policyPath, POLICY);
    const ok = await waitForReadyz(200);
    assert.match(ok.text, /readyz check passed\n$/);
  });

  describe('kubectl auth', { skip: !binary }, () => {
    test('whoami, for the admin and as another user', async () => {
      const me = await kubectl!(['auth', 'whoami']);
      assert.equal(me.code, 0, me.stderr);
      assert.match(me.stdout, /Username\s+admin\n/);
      assert.match(me.stdout, /Groups\s+\[system:masters system:authenticated\]/);
      const as = await kubectl!(['auth', 'whoami', '--as', 'alice', '--as-group', 'devs']);
      assert.match(as.stdout, /Username\s+alice\n/);
      assert.match(as.stdout, /Groups\s+\[devs system:authenticated\]/);
    });

    test('can-i answers yes and no with the exit code, with --as', async () => {
      const yes = await kubectl!(['auth', 'can-i', 'list', 'servicecidrs', '--as', 'alice']);
      assert.equal(yes.stdout.trim(), 'yes');
      assert.equal(yes.code, 0);
      const no = await kubectl!(['auth', 'can-i', 'delete', 'scidr', '--as', 'alice']);
      assert.equal(no.stdout.trim(), 'no');
      assert.equal(no.code, 1);
      const ctb = await kubectl!(['auth', 'can-i', 'get', 'ctb', '--as', 'alice']);
      assert.equal(ctb.stdout.trim(), 'yes');
    });

    test('can-i --list shows the rules that apply', async () => {
      const r = await kubectl!(['auth', 'can-i', '--list', '--as', 'alice']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /servicecidrs\.networking\.platform\.io\s+\[\]\s+\[\]\s+\[get list watch\]/);
      assert.match(r.stdout, /clustertrustbundles\.certificates\.platform\.io\s+\[\]\s+\[\]\s+\[get list watch\]/);
    });
  });
});
