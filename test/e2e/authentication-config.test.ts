// --authentication-config against two real issuers over HTTPS on loopback (a Dex-like one for
// people, a GitHub-Actions-like one for workflows with its own discovery URL): claim and CEL
// mappings, validation rules, kube's email_verified rule, a key of one issuer refused for the
// other, kubectl whoami, the file re-read on change (a broken file keeps the last good one and
// fails /readyz), the reload metrics, and the start-up errors kube gives.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, whoami, type TestServer } from './harness.js';
import { kubectlFor, writeTokenKubeconfig } from './kubectl.js';
import { requireTool } from './require-tool.js';
import { startOidcIssuer, type OidcIssuer } from '../support/oidc-issuer.js';
import { eventually } from '../support/polling.js';

const kubectlBinary = requireTool('kubectl', 'the structured authentication tests run kubectl auth whoami');
const POLICY = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: deployer}
rules:
- {verbs: [get, list, watch, create, update, patch], apiGroups: [networking.platform.io], resources: [servicecidrs]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: deploy-workflow}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: deployer}
subjects: [{kind: User, name: "github:acme/deploy:refs/heads/main"}]
`;
const indent = (pem: string, n: number) => pem.trim().split('\n').map((l) => ' '.repeat(n) + l).join('\n');

function runMain(args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], { timeout: 60_000 }, (err, _stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stderr });
    });
  });
}

describe('structured authentication configuration', () => {
  let dex: OidcIssuer;
  let gha: OidcIssuer;
  let server: TestServer;
  let dir: string;
  let configPath: string;

  const config = (usernamePrefix = '') => `
apiVersion: apiserver.config.k8s.io/v1beta1
kind: AuthenticationConfiguration
jwt:
- issuer:
    url: ${dex.url}
    certificateAuthority: |
${indent(dex.caPem, 6)}
    audiences: [platform, kubectl]
    audienceMatchPolicy: MatchAny
  claimMappings:
    username: {claim: email, prefix: "${usernamePrefix}"}
    groups: {expression: "claims.groups.map(g, 'dex:' + g)"}
    uid: {claim: sub}
    extra:
    - key: example.com/tenant
      valueExpression: claims.tenant
  userValidationRules:
  - expression: "!user.username.startsWith('system:')"
    message: username cannot use the reserved system prefix
- issuer:
    url: ${gha.url}
    discoveryURL: ${gha.peer.url}/internal/discovery
    certificateAuthority: |
${indent(gha.caPem, 6)}
    audiences: [platform]
  claimValidationRules:
  - claim: repository
    requiredValue: acme/deploy
  - expression: "claims.ref == 'refs/heads/main'"
    message: only the main branch may deploy
  claimMappings:
    username: {expression: "'github:' + claims.repository + ':' + claims.ref"}
    groups: {expression: "['ci']"}
`;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'platform-authn-config-'));
    dex = await startOidcIssuer({ audience: 'platform', path: '/dex' });
    gha = await startOidcIssuer({ audience: 'platform', path: '/gha', discoveryPath: '/internal/discovery' });
    configPath = join(dir, 'authn.yaml');
    writeFileSync(configPath, config());
    writeFileSync(join(dir, 'policy.yaml'), POLICY);
    server = await startServer({ args: ['--authentication-config', configPath, '--authorization-policy-file', join(dir, 'policy.yaml')] });
  });
  after(async () => {
    await server?.stop();
    await dex?.stop();
    await gha?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const person = (claims: Record<string, unknown> = {}) => dex.token({ sub: 'u-1', email: 'jane@example.com', email_verified: true, groups: ['admins'], tenant: 'acme', ...claims });
  const workflow = (claims: Record<string, unknown> = {}) => gha.token({ sub: 'repo:acme/deploy:ref:refs/heads/main', repository: 'acme/deploy', ref: 'refs/heads/main', ...claims });
  const ready = <T extends { status: number }>(fn: () => Promise<T>) => eventually(fn, (r) => r.status === 201, 20_000, 250);

  test('a person from the first issuer: claim and CEL mappings', async () => {
    const r = await ready(async () => whoami(server, await person()));
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.json.status.userInfo, {
      username: 'jane@example.com',
      uid: 'u-1',
      groups: ['dex:admins', 'system:authenticated'],
      extra: { 'example.com/tenant': ['acme'] },
    });
    assert.equal((await whoami(server, await person({ aud: 'kubectl' }))).status, 201, 'MatchAny: any accepted audience');
    assert.equal((await whoami(server, await person({ email_verified: undefined }))).status, 201, 'email_verified absent: accepted, as kube');
  });

  test('a workflow from the second issuer (its own discovery URL), with its claim validation rules', async () => {
    const r = await ready(async () => whoami(server, await workflow()));
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.json.status.userInfo, { username: 'github:acme/deploy:refs/heads/main', groups: ['ci', 'system:authenticated'] });
  });

  test('tokens each issuer must refuse are 401', async () => {
    const cases: [string, string][] = [
      ['email not verified', await person({ email_verified: false })],
      ['email_verified a string', await person({ email_verified: 'true' })],
      ['no email claim', await person({ email: undefined })],
      ['email claim a list', await person({ email: ['jane@example.com'] })],
      ['uid claim (sub) missing', await person({ sub: undefined })],
      ['groups claim not a list (the CEL map fails)', await person({ groups: 5 })],
      ['tenant (extra) a number', await person({ tenant: 5 })],
      ['user validation rule: a system: username', await person({ email: 'system:admin' })],
      ['audience of neither issuer', await person({ aud: 'other' })],
      ['another repository', await workflow({ repository: 'mallory/deploy' })],
      ['repository claim missing', await workflow({ repository: undefined })],
      ['repository claim a number', await workflow({ repository: 7 })],
      ['another branch (CEL rule)', await workflow({ ref: 'refs/heads/feature' })],
      ['ref claim missing (CEL error)', await workflow({ ref: undefined })],
      ["the first issuer's key signing the second issuer's token", await gha.token({ repository: 'acme/deploy', ref: 'refs/heads/main' }, { key: dex.keys[0]! })],
      ["the second issuer's key with the first issuer's kid", await dex.token({ email: 'jane@example.com' }, { key: { ...gha.keys[0]!, kid: dex.keys[0]!.kid } })],
      ['expired', await workflow({ exp: Math.floor(Date.now() / 1000) - 5 })],
    ];
    for (const [name, token] of cases) {
      const r = await whoami(server, token);
      assert.equal(r.status, 401, `${name}: ${r.status} ${r.text.slice(0, 300)}`);
    }
    assert.doesNotMatch(server.log(), /InternalError/);
  });

  test('kubectl auth whoami with either issuer\'s token', { skip: !kubectlBinary }, async () => {
    for (const [token, name] of [
      [await person(), 'jane@example.com'],
      [await workflow(), 'github:acme/deploy:refs/heads/main'],
    ] as const) {
      const kubeconfig = writeTokenKubeconfig(join(dir, 'user.kubeconfig'), server, token);
      const kubectl = kubectlFor(kubectlBinary!, kubeconfig);
      const r = await kubectl(['auth', 'whoami']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, new RegExp(`Username\\s+${name.replace(/[.:/]/g, '\\$&')}\\n`));
      if (name.startsWith('github:')) {
        // The workflow's identity deploys: apply and get, as RBAC allows its user.
        const manifest = kubectl.manifest('cidr.yaml', { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'from-workflow' }, spec: { cidrs: ['10.79.0.0/24'] } });
        const applied = await kubectl(['apply', '-f', manifest]);
        assert.equal(applied.code, 0, applied.stderr);
        const got = await kubectl(['get', 'servicecidr', 'from-workflow', '-o', 'jsonpath={.spec.cidrs[0]}']);
        assert.equal(got.stdout, '10.79.0.0/24', got.stderr);
      } else {
        const denied = await kubectl(['get', 'servicecidrs']);
        assert.equal(denied.code, 1, 'the person has no RBAC rights here');
        assert.match(denied.stderr, /forbidden: User "jane@example.com" cannot list resource "servicecidrs"/);
      }
    }
  });

  test('the file is re-read: a broken one keeps the last good one and fails /readyz; a fixed one applies', async () => {
    writeFileSync(configPath, config().replace("claims.ref == 'refs/heads/main'", "claims.ref =="));
    const failing = await eventually(() => server.request('GET', '/readyz/authentication-config-file'), (r) => r.status === 500, 15_000, 200);
    assert.equal(failing.status, 500);
    assert.match(failing.text, /authentication configuration file .* is invalid, keeping the last good configuration: jwt\[1\]\.claimValidationRules\[1\]\.expression: Invalid value: "claims\.ref ==": compilation failed/);
    assert.equal((await server.request('GET', '/readyz', { anonymous: true })).status, 500);
    assert.equal((await server.request('GET', '/livez', { anonymous: true })).status, 200, 'liveness is not affected');
    assert.equal((await whoami(server, await workflow())).status, 201, 'the last good configuration still applies');
    assert.match((await server.request('GET', '/metrics')).text, /apiserver_authentication_config_controller_automatic_reloads_total\{status="failure",apiserver_id_hash="sha256:[0-9a-f]{64}"\} 1/);

    writeFileSync(configPath, config('dex:'));
    const renamed = await eventually(async () => whoami(server, await person()), (r) => r.json?.status?.userInfo?.username === 'dex:jane@example.com', 15_000, 200);
    assert.equal(renamed.json.status.userInfo.username, 'dex:jane@example.com');
    assert.equal((await server.request('GET', '/readyz', { anonymous: true })).status, 200);
    const metrics = (await server.request('GET', '/metrics')).text;
    assert.match(metrics, /apiserver_authentication_config_controller_automatic_reloads_total\{status="success",apiserver_id_hash="sha256:[0-9a-f]{64}"\} 1/);
    assert.match(metrics, /apiserver_authentication_config_controller_automatic_reload_last_timestamp_seconds\{status="success",apiserver_id_hash="sha256:[0-9a-f]{64}"\} \d/);
  });

  test("start-up errors as kube's: with --oidc-* flags, and a CEL rule that does not compile", async () => {
    const both = await runMain(['--authentication-config', configPath, '--oidc-issuer-url', dex.url, '--oidc-client-id', 'x', '--data-dir', join(dir, 'd1')]);
    assert.equal(both.code, 2);
    assert.equal(both.stderr.trim(), 'platform-apiserver: authentication-config file and oidc-* flags are mutually exclusive');
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, config().replace("claims.ref == 'refs/heads/main'", "claims.ref =="));
    const r = await runMain(['--authentication-config', bad, '--data-dir', join(dir, 'd2'), '--secure-port', '0']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^platform-apiserver: failed to load authentication configuration from file ".*bad\.yaml": jwt\[1\]\.claimValidationRules\[1\]\.expression: Invalid value: "claims\.ref ==": compilation failed: /);
  });
});
