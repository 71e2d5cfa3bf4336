import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { auditLevel, AuditPolicyError, parseAuditPolicy, type AuditRequest } from './audit-policy.js';

const policy = parseAuditPolicy(`
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: None
  users: ["system:kube-proxy"]
- level: None
  userGroups: ["quiet"]
  verbs: [get, list, watch]
- level: RequestResponse
  resources:
  - group: networking.platform.io
    resources: ["*/status"]
- level: Request
  resources:
  - group: certificates.platform.io
    resources: [clustertrustbundles]
    resourceNames: [important]
- level: Metadata
  nonResourceURLs: ["/apis*"]
  omitStages: [ResponseStarted]
`);

const req = (over: Partial<AuditRequest>): AuditRequest => ({
  user: { username: 'alice', groups: ['system:authenticated'] },
  verb: 'get',
  isResourceRequest: true,
  path: '',
  apiGroup: 'networking.platform.io',
  resource: 'servicecidrs',
  subresource: '',
  namespace: '',
  name: 'x',
  ...over,
});

describe('audit policy', () => {
  test('the first matching rule decides; stages from the policy and the rule are omitted', () => {
    assert.equal(auditLevel(policy, req({ user: { username: 'system:kube-proxy', groups: [] } })).level, 'None');
    assert.equal(auditLevel(policy, req({ user: { username: 'bob', groups: ['quiet'] } })).level, 'None');
    assert.equal(auditLevel(policy, req({ user: { username: 'bob', groups: ['quiet'] }, verb: 'update', subresource: 'status' })).level, 'RequestResponse');
    assert.deepEqual(auditLevel(policy, req({ subresource: 'status' })), { level: 'RequestResponse', omitStages: ['RequestReceived'] });
    assert.equal(auditLevel(policy, req({ apiGroup: 'certificates.platform.io', resource: 'clustertrustbundles', name: 'important' })).level, 'Request');
    assert.equal(auditLevel(policy, req({ apiGroup: 'certificates.platform.io', resource: 'clustertrustbundles', name: 'other' })).level, 'None');
    assert.deepEqual(auditLevel(policy, req({ isResourceRequest: false, path: '/apis/x' })), { level: 'Metadata', omitStages: ['RequestReceived', 'ResponseStarted'] });
    assert.equal(auditLevel(policy, req({ isResourceRequest: false, path: '/healthz' })).level, 'None');
  });

  test('malformed policies are refused with a reason', () => {
    assert.throws(() => parseAuditPolicy('kind: Pod\n'), AuditPolicyError);
    assert.throws(() => parseAuditPolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Loud\n'), /rules\[0\].level must be one of/);
    assert.throws(() => parseAuditPolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\nomitStages: [Later]\n'), /omitStages must list/);
  });
});
