import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { authorizersFromFlags, parseAuthorizationConfiguration } from './authorization-config-file.js';
import { parseFlags } from './flags.js';

const dir = mkdtempSync(join(tmpdir(), 'authz-config-'));
const kubeconfig = join(dir, 'webhook.kubeconfig');
writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\n');
const parse = (yaml: string) => parseAuthorizationConfiguration(yaml, '/authz.yaml');
const error = async (yaml: string): Promise<string> => {
  try {
    await parse(yaml);
  } catch (err) {
    return (err as Error).message;
  }
  return 'no error';
};
const head = 'apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\n';

describe('AuthorizationConfiguration file', () => {
  test('parses kube\'s documented example, with defaults', async () => {
    const specs = await parse(`${head}authorizers:
- type: Webhook
  name: policy-service
  webhook:
    timeout: 3s
    subjectAccessReviewVersion: v1
    matchConditionSubjectAccessReviewVersion: v1
    failurePolicy: Deny
    connectionInfo: {type: KubeConfigFile, kubeConfigFile: ${kubeconfig}}
    matchConditions:
    - expression: has(request.resourceAttributes)
    - expression: "!('system:serviceaccounts:kube-system' in request.groups)"
- type: Node
  name: node
- type: RBAC
  name: rbac
`);
    // The compiled programs ride along (the chain reuses them); everything else is plain data.
    assert.equal(specs[0]!.webhook?.compiledConditions?.length, 2);
    delete specs[0]!.webhook!.compiledConditions;
    assert.deepEqual(specs, [
      {
        type: 'Webhook',
        name: 'policy-service',
        webhook: {
          timeoutMs: 3000,
          authorizedTtlMs: 300_000,
          unauthorizedTtlMs: 30_000,
          version: 'v1',
          failurePolicy: 'Deny',
          connection: { kind: 'kubeconfig', path: kubeconfig },
          matchConditions: ['has(request.resourceAttributes)', "!('system:serviceaccounts:kube-system' in request.groups)"],
        },
      },
      { type: 'Node', name: 'node' },
      { type: 'RBAC', name: 'rbac' },
    ]);
    for (const v of ['v1beta1', 'v1alpha1']) assert.equal((await parse(`apiVersion: apiserver.config.k8s.io/${v}\nkind: AuthorizationConfiguration\nauthorizers: [{type: RBAC, name: rbac}]`)).length, 1);
  });

  test("kube's validation messages", async () => {
    assert.equal(await error(`${head}authorizers: []`), 'authorizers: Required value: at least one authorization mode must be defined');
    assert.equal(await error(`${head}authorizers: [{type: RBAC, name: a}, {type: RBAC, name: b}]`), 'authorizers[1].type: Duplicate value: "RBAC"');
    assert.equal(await error(`${head}authorizers: [{type: Magic, name: a}]`), 'authorizers[0].type: Unsupported value: "Magic": supported values: "ABAC", "AlwaysAllow", "AlwaysDeny", "Node", "RBAC", "Webhook"');
    assert.equal(await error(`${head}authorizers: [{type: RBAC}]`), 'authorizers[0].name: Required value');
    assert.equal(await error(`${head}authorizers: [{type: Webhook, name: w}]`), 'authorizers[0].webhook: Required value: required when type=Webhook');
    assert.equal(await error(`${head}authorizers: [{type: RBAC, name: r, webhook: {}}]`), 'authorizers[0].webhook: Invalid value: "non-null": may only be specified when type=Webhook');
    assert.equal(
      await error(`${head}authorizers: [{type: Webhook, name: w, webhook: {timeout: 1m, subjectAccessReviewVersion: v2, failurePolicy: Maybe, connectionInfo: {type: KubeConfigFile, kubeConfigFile: relative.yaml}, matchConditions: [{expression: "1 +"}]}}]`),
      '[authorizers[0].webhook.timeout: Invalid value: "1m": must be > 0s and <= 30s, authorizers[0].webhook.subjectAccessReviewVersion: Unsupported value: "v2": supported values: "v1", "v1beta1", authorizers[0].webhook.matchConditionSubjectAccessReviewVersion: Required value: required if match conditions are specified, authorizers[0].webhook.failurePolicy: Unsupported value: "Maybe": supported values: "Deny", "NoOpinion", authorizers[0].webhook.connectionInfo.kubeConfigFile: Invalid value: "relative.yaml": must be an absolute path, authorizers[0].webhook.matchConditions[0].expression: Invalid value: "1 +": compilation failed: <input>:1:3: found + but expecting end of input]',
    );
    assert.match(await error('kind: Config\napiVersion: v1\n'), /want kind AuthorizationConfiguration/);
  });

  test('match conditions are bounded at load: one variable, no nested comprehensions, 5 KiB', async () => {
    const webhook = (expression: string): string =>
      `${head}authorizers: [{type: Webhook, name: w, webhook: {timeout: 3s, subjectAccessReviewVersion: v1, matchConditionSubjectAccessReviewVersion: v1, failurePolicy: Deny, connectionInfo: {type: KubeConfigFile, kubeConfigFile: ${kubeconfig}}, matchConditions: [{expression: ${JSON.stringify(expression)}}]}}]`;
    assert.match(await error(webhook('claims.sub == "x"')), /matchConditions\[0\]\.expression: Invalid value: .*undeclared reference to 'claims' \(only request may be referenced\)/);
    assert.match(await error(webhook('request.groups.all(g, request.groups.exists(h, h == g))')), /matchConditions\[0\]\.expression: Invalid value: .*cost limit: comprehensions .* may not be nested/);
    assert.match(await error(webhook(`request.user == "${'a'.repeat(6000)}"`)), /matchConditions\[0\]\.expression: Invalid value: .*at most 5120 are allowed/);
    assert.equal((await parse(webhook('request.groups.exists(g, g == "admins")')))[0]!.webhook!.compiledConditions!.length, 1);
  });

  test('the flags become the same list (the webhook named default, 30 s, NoOpinion)', () => {
    assert.deepEqual(authorizersFromFlags(['Node', 'RBAC'], undefined), [
      { type: 'Node', name: 'node' },
      { type: 'RBAC', name: 'rbac' },
    ]);
    const [w] = authorizersFromFlags(['Webhook'], { configFile: '/k', version: 'v1beta1', authorizedTtlMs: 1, unauthorizedTtlMs: 2 });
    assert.deepEqual(w!.webhook, { timeoutMs: 30_000, authorizedTtlMs: 1, unauthorizedTtlMs: 2, version: 'v1beta1', failurePolicy: 'NoOpinion', connection: { kind: 'kubeconfig', path: '/k' }, matchConditions: [] });
  });

  test('--authorization-config excludes --authorization-mode and the webhook flags', () => {
    assert.deepEqual(parseFlags(['--authorization-config', '/a.yaml'], 't').authorization, { kind: 'file', path: '/a.yaml' });
    for (const extra of [['--authorization-mode', 'RBAC'], ['--authorization-webhook-version', 'v1'], ['--authorization-webhook-cache-unauthorized-ttl', '1s']]) {
      assert.throws(() => parseFlags(['--authorization-config', '/a.yaml', ...extra], 't'), { message: '--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined' });
    }
  });
});

process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
