// The SubjectAccessReview webhook authorizer against a real HTTPS webhook on loopback: the exact
// bodies kube sends (v1 and v1beta1), the decisions read back, the cache and its TTLs, retries,
// a webhook that is slow, down or answers garbage (bounded, never a decision it did not make), and
// the kept-alive connections let go when a chain is replaced or closed.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import type { AuthorizationAttributes } from '../../src/auth/authorizer.js';
import type { AuthorizationObserver } from '../../src/auth/authorization-observer.js';
import { WebhookAuthorizer, type WebhookAuthorizerOptions } from '../../src/auth/webhook/webhook-authorizer.js';
import { loadWebhookTarget } from '../../src/config/webhook-kubeconfig.js';
import { compileMatchCondition, matchConditions } from '../../src/auth/webhook/match-conditions.js';
import { startSarWebhook, type SarWebhook } from '../support/sar-webhook.js';
import { eventually } from '../support/polling.js';
import { buildAuthorization } from '../../src/config/authorizer-chain.js';
import type { RbacPolicy } from '../../src/auth/rbac/rbac-types.js';

const alice = { username: 'alice', uid: 'uid-1', groups: ['devs', 'system:authenticated'], extra: { 'example.com/team': ['a', 'b'] } };

function attrs(over: Partial<AuthorizationAttributes> = {}): AuthorizationAttributes {
  return { user: alice, verb: 'list', isResourceRequest: true, path: '/apis/networking.platform.io/v1/servicecidrs', apiGroup: 'networking.platform.io', apiVersion: 'v1', resource: 'servicecidrs', subresource: '', namespace: '', name: '', ...over };
}

function recorder() {
  const events: string[] = [];
  const observer: AuthorizationObserver = {
    decision: (t, n, d) => events.push(`decision ${t}/${n} ${d}`),
    webhookEvaluation: (n, r) => events.push(`evaluation ${n} ${r}`),
    webhookFailOpen: (n, r) => events.push(`fail-open ${n} ${r}`),
    matchConditions: (t, n, o) => events.push(`match ${t}/${n} ${o}`),
    configReload: (s) => events.push(`reload ${s}`),
  };
  return { events, observer };
}

describe('webhook authorizer over HTTPS', () => {
  let hook: SarWebhook;
  const make = async (o: Partial<WebhookAuthorizerOptions> = {}) => {
    const r = recorder();
    const authorizer = new WebhookAuthorizer({
      name: 'default',
      target: await loadWebhookTarget(hook.kubeconfigPath),
      version: 'v1',
      authorizedTtlMs: 0,
      unauthorizedTtlMs: 0,
      timeoutMs: 5000,
      failurePolicy: 'NoOpinion',
      observer: r.observer,
      logger: pino({ level: 'silent' }),
      retry: { initialMs: 10, factor: 1, steps: 5 },
      ...o,
    });
    return { authorizer, events: r.events };
  };

  before(async () => {
    hook = await startSarWebhook(() => ({ status: { allowed: true } }), { token: 'webhook-secret' });
  });
  after(() => hook.close());

  test('sends the v1 review kube sends, with the selectors as requirements', async () => {
    hook.requests.length = 0;
    const { authorizer } = await make();
    const r = await authorizer.authorize(attrs({ labelSelector: 'team in (a,b),!legacy,tier>3', fieldSelector: 'spec.signerName!=x' }));
    assert.equal(r.decision, 'allow');
    const [req] = hook.requests;
    assert.equal(req!.url, '/authorize?timeout=5s');
    assert.equal(req!.headers.authorization, 'Bearer webhook-secret');
    assert.equal(req!.headers['content-type'], 'application/json');
    assert.equal(
      req!.body,
      JSON.stringify({
        kind: 'SubjectAccessReview',
        apiVersion: 'authorization.k8s.io/v1',
        metadata: { creationTimestamp: null },
        spec: {
          resourceAttributes: {
            verb: 'list',
            group: 'networking.platform.io',
            version: 'v1',
            resource: 'servicecidrs',
            fieldSelector: { requirements: [{ key: 'spec.signerName', operator: 'NotIn', values: ['x'] }] },
            labelSelector: { requirements: [{ key: 'team', operator: 'In', values: ['a', 'b'] }, { key: 'legacy', operator: 'DoesNotExist' }] },
          },
          user: 'alice',
          groups: ['devs', 'system:authenticated'],
          extra: { 'example.com/team': ['a', 'b'] },
          uid: 'uid-1',
        },
        status: { allowed: false },
      }),
    );
  });

  test('v1beta1 names the groups `group`; non-resource requests send the path and verb', async () => {
    hook.requests.length = 0;
    const { authorizer } = await make({ version: 'v1beta1' });
    await authorizer.authorize(attrs({ isResourceRequest: false, path: '/metrics', verb: 'get', apiGroup: '', apiVersion: '', resource: '', user: { username: 'bob', groups: ['system:authenticated'] } }));
    assert.equal(
      hook.requests[0]!.body,
      '{"kind":"SubjectAccessReview","apiVersion":"authorization.k8s.io/v1beta1","metadata":{"creationTimestamp":null},"spec":{"nonResourceAttributes":{"path":"/metrics","verb":"get"},"user":"bob","group":["system:authenticated"]},"status":{"allowed":false}}',
    );
  });

  test('allowed allows, denied is a final deny, neither is no opinion; reasons are kept', async () => {
    const { authorizer, events } = await make();
    hook.decide = () => ({ status: { allowed: false, denied: true, reason: 'not on Sundays' } });
    assert.deepEqual(await authorizer.authorize(attrs({ verb: 'get' })), { decision: 'deny', reason: 'not on Sundays' });
    hook.decide = () => ({ status: { allowed: false, reason: 'ask RBAC' } });
    assert.deepEqual(await authorizer.authorize(attrs({ verb: 'watch' })), { decision: 'no-opinion', reason: 'ask RBAC' });
    hook.decide = () => ({ status: { allowed: true, denied: true } });
    const both = await authorizer.authorize(attrs({ verb: 'create' }));
    assert.equal(both.decision, 'deny');
    assert.equal(both.error, 'webhook subject access review returned both allow and deny response');
    assert.deepEqual(events, ['evaluation default success', 'evaluation default success', 'evaluation default success']);
    hook.decide = () => ({ status: { allowed: true } });
  });

  test('answers are cached by the review for their TTL, allowed and not allowed apart', async () => {
    const { authorizer } = await make({ authorizedTtlMs: 60_000, unauthorizedTtlMs: 300 });
    hook.requests.length = 0;
    hook.decide = (r) => ({ status: { allowed: r.spec.resourceAttributes.verb === 'get' } });
    await authorizer.authorize(attrs({ verb: 'get', name: 'a' }));
    assert.equal((await authorizer.authorize(attrs({ verb: 'get', name: 'a' }))).decision, 'allow');
    assert.equal(hook.requests.length, 1, 'the allowed answer came from the cache');
    await authorizer.authorize(attrs({ verb: 'delete', name: 'a' }));
    await authorizer.authorize(attrs({ verb: 'delete', name: 'a' }));
    assert.equal(hook.requests.length, 2, 'the refusal is cached too');
    await new Promise((resolve) => setTimeout(resolve, 600));
    await authorizer.authorize(attrs({ verb: 'delete', name: 'a' }));
    await authorizer.authorize(attrs({ verb: 'get', name: 'a' }));
    assert.equal(hook.requests.length, 3, 'the refusal expired, the allowed answer did not');
    // Another user is another review.
    await authorizer.authorize(attrs({ verb: 'get', name: 'a', user: { username: 'carol', groups: [] } }));
    assert.equal(hook.requests.length, 4);
    hook.decide = () => ({ status: { allowed: true } });
  });

  test('a slow webhook is cut off at the timeout: no opinion with the error, or a deny under failurePolicy Deny', async () => {
    hook.decide = () => ({ delayMs: 20_000, then: { status: { allowed: true } } });
    const { authorizer, events } = await make({ timeoutMs: 300 });
    const start = Date.now();
    const r = await authorizer.authorize(attrs());
    assert.ok(Date.now() - start < 10_000, 'bounded by the timeout');
    assert.equal(r.decision, 'no-opinion');
    assert.match(r.error!, /^Post "https:\/\/127\.0\.0\.1:\d+\/authorize\?timeout=300ms": context deadline exceeded/);
    assert.deepEqual(events, ['evaluation default timeout', 'fail-open default timeout']);
    const strict = await make({ timeoutMs: 300, failurePolicy: 'Deny' });
    const d = await strict.authorizer.authorize(attrs());
    assert.equal(d.decision, 'deny');
    assert.ok(d.error);
    assert.deepEqual(strict.events, ['evaluation default timeout']);
    hook.decide = () => ({ status: { allowed: true } });
  });

  test('garbage answers (not JSON, wrong types, non-2xx, over 3 MiB) are errors, never decisions', async () => {
    const { authorizer } = await make();
    const huge = { raw: `{"status":{"allowed":true,"reason":"${'x'.repeat(4 * 1024 * 1024)}"}}` };
    for (const answer of [{ raw: '<html>oops</html>' }, { raw: '{"status":{"allowed":"yes"}}' }, { raw: '[1,2]' }, { status: { allowed: true }, code: 403 }, huge]) {
      hook.decide = () => answer;
      const r = await authorizer.authorize(attrs({ name: JSON.stringify(answer).slice(0, 100) }));
      assert.equal(r.decision, 'no-opinion', JSON.stringify(answer).slice(0, 100));
      assert.ok(r.error, JSON.stringify(answer).slice(0, 100));
    }
    hook.decide = () => ({ status: { allowed: true } });
  });

  test('500 answers are retried with backoff, then the answer counts', async () => {
    let n = 0;
    hook.requests.length = 0;
    hook.decide = () => (++n <= 2 ? { raw: 'busy', code: 500 } : { status: { allowed: true } });
    const { authorizer, events } = await make();
    assert.equal((await authorizer.authorize(attrs({ name: 'retried' }))).decision, 'allow');
    assert.equal(hook.requests.length, 3);
    assert.deepEqual(events, ['evaluation default error', 'evaluation default error', 'evaluation default success']);
    hook.decide = () => ({ status: { allowed: true } });
  });

  test('a webhook that is down gives an error at once (not retried)', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const target = await loadWebhookTarget(hook.kubeconfigPath);
    target.url = new URL(`https://127.0.0.1:${port}/authorize`);
    const { authorizer, events } = await make({ target });
    const r = await authorizer.authorize(attrs());
    assert.equal(r.decision, 'no-opinion');
    assert.match(r.error!, /ECONNREFUSED/);
    assert.deepEqual(events, ['evaluation default error', 'fail-open default error']);
  });

  test('match conditions: all true calls the webhook, one false skips it, an error goes to the failure policy', async () => {
    hook.decide = () => ({ status: { allowed: true } });
    const compile = (...expressions: string[]) => expressions.map((expression) => ({ expression, program: compileMatchCondition(expression) }));
    const r = recorder();
    const conditions = compile('has(request.resourceAttributes)', "request.resourceAttributes.group == 'networking.platform.io'", "!('system:masters' in request.groups)");
    const { authorizer } = await make({ matches: matchConditions(conditions, 'policy', r.observer) });
    hook.requests.length = 0;
    assert.equal((await authorizer.authorize(attrs({ name: 'mc1' }))).decision, 'allow');
    assert.equal(hook.requests.length, 1);
    assert.deepEqual(await authorizer.authorize(attrs({ name: 'mc2', apiGroup: 'certificates.platform.io' })), { decision: 'no-opinion', reason: '' });
    assert.deepEqual(await authorizer.authorize(attrs({ isResourceRequest: false, path: '/metrics', verb: 'get' })), { decision: 'no-opinion', reason: '' });
    assert.equal(hook.requests.length, 1, 'skipped requests never reach the webhook');
    assert.deepEqual(r.events, ['match Webhook/policy matched', 'match Webhook/policy excluded', 'match Webhook/policy excluded']);
    // An expression that fails at evaluation (a missing key) is an error, decided by the failure policy.
    const broken = compile('request.nonResourceAttributes.path == "/x"');
    const deny = await make({ failurePolicy: 'Deny', matches: matchConditions(broken, 'policy', r.observer) });
    const d = await deny.authorizer.authorize(attrs({ name: 'mc3' }));
    assert.equal(d.decision, 'deny');
    assert.match(d.error!, /^cel evaluation error: expression 'request\.nonResourceAttributes\.path == "\/x"' resulted in error: /);
    const open = await make({ failurePolicy: 'NoOpinion', matches: matchConditions(compile('request.user'), 'policy', r.observer) });
    const o = await open.authorizer.authorize(attrs({ name: 'mc4' }));
    assert.equal(o.decision, 'no-opinion');
    assert.match(o.error!, /eval result type should be bool/);
    assert.equal(hook.requests.length, 1);
  });
});

describe('webhook connections are let go when the authorizer is replaced or closed', () => {
  let hook: SarWebhook;
  let dir: string;
  before(async () => {
    // Idle connections stay open on the webhook's side: only the client can close them.
    hook = await startSarWebhook(() => ({ status: { allowed: true } }), { keepIdleConnections: true });
    dir = mkdtempSync(join(tmpdir(), 'platform-authz-release-'));
  });
  after(async () => {
    await hook.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const fileConfig = (name: string) =>
    `apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n- type: Webhook\n  name: ${name}\n  webhook:\n    timeout: 5s\n    subjectAccessReviewVersion: v1\n    matchConditionSubjectAccessReviewVersion: v1\n    failurePolicy: NoOpinion\n    connectionInfo: {type: KubeConfigFile, kubeConfigFile: ${hook.kubeconfigPath}}\n`;
  const inputs = { policy: () => ({}) as RbacPolicy, observer: recorder().observer, logger: pino({ level: 'silent' }) };
  const connectionsDropTo0 = () => eventually(async () => hook.openConnections(), (n) => n === 0, 15_000, 50);

  test('--authorization-config reloaded: the replaced chain closes its kept-alive connection; close() closes the current one', async () => {
    const path = join(dir, 'authz.yaml');
    writeFileSync(path, fileConfig('first'));
    const authz = await buildAuthorization({ kind: 'file', path }, inputs);
    try {
      assert.equal((await authz.authorizer.authorize(attrs({ name: 'r1' }))).decision, 'allow');
      assert.equal(hook.openConnections(), 1, 'the call left a kept-alive connection');
      writeFileSync(join(dir, 'authz.yaml.tmp'), fileConfig('second'));
      renameSync(join(dir, 'authz.yaml.tmp'), path);
      assert.equal(await connectionsDropTo0(), 0, 'the replaced chain let its connection go');
      assert.equal((await authz.authorizer.authorize(attrs({ name: 'r2' }))).decision, 'allow');
      assert.equal(hook.openConnections(), 1);
    } finally {
      authz.close();
    }
    assert.equal(await connectionsDropTo0(), 0, 'close() let the current chain\'s connection go');
  });

  test('the flags\' webhook chain closes its connection on close()', async () => {
    const authz = await buildAuthorization(
      { kind: 'modes', modes: ['Webhook'], webhook: { configFile: hook.kubeconfigPath, version: 'v1', authorizedTtlMs: 0, unauthorizedTtlMs: 0 } },
      inputs,
    );
    assert.equal((await authz.authorizer.authorize(attrs({ name: 'f1' }))).decision, 'allow');
    assert.equal(hook.openConnections(), 1);
    authz.close();
    assert.equal(await connectionsDropTo0(), 0);
  });
});
