// ValidatingAdmissionPolicy on the kinds this server serves, end to end over HTTPS: the
// ServiceCIDR range policy of kube's documentation (retargeted at networking.platform.io) with
// Deny and Audit, Warn as a Warning header, failure policies with a CEL error, the cost limit per
// expression and per binding, DELETE, type-checking warnings in status, audit annotations in the
// audit log, the metrics, and kubectl apply showing the denial and the warnings.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startInProcessServer } from './in-process-server.js';
import type { TestServer } from './harness.js';
import { kubectlFor, writeTokenKubeconfig, type Kubectl } from './kubectl.js';
import { requireTool } from './require-tool.js';
import { eventually } from '../support/polling.js';
import { binding, createAll, policy, SC, serviceCIDR, untilAnswered, VAP, VAPB } from '../support/admission-fixtures.js';

// kube's documentation: restrict the ranges ServiceCIDRs may use (the default one excepted).
const RANGE_EXPRESSION = 'object.spec.cidrs.all(newCIDR, variables.allowed.exists(allowedCIDR, cidr(allowedCIDR).containsCIDR(newCIDR)))';
const rangePolicy = policy('servicecidrs.default', {
  failurePolicy: 'Fail',
  matchConditions: [{ name: 'exclude-default-servicecidr', expression: "object.metadata.name != 'kubernetes'" }],
  variables: [{ name: 'allowed', expression: "['10.96.0.0/16','2001:db8::/64']" }],
  validations: [{ expression: RANGE_EXPRESSION }],
});
const DENIED_RANGE = `ValidatingAdmissionPolicy 'servicecidrs.default' with binding 'servicecidrs-binding' denied request: failed expression: ${RANGE_EXPRESSION}`;

describe('ValidatingAdmissionPolicy', () => {
  let server: TestServer;
  let kubectl: Kubectl | undefined;
  const audit = (): any[] => readFileSync(join(server.dataDir, 'audit.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));

  before(async () => {
    server = await startInProcessServer({ audit: true });
    await createAll(server, [
      [VAP, rangePolicy],
      [VAPB, binding('servicecidrs-binding', 'servicecidrs.default', ['Deny', 'Audit'])],
    ]);
    const r = await untilAnswered(server, SC, serviceCIDR('probe', ['192.168.0.0/24']), 422);
    assert.equal(r.status, 422, `the range policy never applied: ${r.text}`);
    const binary = requireTool('kubectl', 'kubectl apply shows policy denials and warnings');
    if (binary) kubectl = kubectlFor(binary, writeTokenKubeconfig(join(server.dataDir, 'kubeconfig'), server, server.token));
  });
  after(async () => {
    await server?.stop();
  });

  test('the documented ServiceCIDR range policy denies a range outside the allowed ones with kube\'s message and code', async () => {
    const r = await server.request('POST', SC, { body: serviceCIDR('newcidr2', ['192.168.0.0/24', '2001:db8::/64']) });
    assert.equal(r.status, 422, r.text);
    assert.deepEqual(r.json, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `servicecidrs.networking.platform.io "newcidr2" is forbidden: ${DENIED_RANGE}`,
      reason: 'Invalid',
      details: { name: 'newcidr2', group: 'networking.platform.io', kind: 'servicecidrs', causes: [{ message: DENIED_RANGE }] },
      code: 422,
    });
    assert.equal((await server.request('POST', SC, { body: serviceCIDR('newcidr1', ['10.96.10.0/24', '2001:db8::/96']) })).status, 201);
    // The matchCondition leaves the default ServiceCIDR alone.
    assert.equal((await server.request('POST', SC, { body: serviceCIDR('kubernetes', ['172.16.0.0/16']) })).status, 201);
    // An update is checked too: going dual-stack with a range outside the allowed ones.
    assert.equal((await server.request('POST', SC, { body: serviceCIDR('single', ['10.96.11.0/24']) })).status, 201);
    const u = await server.request('PUT', `${SC}/single`, { body: serviceCIDR('single', ['10.96.11.0/24', '2001:db9::/64']) });
    assert.equal(u.status, 422, u.text);
    assert.match(u.json.message, /^servicecidrs\.networking\.platform\.io "single" is forbidden: ValidatingAdmissionPolicy 'servicecidrs\.default'/);
    assert.equal((await server.request('PUT', `${SC}/single`, { body: serviceCIDR('single', ['10.96.11.0/24', '2001:db8::/80']) })).status, 200);
  });

  test('Audit puts the failure into the audit event as validation.policy.admission.k8s.io/validation_failure', async () => {
    const r = await server.request('POST', SC, { body: serviceCIDR('audited', ['192.168.1.0/24']) });
    assert.equal(r.status, 422);
    const id = r.headers['audit-id'];
    const events = await eventually(async () => audit().filter((e) => e.auditID === id && e.stage === 'ResponseComplete'), (e) => e.length > 0, 10_000, 50);
    assert.equal(events.length, 1);
    assert.deepEqual(JSON.parse(events[0].annotations['validation.policy.admission.k8s.io/validation_failure']), [
      { message: `failed expression: ${RANGE_EXPRESSION}`, policy: 'servicecidrs.default', binding: 'servicecidrs-binding', expressionIndex: 0, validationActions: ['Deny', 'Audit'] },
    ]);
  });

  test('Warn answers with a Warning header and lets the request through; auditAnnotations are published as <policy>/<key>', async () => {
    await createAll(server, [
      [
        VAP,
        policy('label-required', {
          validations: [{ expression: "has(object.metadata.labels) && 'team' in object.metadata.labels", messageExpression: "'ServiceCIDR ' + object.metadata.name + ' has no team label'" }],
          auditAnnotations: [{ key: 'cidr-count', valueExpression: "string(size(object.spec.cidrs)) + ' range(s)'" }],
        }),
      ],
      [VAPB, binding('label-required-warn', 'label-required', ['Warn'])],
    ]);
    const r = await eventually(
      () => server.request('POST', `${SC}?dryRun=All`, { body: serviceCIDR('unlabelled', ['10.96.20.0/24']) }),
      (x) => x.headers.warning !== undefined,
      15_000,
      100,
    );
    assert.equal(r.status, 201);
    assert.equal(r.headers.warning, `299 - "Validation failed for ValidatingAdmissionPolicy 'label-required' with binding 'label-required-warn': ServiceCIDR unlabelled has no team label"`);
    const created = await server.request('POST', SC, { body: serviceCIDR('unlabelled', ['10.96.20.0/24']) });
    assert.equal(created.status, 201);
    const events = await eventually(async () => audit().filter((e) => e.auditID === created.headers['audit-id'] && e.stage === 'ResponseComplete'), (e) => e.length > 0, 10_000, 50);
    assert.equal(events[0].annotations['label-required/cidr-count'], '1 range(s)');
    const labelled = await server.request('POST', SC, { body: serviceCIDR('labelled', ['10.96.21.0/24'], { team: 'net' }) });
    assert.equal(labelled.status, 201);
    assert.equal(labelled.headers.warning, undefined);
  });

  test('failurePolicy decides on a CEL runtime error: Fail denies with the error, Ignore lets the request through', async () => {
    const failing = (name: string, failurePolicy: string) =>
      policy(name, { failurePolicy, matchConditions: [{ name: 'only-these', expression: `object.metadata.name.startsWith('${name}-')` }], validations: [{ expression: "object.spec.ipFamily == 'IPv4'" }] });
    await createAll(server, [
      [VAP, failing('fails-closed', 'Fail')],
      [VAPB, binding('fails-closed', 'fails-closed', ['Deny'])],
      [VAP, failing('fails-open', 'Ignore')],
      [VAPB, binding('fails-open', 'fails-open', ['Deny'])],
    ]);
    const closed = await untilAnswered(server, SC, serviceCIDR('fails-closed-1', ['10.96.30.0/24']), 422);
    assert.equal(closed.status, 422);
    assert.equal(
      closed.json.message,
      `servicecidrs.networking.platform.io "fails-closed-1" is forbidden: ValidatingAdmissionPolicy 'fails-closed' with binding 'fails-closed' denied request: expression 'object.spec.ipFamily == 'IPv4'' resulted in error: no such key: ipFamily`,
    );
    // Give the Ignore policy the same time to be in force, then see it let the request through.
    await untilAnswered(server, SC, serviceCIDR('fails-closed-2', ['10.96.30.0/24']), 422);
    assert.equal((await server.request('POST', SC, { body: serviceCIDR('fails-open-1', ['10.96.31.0/24']) })).status, 201);
  });

  test('a compile error is reported as kube reports it, and type checking warns on the policy\'s status', async () => {
    await createAll(server, [
      [VAP, policy('typo', { matchConditions: [{ name: 'mine', expression: "object.metadata.name == 'typo-target'" }], validations: [{ expression: 'object.spec.cidr.size() > 0' }] })],
      [VAPB, binding('typo', 'typo', ['Deny'])],
    ]);
    const r = await untilAnswered(server, SC, serviceCIDR('typo-target', ['10.96.40.0/24']), 422);
    assert.equal(r.json.message, `servicecidrs.networking.platform.io "typo-target" is forbidden: ValidatingAdmissionPolicy 'typo' with binding 'typo' denied request: expression 'object.spec.cidr.size() > 0' resulted in error: no such key: cidr`);
    const status = await eventually(async () => (await server.request('GET', `${VAP}/typo`)).json.status, (s) => s?.observedGeneration === 1, 15_000, 100);
    assert.deepEqual(status, {
      observedGeneration: 1,
      typeChecking: {
        expressionWarnings: [
          { fieldRef: 'spec.validations[0].expression', warning: "networking.platform.io/v1, Kind=ServiceCIDR: ERROR: <input>:1:12: undefined field 'cidr'\n | object.spec.cidr.size() > 0\n | ...........^\n" },
        ],
      },
    });
    const bad = await server.request('POST', VAP, { body: policy('unparsable', { validations: [{ expression: 'object.spec.cidrs.all(c,' }] }) });
    assert.equal(bad.status, 422);
    assert.match(bad.json.message, /^ValidatingAdmissionPolicy\.admissionregistration\.k8s\.io "unparsable" is invalid: spec\.validations\[0\]\.expression: Invalid value: "object\.spec\.cidrs\.all\(c,": compilation failed: ERROR: <input>:1:\d+: /);
  });

  test('the cost limit: an expression past the per-call limit, and a binding past its budget, are refused in kube\'s words', async () => {
    // Each authorization check costs 350 000; three of them pass the 1 000 000 per expression
    // (a list literal evaluates every element, whatever the answers).
    const check = (r: string) => `authorizer.group('').resource('${r}').check('escalate').allowed()`;
    const threeChecks = `[${[check('a'), check('b'), check('c')].join(', ')}].exists(x, x)`;
    await createAll(server, [
      [VAP, policy('costly', { matchConditions: [{ name: 'mine', expression: "object.metadata.name == 'costly-target'" }], validations: [{ expression: threeChecks }] })],
      [VAPB, binding('costly', 'costly', ['Deny'])],
      // Two checks (700 000) fit the per-call limit; fifteen such validations pass the 10 000 000 budget.
      [VAP, policy('budget', { matchConditions: [{ name: 'mine', expression: "object.metadata.name == 'budget-target'" }], validations: Array.from({ length: 15 }, () => ({ expression: `[${check('a')}, ${check('b')}].exists(x, x)` })) })],
      [VAPB, binding('budget', 'budget', ['Deny'])],
    ]);
    const costly = await untilAnswered(server, SC, serviceCIDR('costly-target', ['10.96.50.0/24']), 422);
    assert.equal(costly.json.message, `servicecidrs.networking.platform.io "costly-target" is forbidden: ValidatingAdmissionPolicy 'costly' with binding 'costly' denied request: expression '${threeChecks}' resulted in error: operation cancelled: actual cost limit exceeded`);
    const budget = await untilAnswered(server, SC, serviceCIDR('budget-target', ['10.96.51.0/24']), 422);
    assert.equal(budget.json.message, `servicecidrs.networking.platform.io "budget-target" is forbidden: ValidatingAdmissionPolicy 'budget' with binding 'budget' denied request: validation failed due to running out of cost budget, no further validation rules will be run`);
  });

  test('DELETE is admitted with the stored object as oldObject, and a validation\'s reason sets the code', async () => {
    await createAll(server, [
      [
        VAP,
        policy('protected', {
          matchConstraints: { resourceRules: [{ apiGroups: ['networking.platform.io'], apiVersions: ['v1'], operations: ['DELETE'], resources: ['servicecidrs'] }] },
          validations: [{ expression: "!has(oldObject.metadata.labels) || oldObject.metadata.labels[?'protected'].orValue('') != 'true'", message: 'this ServiceCIDR is protected', reason: 'Forbidden' }],
        }),
      ],
      [VAPB, binding('protected', 'protected', ['Deny'])],
      [SC, serviceCIDR('keep-me', ['10.96.60.0/24'], { protected: 'true' })],
      [SC, serviceCIDR('drop-me', ['10.96.61.0/24'])],
    ]);
    const r = await eventually(() => server.request('DELETE', `${SC}/keep-me?dryRun=All`), (x) => x.status === 403, 15_000, 100);
    assert.equal(r.status, 403, r.text);
    assert.equal(r.json.reason, 'Forbidden');
    assert.equal(r.json.message, `servicecidrs.networking.platform.io "keep-me" is forbidden: ValidatingAdmissionPolicy 'protected' with binding 'protected' denied request: this ServiceCIDR is protected`);
    assert.equal((await server.request('DELETE', `${SC}/drop-me`)).status, 200);
    assert.equal((await server.request('GET', `${SC}/keep-me`)).status, 200);
  });

  test('the policy metrics count each enforcement', async () => {
    const m = (await server.request('GET', '/metrics')).text;
    assert.match(m, /apiserver_validating_admission_policy_check_total\{policy="servicecidrs\.default",policy_binding="servicecidrs-binding",error_type="invalid_error",enforcement_action="deny"\} [1-9]/);
    assert.match(m, /apiserver_validating_admission_policy_check_total\{policy="servicecidrs\.default",policy_binding="servicecidrs-binding",error_type="invalid_error",enforcement_action="audit"\} [1-9]/);
    assert.match(m, /apiserver_validating_admission_policy_check_total\{policy="label-required",policy_binding="label-required-warn",error_type="invalid_error",enforcement_action="warn"\} [1-9]/);
    assert.match(m, /apiserver_admission_step_admission_duration_seconds_count\{type="validate",operation="CREATE",rejected="true"\} [1-9]/);
    assert.match(m, /apiserver_admission_controller_admission_duration_seconds_count\{name="ValidatingAdmissionPolicy",type="validate",operation="CREATE",rejected="true"\} [1-9]/);
  });

  test('kubectl apply shows the denial and the warnings', { skip: !requireTool('kubectl', 'kubectl apply') }, async () => {
    const bad = kubectl!.manifest('bad.yaml', serviceCIDR('newcidr3', ['192.168.3.0/24']));
    const denied = await kubectl!(['apply', '-f', bad]);
    assert.equal(denied.code, 1);
    // The Warn binding's warning comes with the Deny binding's refusal; kubectl prints the
    // cause's (empty) field before its message, as in kube's own documentation.
    assert.equal(
      denied.stderr.trim(),
      `Warning: Validation failed for ValidatingAdmissionPolicy 'label-required' with binding 'label-required-warn': ServiceCIDR newcidr3 has no team label\nThe servicecidrs "newcidr3" is invalid: : ${DENIED_RANGE}`,
    );
    const warned = await kubectl!(['apply', '-f', kubectl!.manifest('warned.yaml', serviceCIDR('warned', ['10.96.70.0/24']))]);
    assert.equal(warned.code, 0, warned.stderr);
    assert.equal(warned.stderr.trim(), "Warning: Validation failed for ValidatingAdmissionPolicy 'label-required' with binding 'label-required-warn': ServiceCIDR warned has no team label");
    assert.equal(warned.stdout.trim(), 'servicecidr.networking.platform.io/warned created');
  });
});
