// ValidatingAdmissionPolicy with params and the authorizer: params are objects of a served kind
// (a ServiceCIDR holding the allowed ranges), named or selected by the binding, with
// parameterNotFoundAction; a paramKind this server does not serve; who may point a policy or a
// binding at params; a policy on ClusterTrustBundle signers, after the built-in attest check;
// and `authorizer` checks inside expressions, answered by this server's RBAC.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startInProcessServer } from './in-process-server.js';
import type { TestServer } from './harness.js';
import { makeCACert } from '../fixtures/certs.js';
import { eventually } from '../support/polling.js';
import { binding, createAll, CTB, policy, SC, serviceCIDR, untilAnswered, VAP, VAPB } from '../support/admission-fixtures.js';

const RBAC = 'rbac.authorization.k8s.io';
// jane manages policies and creates ServiceCIDRs, but may not read them; she may read bundles.
const RBAC_POLICY = `
apiVersion: ${RBAC}/v1
kind: ClusterRole
metadata: {name: policy-author}
rules:
- {verbs: ["*"], apiGroups: [admissionregistration.k8s.io], resources: ["*"]}
- {verbs: [create], apiGroups: [networking.platform.io], resources: [servicecidrs]}
- {verbs: [get, list, create], apiGroups: [certificates.platform.io], resources: [clustertrustbundles]}
---
apiVersion: ${RBAC}/v1
kind: ClusterRoleBinding
metadata: {name: jane-authors}
roleRef: {apiGroup: ${RBAC}, kind: ClusterRole, name: policy-author}
subjects: [{kind: User, name: jane}]
`;
const asJane = { headers: { 'Impersonate-User': 'jane' } };
const JANE = '&{jane  [system:authenticated] map[]}';
const SERVICE_CIDR_PARAMS = { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR' };

describe('ValidatingAdmissionPolicy params and authorization', () => {
  let server: TestServer;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'platform-vap-params-'));
    writeFileSync(join(dir, 'rbac.yaml'), RBAC_POLICY);
    server = await startInProcessServer({ flags: ['--authorization-policy-file', join(dir, 'rbac.yaml')] });
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a param named by the binding: its ranges decide, and changing the param changes the verdict', async () => {
    await createAll(server, [
      [SC, serviceCIDR('ranges-a', ['10.100.0.0/16'])],
      [
        VAP,
        policy('within-params', {
          paramKind: SERVICE_CIDR_PARAMS,
          matchConditions: [{ name: 'not-the-params', expression: "!object.metadata.name.startsWith('ranges-')" }],
          validations: [{ expression: 'object.spec.cidrs.all(c, params.spec.cidrs.exists(a, cidr(a).containsCIDR(c)))', messageExpression: "'ServiceCIDR ' + object.metadata.name + ' is outside ' + params.metadata.name" }],
        }),
      ],
      [VAPB, binding('within-a', 'within-params', ['Deny'], { paramRef: { name: 'ranges-a', parameterNotFoundAction: 'Deny' }, matchResources: { objectSelector: { matchLabels: { set: 'a' } } } })],
    ]);
    const outside = await untilAnswered(server, SC, serviceCIDR('out-a', ['10.101.0.0/24'], { set: 'a' }), 422);
    assert.equal(outside.json.message, `servicecidrs.networking.platform.io "out-a" is forbidden: ValidatingAdmissionPolicy 'within-params' with binding 'within-a' denied request: ServiceCIDR out-a is outside ranges-a`);
    assert.equal((await server.request('POST', SC, { body: serviceCIDR('in-a', ['10.100.1.0/24'], { set: 'a' }) })).status, 201);
    // Objects the binding does not select are not checked.
    assert.equal((await server.request('POST', SC, { body: serviceCIDR('unselected', ['10.101.0.0/24']) })).status, 201);
    // The param object is read through an informer: a wider one admits what it refused
    // (a ServiceCIDR's ranges do not change: it is replaced).
    assert.equal((await server.request('DELETE', `${SC}/ranges-a`)).status, 200);
    assert.equal((await server.request('POST', SC, { body: serviceCIDR('ranges-a', ['10.100.0.0/15']) })).status, 201);
    const now = await untilAnswered(server, SC, serviceCIDR('out-a', ['10.101.0.0/24'], { set: 'a' }), 201);
    assert.equal(now.status, 201, now.text);
  });

  test('params chosen by a selector: every param is checked; none found follows parameterNotFoundAction', async () => {
    await createAll(server, [
      [SC, serviceCIDR('ranges-b1', ['10.110.0.0/16'], { 'range-set': 'b' })],
      [SC, serviceCIDR('ranges-b2', ['10.110.0.0/20'], { 'range-set': 'b' })],
      [VAPB, binding('within-b', 'within-params', ['Deny'], { paramRef: { selector: { matchLabels: { 'range-set': 'b' } }, parameterNotFoundAction: 'Allow' }, matchResources: { objectSelector: { matchLabels: { set: 'b' } } } })],
      [VAPB, binding('within-c', 'within-params', ['Deny'], { paramRef: { selector: { matchLabels: { 'range-set': 'c' } }, parameterNotFoundAction: 'Allow' }, matchResources: { objectSelector: { matchLabels: { set: 'c' } } } })],
      [VAPB, binding('within-d', 'within-params', ['Deny'], { paramRef: { name: 'ranges-d', parameterNotFoundAction: 'Deny' }, matchResources: { objectSelector: { matchLabels: { set: 'd' } } } })],
    ]);
    // In ranges-b1 but not in the narrower ranges-b2: the second param denies.
    const r = await untilAnswered(server, SC, serviceCIDR('out-b', ['10.110.100.0/24'], { set: 'b' }), 422);
    assert.equal(r.json.message, `servicecidrs.networking.platform.io "out-b" is forbidden: ValidatingAdmissionPolicy 'within-params' with binding 'within-b' denied request: ServiceCIDR out-b is outside ranges-b2`);
    assert.equal((await server.request('POST', SC, { body: serviceCIDR('in-b', ['10.110.1.0/24'], { set: 'b' }) })).status, 201);
    // No param selected and Allow: nothing to check.
    assert.equal((await server.request('POST', SC, { body: serviceCIDR('any-c', ['192.168.0.0/24'], { set: 'c' }) })).status, 201);
    const d = await untilAnswered(server, SC, serviceCIDR('any-d', ['10.100.0.0/24'], { set: 'd' }), 422);
    assert.equal(d.json.message, "servicecidrs.networking.platform.io \"any-d\" is forbidden: ValidatingAdmissionPolicy 'within-params' with binding 'within-d' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction");
  });

  test('a paramKind this server does not serve is a configuration error under failurePolicy Fail', async () => {
    await createAll(server, [
      [
        VAP,
        policy('unknown-params', {
          paramKind: { apiVersion: 'example.com/v1', kind: 'Widget' },
          // Only this object: a policy that cannot be configured denies everything it matches.
          matchConstraints: { resourceRules: [{ apiGroups: ['networking.platform.io'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['servicecidrs'], resourceNames: ['widget-target'] }] },
          validations: [{ expression: 'true' }],
        }),
      ],
      [VAPB, binding('unknown-params', 'unknown-params', ['Deny'], { paramRef: { name: 'w', parameterNotFoundAction: 'Deny' } })],
    ]);
    const r = await untilAnswered(server, SC, serviceCIDR('widget-target', ['10.96.0.0/24']), 422);
    assert.equal(r.json.message, "servicecidrs.networking.platform.io \"widget-target\" is forbidden: ValidatingAdmissionPolicy 'unknown-params' denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=Widget'");
    assert.equal((await server.request('POST', SC, { body: serviceCIDR('not-a-widget', ['10.96.0.0/24']) })).status, 201);
  });

  test('pointing a policy or a binding at params needs "get" on them, as kube\'s registry requires', async () => {
    const p = await server.request('POST', VAP, { ...asJane, body: policy('jane-params', { paramKind: SERVICE_CIDR_PARAMS, validations: [{ expression: 'true' }] }) });
    assert.equal(p.status, 422, p.text);
    assert.equal(
      p.json.message,
      `ValidatingAdmissionPolicy.admissionregistration.k8s.io "jane-params" is invalid: spec.paramKind: Forbidden: user ${JANE} must have "get" permission on all objects of the referenced paramKind (kind=ServiceCIDR, apiVersion=networking.platform.io/v1)`,
    );
    // Bundles she may read: allowed.
    const ok = await server.request('POST', VAP, { ...asJane, body: policy('jane-bundles', { paramKind: { apiVersion: 'certificates.platform.io/v1beta1', kind: 'ClusterTrustBundle' }, validations: [{ expression: 'true' }] }) });
    assert.equal(ok.status, 201, ok.text);
    const b = await server.request('POST', VAPB, { ...asJane, body: binding('jane-binding', 'within-params', ['Deny'], { paramRef: { name: 'ranges-a', parameterNotFoundAction: 'Deny' } }) });
    assert.equal(b.status, 422, b.text);
    assert.equal(b.json.message, `ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io "jane-binding" is invalid: spec.paramRef: Forbidden: user ${JANE} does not have "get" permission on the object referenced by paramRef`);
  });

  test('`authorizer` in an expression asks this server\'s RBAC for the requesting user', async () => {
    await createAll(server, [
      [
        VAP,
        policy('deleters-only', {
          matchConditions: [{ name: 'mine', expression: "object.metadata.name.startsWith('authz-')" }],
          validations: [
            {
              expression: "authorizer.group('networking.platform.io').resource('servicecidrs').name(object.metadata.name).check('delete').allowed()",
              messageExpression: "'only users who may delete ' + object.metadata.name + ' may create it'",
              reason: 'Forbidden',
            },
            { expression: "authorizer.requestResource.check('create').allowed()" },
          ],
        }),
      ],
      [VAPB, binding('deleters-only', 'deleters-only', ['Deny'])],
    ]);
    const jane = await eventually(() => server.request('POST', `${SC}?dryRun=All`, { ...asJane, body: serviceCIDR('authz-1', ['10.96.0.0/24']) }), (r) => r.status === 403, 15_000, 100);
    assert.equal(jane.status, 403, jane.text);
    assert.equal(jane.json.message, `servicecidrs.networking.platform.io "authz-1" is forbidden: ValidatingAdmissionPolicy 'deleters-only' with binding 'deleters-only' denied request: only users who may delete authz-1 may create it`);
    const admin = await server.request('POST', SC, { body: serviceCIDR('authz-1', ['10.96.0.0/24']) });
    assert.equal(admin.status, 201, `the admin may delete, so may create: ${admin.text}`);
  });

  test('a policy on ClusterTrustBundle signers runs after the built-in attest check', async () => {
    const caPem = (await makeCACert()).pem;
    const bundle = (name: string, signerName: string) => ({ apiVersion: 'certificates.platform.io/v1beta1', kind: 'ClusterTrustBundle', metadata: { name }, spec: { signerName, trustBundle: caPem } });
    await createAll(server, [
      [
        VAP,
        policy('signers', {
          matchConstraints: { resourceRules: [{ apiGroups: ['certificates.platform.io'], apiVersions: ['v1beta1'], operations: ['CREATE', 'UPDATE'], resources: ['clustertrustbundles'] }] },
          validations: [{ expression: "!has(object.spec.signerName) || object.spec.signerName.startsWith('example.com/')", messageExpression: "'signer ' + object.spec.signerName + ' is not allowed here'", reason: 'Forbidden' }],
        }),
      ],
      [VAPB, binding('signers', 'signers', ['Deny'])],
    ]);
    const r = await untilAnswered(server, CTB, bundle('other.org:issuer:one', 'other.org/issuer'), 403);
    assert.equal(r.json.message, `clustertrustbundles.certificates.platform.io "other.org:issuer:one" is forbidden: ValidatingAdmissionPolicy 'signers' with binding 'signers' denied request: signer other.org/issuer is not allowed here`);
    assert.equal((await server.request('POST', CTB, { body: bundle('example.com:issuer:one', 'example.com/issuer') })).status, 201);
    // jane may create bundles but attest for no signer: the attest check answers first.
    const jane = await server.request('POST', CTB, { ...asJane, body: bundle('other.org:issuer:two', 'other.org/issuer') });
    assert.equal(jane.status, 403);
    assert.equal(jane.json.message, 'clustertrustbundles.certificates.platform.io "other.org:issuer:two" is forbidden: user not permitted to attest for signerName "other.org/issuer"');
  });
});
