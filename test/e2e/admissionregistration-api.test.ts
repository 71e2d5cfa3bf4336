// The admissionregistration.k8s.io/v1 kinds as clients see them, through kubectl: discovery,
// tables, explain (OpenAPI), client- and server-side apply, /status, watch, RBAC, kube's
// defaulting, and a policy's status written by the status controller.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startInProcessServer } from './in-process-server.js';
import type { TestServer } from './harness.js';
import { kubectlFor, tableRows, writeTokenKubeconfig, type Kubectl } from './kubectl.js';
import { requireTool } from './require-tool.js';
import { eventually } from '../support/polling.js';
import { AR, VAP } from '../support/admission-fixtures.js';

const binary = requireTool('kubectl', 'the admissionregistration kinds are driven with kubectl');
const example = (name: string) => join(import.meta.dirname, '../../examples/admission', name);

describe('admissionregistration.k8s.io/v1 through kubectl', { skip: !binary }, () => {
  let server: TestServer;
  let kubectl: Kubectl;

  before(async () => {
    server = await startInProcessServer();
    kubectl = kubectlFor(binary!, writeTokenKubeconfig(join(server.dataDir, 'kubeconfig'), server, server.token));
  });
  after(async () => {
    await server?.stop();
  });

  test('discovery lists the four kinds, cluster-scoped', async () => {
    const r = await kubectl(['api-resources', '--api-group=admissionregistration.k8s.io', '--no-headers']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(tableRows(r.stdout), [
      ['mutatingwebhookconfigurations', 'admissionregistration.k8s.io/v1', 'false', 'MutatingWebhookConfiguration'],
      ['validatingadmissionpolicies', 'admissionregistration.k8s.io/v1', 'false', 'ValidatingAdmissionPolicy'],
      ['validatingadmissionpolicybindings', 'admissionregistration.k8s.io/v1', 'false', 'ValidatingAdmissionPolicyBinding'],
      ['validatingwebhookconfigurations', 'admissionregistration.k8s.io/v1', 'false', 'ValidatingWebhookConfiguration'],
    ]);
    const verbs = (await server.request('GET', AR)).json.resources.find((x: any) => x.name === 'validatingadmissionpolicies').verbs;
    assert.deepEqual([...verbs].sort(), ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);
  });

  test('apply, kube\'s defaults, tables and explain', async () => {
    assert.equal((await kubectl(['apply', '-f', example('servicecidr-range-policy.yaml')])).code, 0);
    assert.equal((await kubectl(['apply', '-f', example('label-webhook.yaml')])).code, 0);
    const tables = await kubectl(['get', 'validatingadmissionpolicies,validatingadmissionpolicybindings,mutatingwebhookconfigurations', '--no-headers']);
    assert.deepEqual(
      tableRows(tables.stdout).map((row) => row.slice(0, -1)),
      [
        ['validatingadmissionpolicy.admissionregistration.k8s.io/servicecidrs.default', '1', '<unset>'],
        ['validatingadmissionpolicybinding.admissionregistration.k8s.io/servicecidrs-binding', 'servicecidrs.default', '<unset>'],
        ['mutatingwebhookconfiguration.admissionregistration.k8s.io/owner-label', '1'],
      ],
    );
    const policy = (await server.request('GET', `${VAP}/servicecidrs.default`)).json;
    assert.deepEqual(policy.spec.matchConstraints, {
      namespaceSelector: {},
      objectSelector: {},
      resourceRules: [{ apiGroups: ['networking.platform.io'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['servicecidrs'], scope: '*' }],
      matchPolicy: 'Equivalent',
    });
    const hook = (await server.request('GET', `${AR}/mutatingwebhookconfigurations/owner-label`)).json.webhooks[0];
    assert.deepEqual([hook.matchPolicy, hook.namespaceSelector, hook.objectSelector, hook.rules[0].scope], ['Equivalent', {}, {}, '*']);
    const explain = await kubectl(['explain', 'validatingadmissionpolicybinding.spec.validationActions']);
    assert.equal(explain.code, 0, explain.stderr);
    assert.match(explain.stdout, /FIELD: validationActions <\[\]string>/);
  });

  test('server-side apply and the status the controller writes', async () => {
    const r = await kubectl(['apply', '--server-side', '-f', example('team-label-warning.yaml')]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'validatingadmissionpolicy.admissionregistration.k8s.io/servicecidrs.team-label serverside-applied\nvalidatingadmissionpolicybinding.admissionregistration.k8s.io/servicecidrs.team-label serverside-applied\n');
    const status = await eventually(
      () => kubectl(['get', 'validatingadmissionpolicy', 'servicecidrs.team-label', '--subresource=status', '-o', 'jsonpath={.status}']),
      (x) => x.stdout.includes('observedGeneration'),
      15_000,
      200,
    );
    assert.deepEqual(JSON.parse(status.stdout), { observedGeneration: 1, typeChecking: {} });
    const managers = (await server.request('GET', `${VAP}/servicecidrs.team-label`)).json.metadata.managedFields.map((m: any) => [m.manager, m.operation, m.subresource ?? '']);
    assert.deepEqual(managers, [
      ['kubectl', 'Apply', ''],
      ['validatingadmissionpolicy-status-controller', 'Apply', 'status'],
    ]);
  });

  test('watch sees a webhook configuration come and go', async () => {
    const w = kubectl.stream(['get', 'validatingwebhookconfigurations', '--watch', '--output-watch-events']);
    try {
      const body = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'watched' }, webhooks: [] };
      assert.equal((await server.request('POST', `${AR}/validatingwebhookconfigurations`, { body })).status, 201);
      await w.waitFor(/ADDED\s+watched\s+0/);
      assert.equal((await server.request('DELETE', `${AR}/validatingwebhookconfigurations/watched`)).status, 200);
      await w.waitFor(/DELETED\s+watched\s+0/);
    } finally {
      await w.stop();
    }
  });

  test('RBAC guards the kinds like any other', async () => {
    const r = await kubectl(['get', 'validatingadmissionpolicies', '--as=jane']);
    assert.equal(r.code, 1);
    assert.equal(r.stderr.trim(), 'Error from server (Forbidden): validatingadmissionpolicies.admissionregistration.k8s.io is forbidden: User "jane" cannot list resource "validatingadmissionpolicies" in API group "admissionregistration.k8s.io" at the cluster scope');
  });
});
