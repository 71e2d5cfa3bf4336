// --authentication-token-webhook-config-file against a real TokenReview webhook over HTTPS on
// loopback (server CA and client certificate from its kubeconfig): the review exactly as kube
// sends it, the user it answers used everywhere (whoami, RBAC, impersonation, the signer attest
// admission, the audit log), kube's caching, and a webhook that refuses, errs, answers garbage,
// is down or never answers: 401, never a user, never a hung request.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, whoami, type TestServer } from './harness.js';
import { kubectlFor, writeTokenKubeconfig } from './kubectl.js';
import { requireTool } from './require-tool.js';
import { makeCACert, makeClientCert, makeSigningCA } from '../fixtures/certs.js';
import { startHttpsPeer, type HttpsPeer } from '../support/https-peer.js';
import { eventually } from '../support/polling.js';

const AUDIENCE = 'https://platform.example';
const CTB = '/apis/certificates.platform.io/v1beta1/clustertrustbundles';
const kubectlBinary = requireTool('kubectl', 'the token webhook tests drive kubectl with a webhook token');
const POLICY = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: everything}
rules:
- {verbs: ["*"], apiGroups: ["*"], resources: ["*"]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: corp-eng}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: everything}
subjects: [{kind: Group, name: "corp:eng"}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: bundle-writer}
rules:
- {verbs: [create], apiGroups: [certificates.platform.io], resources: [clustertrustbundles]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: corp-writers}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: bundle-writer}
subjects: [{kind: Group, name: "corp:writers"}]
`;

const USERS: Record<string, object> = {
  'wh-alice': { username: 'alice@corp', uid: 'u-9', groups: ['corp:eng'], extra: { 'corp.example/team': ['blue'] } },
  'wh-bob': { username: 'bob@corp', groups: ['corp:writers'] },
};

describe('token webhook', () => {
  let webhook: HttpsPeer;
  let server: TestServer;
  let dir: string;
  const reviews: any[] = [];
  let caPem: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'platform-webhook-'));
    const clientCA = await makeSigningCA('webhook-client-ca');
    const client = await makeClientCert(clientCA, 'platform-apiserver');
    webhook = await startHttpsPeer(
      (_req, body, res) => {
        const review = JSON.parse(body);
        reviews.push(review);
        const token: string = review.spec.token;
        const answer = (status: object, extra: object = {}) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'TokenReview', status, ...extra }));
        };
        if (USERS[token]) return answer({ authenticated: true, user: USERS[token] });
        if (token === 'wh-error') return answer({ authenticated: false, error: 'the directory is down' });
        if (token === 'wh-500') return void res.writeHead(500).end('{}');
        if (token === 'wh-other-audience') return answer({ authenticated: true, user: USERS['wh-alice'], audiences: ['https://elsewhere'] });
        if (token === 'wh-groups-string') return answer({ authenticated: true, user: { username: 'eve', groups: 'corp:eng' } });
        if (token === 'wh-wrong-kind') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', status: { authenticated: true, user: USERS['wh-alice'] } }));
        if (token === 'wh-authenticated-string') return answer({ authenticated: 'true', user: USERS['wh-alice'] });
        if (token === 'wh-html') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>login</html>');
        return answer({ authenticated: false });
      },
      { requestCert: true, clientCA: clientCA.pem },
    );
    const kubeconfig = join(dir, 'webhook.kubeconfig');
    writeFileSync(join(dir, 'webhook-ca.pem'), webhook.caPem);
    writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        `- name: authn\n  cluster:\n    server: ${webhook.url}/authenticate\n    certificate-authority: webhook-ca.pem`,
        'users:',
        `- name: apiserver\n  user:\n    client-certificate-data: ${Buffer.from(client.certPem).toString('base64')}\n    client-key-data: ${Buffer.from(client.keyPem).toString('base64')}`,
        'contexts:',
        '- name: webhook\n  context: {cluster: authn, user: apiserver}',
        'current-context: webhook',
      ].join('\n'),
    );
    writeFileSync(join(dir, 'policy.yaml'), POLICY);
    caPem = (await makeCACert()).pem;
    server = await startServer({
      args: [
        '--authentication-token-webhook-config-file', kubeconfig,
        '--api-audiences', AUDIENCE,
        '--authorization-policy-file', join(dir, 'policy.yaml'),
        '--audit-log-path', join(dir, 'audit.log'),
      ],
    });
  });
  after(async () => {
    await server?.stop();
    await webhook?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const reviewsOf = (token: string) => reviews.filter((r) => r.spec.token === token).length;

  test('the TokenReview is sent as kube sends it, and its user is the user', async () => {
    const r = await whoami(server, 'wh-alice');
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.json.status.userInfo, { username: 'alice@corp', uid: 'u-9', groups: ['corp:eng', 'system:authenticated'], extra: { 'corp.example/team': ['blue'] } });
    assert.deepEqual(reviews[0], {
      kind: 'TokenReview',
      apiVersion: 'authentication.k8s.io/v1beta1',
      metadata: { creationTimestamp: null },
      spec: { token: 'wh-alice', audiences: [AUDIENCE] },
      status: { user: {} },
    });
  });

  test("answers are cached for the TTL, authenticated or not; errors are not (kube's token cache)", async () => {
    await whoami(server, 'wh-alice');
    assert.equal(reviewsOf('wh-alice'), 1, 'a success is cached');
    assert.equal((await whoami(server, 'wh-nobody')).status, 401);
    assert.equal((await whoami(server, 'wh-nobody')).status, 401);
    assert.equal(reviewsOf('wh-nobody'), 1, 'authenticated: false is cached');
    assert.equal((await whoami(server, 'wh-error')).status, 401);
    assert.equal((await whoami(server, 'wh-error')).status, 401);
    assert.equal(reviewsOf('wh-error'), 2, 'status.error is not cached');
  });

  test('refusals, errors and malformed answers are 401, never a user', async () => {
    for (const token of ['wh-nobody', 'wh-error', 'wh-other-audience', 'wh-groups-string', 'wh-wrong-kind', 'wh-authenticated-string', 'wh-html']) {
      const r = await whoami(server, token);
      assert.equal(r.status, 401, `${token}: ${r.text}`);
    }
    const start = Date.now();
    assert.equal((await whoami(server, 'wh-500')).status, 401);
    assert.equal(reviewsOf('wh-500'), 5, "a 500 is retried with kube's backoff, 5 attempts in all");
    assert.ok(Date.now() - start < 15_000);
  });

  test('a webhook answering garbage, down, or never answering: 401 within kube\'s 30 s timeout, other requests unaffected', async () => {
    webhook.mode = 'garbage';
    assert.equal((await whoami(server, 'wh-garbage-1')).status, 401);
    await webhook.setDown(true);
    assert.equal((await whoami(server, 'wh-down-1')).status, 401);
    await webhook.setDown(false);
    webhook.mode = 'slow';
    const start = Date.now();
    const slow = whoami(server, 'wh-slow-1', { timeoutMs: 45_000 });
    // While the webhook stalls one request, others are served.
    const admin = await server.request('GET', '/apis/networking.platform.io/v1/servicecidrs');
    assert.equal(admin.status, 200);
    const r = await slow;
    const took = Date.now() - start;
    assert.equal(r.status, 401);
    assert.ok(took >= 29_000 && took < 40_000, `answered after ${took} ms`);
    webhook.mode = 'ok';
    assert.equal((await whoami(server, 'wh-alice')).status, 201, 'the cached user still works');
    assert.doesNotMatch(server.log(), /InternalError/);
  });

  test('a webhook user in RBAC, impersonation, the signer attest admission and the audit log', async () => {
    const bundle = (name: string) => ({ apiVersion: 'certificates.platform.io/v1beta1', kind: 'ClusterTrustBundle', metadata: { name }, spec: { signerName: 'example.com/issuer', trustBundle: caPem } });
    const refused = await server.request('POST', CTB, { token: 'wh-bob', body: bundle('example.com:issuer:bob') });
    assert.equal(refused.status, 403);
    assert.equal(refused.json.message, 'clustertrustbundles.certificates.platform.io "example.com:issuer:bob" is forbidden: user not permitted to attest for signerName "example.com/issuer"');
    const made = await server.request('POST', CTB, { token: 'wh-alice', body: bundle('example.com:issuer:alice') });
    assert.equal(made.status, 201, made.text);
    const as = await whoami(server, 'wh-alice', { headers: { 'Impersonate-User': 'carol', 'Impersonate-Group': 'corp:eng' } });
    assert.equal(as.status, 201, as.text);
    assert.equal(as.json.status.userInfo.username, 'carol');
    const audited = () => readFileSync(join(dir, 'audit.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l)).find((e) => e.verb === 'create' && e.objectRef?.resource === 'clustertrustbundles' && e.responseStatus?.code === 201);
    const create: any = await eventually(async () => audited(), Boolean, 10_000, 100);
    assert.deepEqual(create.user, { username: 'alice@corp', uid: 'u-9', groups: ['corp:eng', 'system:authenticated'], extra: { 'corp.example/team': ['blue'] } });
  });

  test('the webhook metrics', async () => {
    const m = (await server.request('GET', '/metrics')).text;
    assert.match(m, /authentication_token_cache_request_total\{status="hit"\} [1-9]/);
    assert.match(m, /authentication_token_cache_request_total\{status="miss"\} [1-9]/);
    assert.match(m, /authentication_token_cache_fetch_total\{status="error"\} [1-9]/);
    assert.match(m, /apiserver_delegated_authn_request_duration_seconds_count\{code="200"\} [1-9]/);
    assert.match(m, /apiserver_delegated_authn_request_total\{code="500"\} 5/);
  });

  describe('kubectl with a webhook token', { skip: !kubectlBinary }, () => {
    test('auth whoami, get and apply', async () => {
      const kubeconfig = writeTokenKubeconfig(join(dir, 'alice.kubeconfig'), server, 'wh-alice');
      const kubectl = kubectlFor(kubectlBinary!, kubeconfig);
      const me = await kubectl(['auth', 'whoami']);
      assert.equal(me.code, 0, me.stderr);
      assert.match(me.stdout, /Username\s+alice@corp\n/);
      assert.match(me.stdout, /UID\s+u-9\n/);
      assert.match(me.stdout, /Extra: corp\.example\/team\s+\[blue\]/);
      const can = await kubectl(['auth', 'can-i', 'create', 'servicecidrs']);
      assert.equal(can.stdout.trim(), 'yes', can.stderr);
      const asBob = await kubectl(['auth', 'can-i', 'delete', 'clustertrustbundles', '--as', 'bob@corp', '--as-group', 'corp:writers']);
      assert.equal(asBob.stdout.trim(), 'no');
      assert.equal(asBob.code, 1);
      const manifest = kubectl.manifest('cidr.yaml', { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'webhook-made' }, spec: { cidrs: ['10.78.0.0/24'] } });
      const applied = await kubectl(['apply', '-f', manifest]);
      assert.equal(applied.code, 0, applied.stderr);
      const got = await kubectl(['get', 'servicecidrs', 'webhook-made', '-o', 'jsonpath={.spec.cidrs[0]}']);
      assert.equal(got.stdout, '10.78.0.0/24');
    });
  });
});
