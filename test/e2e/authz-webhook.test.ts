// Webhook authorization through the real server (child process, real HTTPS both ways):
// --authorization-mode Node,Webhook,RBAC with kube's webhook flags. The webhook sees exactly
// the review kube sends; its allow allows, its deny is final (RBAC is never asked), its no
// opinion passes to RBAC; a webhook answering garbage gives 500 unless a later authorizer
// allows; system:masters and nodes reading trust bundles never reach it; kubectl auth can-i
// asks the whole chain; the decisions show in kube's metrics. And --authorization-mode=AlwaysDeny.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type TestServer } from './harness.js';
import { kubectlFor } from './kubectl.js';
import { requireTool } from './require-tool.js';
import { startSarWebhook, type SarWebhook } from '../support/sar-webhook.js';

const CTB = '/apis/certificates.platform.io/v1beta1/clustertrustbundles';
const SC = '/apis/networking.platform.io/v1/servicecidrs';
const SSAR = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
const TOKENS = ['alice-token,alice,uid-alice', 'dan-token,dan,uid-dan', 'nora-token,nora,uid-nora', 'gary-token,gary,uid-gary', 'node-token,system:node:n1,uid-n1,system:nodes'].join('\n');

describe('webhook authorization (--authorization-mode Node,Webhook,RBAC)', () => {
  let hook: SarWebhook;
  let server: TestServer;
  let dir: string;
  const usersAsked = () => hook.requests.map((r) => r.json?.spec?.user);

  before(async () => {
    hook = await startSarWebhook((review) => {
      switch (review?.spec?.user) {
        case 'alice':
          return { status: { allowed: true, reason: 'alice may' } };
        case 'dan':
          // Banned from trust bundles; on anything else (asking a review) RBAC decides.
          return review.spec.resourceAttributes?.resource === 'clustertrustbundles' ? { status: { allowed: false, denied: true, reason: 'dan is banned' } } : { status: { allowed: false } };
        case 'gary':
          return { raw: 'this is not a review' };
        default:
          return { status: { allowed: false, reason: 'no opinion from the webhook' } };
      }
    });
    dir = mkdtempSync(join(tmpdir(), 'platform-authz-webhook-'));
    writeFileSync(join(dir, 'tokens.csv'), TOKENS);
    server = await startServer({
      args: ['--token-auth-file', join(dir, 'tokens.csv'), '--authorization-mode', 'Node,Webhook,RBAC', '--authorization-webhook-config-file', hook.kubeconfigPath, '--controllers=-service-cidr-controller'],
    });
  });
  after(async () => {
    await server?.stop();
    await hook?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the webhook gets the review kube sends, and its allow lets the request through', async () => {
    hook.requests.length = 0;
    const r = await server.request('GET', `${SC}/nothing-here`, { token: 'alice-token' });
    assert.equal(r.status, 404, r.text);
    assert.equal(hook.requests.length, 1);
    assert.equal(hook.requests[0]!.url, '/authorize?timeout=30s');
    assert.equal(
      hook.requests[0]!.body,
      '{"kind":"SubjectAccessReview","apiVersion":"authorization.k8s.io/v1beta1","metadata":{"creationTimestamp":null},"spec":{"resourceAttributes":{"verb":"get","group":"networking.platform.io","version":"v1","resource":"servicecidrs","name":"nothing-here"},"user":"alice","group":["system:authenticated"],"uid":"uid-alice"},"status":{"allowed":false}}',
    );
    // Allowed answers are cached (5m by default): the same question is not asked again.
    assert.equal((await server.request('GET', `${SC}/nothing-here`, { token: 'alice-token' })).status, 404);
    assert.equal(hook.requests.length, 1);
  });

  test("the webhook's deny is final: RBAC, which would allow, is never asked", async () => {
    const r = await server.request('GET', CTB, { token: 'dan-token' });
    assert.equal(r.status, 403, r.text);
    assert.equal(r.json.message, 'clustertrustbundles.certificates.platform.io is forbidden: User "dan" cannot list resource "clustertrustbundles" in API group "certificates.platform.io" at the cluster scope: dan is banned');
  });

  test('no opinion passes to RBAC: allowed where RBAC allows, 403 with the reason where it does not', async () => {
    assert.equal((await server.request('GET', CTB, { token: 'nora-token' })).status, 200);
    const r = await server.request('DELETE', `${SC}/kubernetes`, { token: 'nora-token' });
    assert.equal(r.status, 403, r.text);
    assert.match(r.json.message, /User "nora" cannot delete resource "servicecidrs" in API group "networking\.platform\.io" at the cluster scope: no opinion from the webhook$/);
  });

  test('a webhook answering garbage: RBAC may still allow; otherwise 500, never a 2xx', async () => {
    assert.equal((await server.request('GET', CTB, { token: 'gary-token' })).status, 200);
    const r = await server.request('DELETE', `${SC}/kubernetes`, { token: 'gary-token' });
    assert.equal(r.status, 500, r.text);
    assert.equal(r.json.reason, 'InternalError');
    assert.match(r.json.message, /^Internal error occurred: the webhook's answer is not JSON/);
    // SelfSubjectAccessReview reports it as the evaluation error.
    const review = await server.request('POST', SSAR, { token: 'gary-token', body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'delete', group: 'networking.platform.io', resource: 'servicecidrs' } } } });
    assert.equal(review.status, 201, review.text);
    assert.equal(review.json.status.allowed, false);
    assert.match(review.json.status.evaluationError, /the webhook's answer is not JSON/);
  });

  test('system:masters and a node reading trust bundles never reach the webhook', async () => {
    hook.requests.length = 0;
    assert.equal((await server.request('GET', SC)).status, 200);
    assert.equal((await server.request('GET', CTB, { token: 'node-token' })).status, 200);
    assert.deepEqual(usersAsked(), []);
    // A node doing anything else is asked about like anyone.
    assert.equal((await server.request('GET', SC, { token: 'node-token' })).status, 403);
    assert.deepEqual(usersAsked(), ['system:node:n1']);
  });

  test('SelfSubjectRulesReview: RBAC\'s rules, incomplete, with the webhook\'s evaluation error', async () => {
    const r = await server.request('POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', { token: 'nora-token', body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: 'default' } } });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.status.incomplete, true);
    assert.equal(r.json.status.evaluationError, 'webhook authorizer does not support user rule resolution');
    assert.ok(r.json.status.resourceRules.length > 0);
  });

  const kubectlBinary = requireTool('kubectl', 'kubectl auth can-i against a webhook decision');
  test('kubectl auth can-i asks the whole chain, webhook included', { skip: !kubectlBinary }, async () => {
    const kubectl = kubectlFor(kubectlBinary!, server.kubeconfigPath);
    const yes = await kubectl(['auth', 'can-i', 'delete', 'servicecidrs', '--as', 'alice']);
    assert.equal(yes.stdout.trim(), 'yes', yes.stderr);
    assert.equal(yes.code, 0);
    const no = await kubectl(['auth', 'can-i', 'get', 'clustertrustbundles', '--as', 'dan']);
    assert.equal(no.stdout.trim(), 'no - dan is banned');
    assert.equal(no.code, 1);
    const rbac = await kubectl(['auth', 'can-i', 'get', 'clustertrustbundles', '--as', 'nora']);
    assert.equal(rbac.stdout.trim(), 'yes');
  });

  test("kube's authorization metrics count the decisions and the webhook's round-trips", async () => {
    const scrape = async (): Promise<(series: string) => number> => {
      const m = (await server.request('GET', '/metrics')).text;
      return (series) => Number(new RegExp(`^${series.replace(/[{}"]/g, '\\$&')} (\\S+)$`, 'm').exec(m)?.[1] ?? 0);
    };
    const DECISIONS = 'apiserver_authorization_decisions_total';
    const EVALUATIONS = 'apiserver_authorization_webhook_evaluations_total';
    const series = [
      `${DECISIONS}{type="Webhook",name="default",decision="allowed"}`,
      `${DECISIONS}{type="Webhook",name="default",decision="denied"}`,
      `${DECISIONS}{type="RBAC",name="rbac",decision="allowed"}`,
      `${DECISIONS}{type="Node",name="node",decision="allowed"}`,
      `${EVALUATIONS}{name="default",result="success"}`,
      `${EVALUATIONS}{name="default",result="error"}`,
      'apiserver_authorization_webhook_evaluations_fail_open_total{name="default",result="error"}',
      'apiserver_authorization_webhook_duration_seconds_count{name="default",result="success"}',
    ];
    const before = await scrape();
    // Names no earlier test asked about, so no cached answer stands in for the webhook.
    assert.equal((await server.request('GET', `${SC}/metrics-alice`, { token: 'alice-token' })).status, 404); // webhook allows
    assert.equal((await server.request('GET', `${CTB}/metrics-dan`, { token: 'dan-token' })).status, 403); // webhook denies
    assert.equal((await server.request('GET', `${CTB}/metrics-nora`, { token: 'nora-token' })).status, 404); // no opinion, RBAC allows
    assert.equal((await server.request('GET', `${CTB}/metrics-node`, { token: 'node-token' })).status, 404); // Node allows, webhook never asked
    assert.equal((await server.request('GET', `${SC}/metrics-gary`, { token: 'gary-token' })).status, 500); // garbage: no opinion with an error
    const after = await scrape();
    const delta = Object.fromEntries(series.map((name) => [name, after(name) - before(name)]));
    assert.deepEqual(delta, {
      [series[0]!]: 1,
      [series[1]!]: 1,
      [series[2]!]: 1,
      [series[3]!]: 1,
      [series[4]!]: 3,
      [series[5]!]: 1,
      [series[6]!]: 1,
      [series[7]!]: 3,
    });
  });
});

describe('--authorization-mode=AlwaysDeny', () => {
  let server: TestServer;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'platform-always-deny-'));
    writeFileSync(join(dir, 'tokens.csv'), TOKENS);
    server = await startServer({ args: ['--token-auth-file', join(dir, 'tokens.csv'), '--authorization-mode', 'AlwaysDeny'] });
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('denies everyone but system:masters (and the public health paths)', async () => {
    assert.equal((await server.request('GET', SC)).status, 200);
    const r = await server.request('GET', CTB, { token: 'alice-token' });
    assert.equal(r.status, 403);
    assert.match(r.json.message, /: Everything is forbidden\.$/);
    assert.equal((await server.request('GET', '/readyz', { anonymous: true })).status, 200);
    const review = await server.request('POST', SSAR, { token: 'alice-token', body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { nonResourceAttributes: { verb: 'get', path: '/version' } } } });
    assert.equal(review.status, 403, 'even asking is forbidden');
  });
});
