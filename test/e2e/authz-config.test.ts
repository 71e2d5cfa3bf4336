// --authorization-config through the real server: a structured AuthorizationConfiguration with a
// webhook (match conditions in CEL, a 1 s timeout, failurePolicy Deny) before RBAC; the file
// re-read when it changes; a broken file keeps the last good chain and fails /readyz.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type TestServer } from './harness.js';
import { startSarWebhook, type SarWebhook } from '../support/sar-webhook.js';
import { waitUntil } from '../support/polling.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';
const CTB = '/apis/certificates.platform.io/v1beta1/clustertrustbundles';

describe('--authorization-config', () => {
  let hook: SarWebhook;
  let server: TestServer;
  let dir: string;
  const configPath = () => join(dir, 'authz.yaml');
  /** Replaces the file atomically, as a config map volume or an editor with a rename does. */
  const writeConfig = (text: string): void => {
    writeFileSync(join(dir, 'authz.yaml.tmp'), text);
    renameSync(join(dir, 'authz.yaml.tmp'), configPath());
  };
  const config = (failurePolicy: string, extra = '') => `apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
- type: Webhook
  name: policy-service
  webhook:
    timeout: 1s
    subjectAccessReviewVersion: v1
    matchConditionSubjectAccessReviewVersion: v1
    failurePolicy: ${failurePolicy}
    connectionInfo:
      type: KubeConfigFile
      kubeConfigFile: ${hook.kubeconfigPath}
    matchConditions:
    - expression: has(request.resourceAttributes)
    - expression: request.resourceAttributes.group == 'networking.platform.io'
- type: RBAC
  name: rbac
${extra}`;

  before(async () => {
    hook = await startSarWebhook((review) => (review?.spec?.user === 'sloane' ? { delayMs: 20_000, then: { status: { allowed: true } } } : { status: { allowed: review?.spec?.user === 'alice' } }));
    dir = mkdtempSync(join(tmpdir(), 'platform-authz-config-'));
    writeFileSync(join(dir, 'tokens.csv'), 'alice-token,alice,uid-alice\nsloane-token,sloane,uid-sloane\n');
    writeConfig(config('Deny'));
    server = await startServer({ args: ['--token-auth-file', join(dir, 'tokens.csv'), '--authorization-config', configPath(), '--controllers=-service-cidr-controller'] });
  });
  after(async () => {
    await server?.stop();
    await hook?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the webhook is asked only where its match conditions hold; the v1 review is sent with the configured timeout', async () => {
    hook.requests.length = 0;
    assert.equal((await server.request('GET', `${SC}/none`, { token: 'alice-token' })).status, 404);
    assert.equal(hook.requests.length, 1);
    assert.equal(hook.requests[0]!.url, '/authorize?timeout=1s');
    assert.equal(hook.requests[0]!.json.apiVersion, 'authorization.k8s.io/v1');
    assert.deepEqual(hook.requests[0]!.json.spec.groups, ['system:authenticated']);
    // Trust bundles are another group: the webhook is skipped and RBAC decides.
    assert.equal((await server.request('GET', CTB, { token: 'alice-token' })).status, 200);
    assert.equal(hook.requests.length, 1);
  });

  test('a slow webhook under failurePolicy Deny: answered within the timeout, never allowed', async () => {
    const start = Date.now();
    const r = await server.request('GET', SC, { token: 'sloane-token' });
    assert.ok(Date.now() - start < 15_000, `bounded (${Date.now() - start} ms)`);
    assert.equal(r.status, 500, r.text);
    assert.match(r.json.message, /context deadline exceeded/);
  });

  test('the file is re-read when it changes; a broken one keeps the last good chain and fails /readyz', async () => {
    writeConfig(`apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n- {type: RBAC, name: rbac}\n`);
    await waitUntil('the new chain (RBAC alone) is in force', async () => (await server.request('GET', `${SC}/none`, { token: 'alice-token' })).status === 403);
    writeConfig(config('Deny').replace('timeout: 1s', 'timeout: 1m'));
    await waitUntil('/readyz fails naming the check', async () => {
      const r = await server.request('GET', '/readyz?verbose', { anonymous: true });
      return r.status === 500 && r.text.includes('[-]authorization-config failed');
    });
    assert.equal((await server.request('GET', `${SC}/none`, { token: 'alice-token' })).status, 403, 'the last good chain still decides');
    writeConfig(config('NoOpinion'));
    await waitUntil('the fixed file is in force', async () => (await server.request('GET', `${SC}/none`, { token: 'alice-token' })).status === 404);
    assert.equal((await server.request('GET', '/readyz', { anonymous: true })).status, 200);
    const m = (await server.request('GET', '/metrics')).text;
    assert.match(m, /^apiserver_authorization_config_controller_automatic_reloads_total\{status="success",apiserver_id_hash="sha256:[0-9a-f]{64}"\} 2$/m);
    assert.match(m, /^apiserver_authorization_config_controller_automatic_reloads_total\{status="failure",apiserver_id_hash="sha256:[0-9a-f]{64}"\} 1$/m);
    assert.match(m, /^apiserver_authorization_match_condition_exclusions_total\{type="Webhook",name="policy-service"\} [1-9]/m);
  });
});
