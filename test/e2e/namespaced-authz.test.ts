// Namespaces in authorization and audit, with Events (the first namespaced kind): a RoleBinding
// grants in its namespace only (requests, the collection across namespaces, and `kubectl auth
// can-i` through SelfSubjectAccessReview, which keeps the namespace of a namespaced resource),
// kube's forbidden messages name the namespace, and audit events carry it in objectRef.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type TestServer } from './harness.js';
import { kubectlFor } from './kubectl.js';
import { requireTool } from './require-tool.js';

const POLICY = `
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: event-writer, namespace: default}
rules:
- apiGroups: [""]
  resources: [events]
  verbs: [create, get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: eve-writes-events, namespace: default}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: event-writer}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: eve}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: ip-reader}
rules:
- apiGroups: [networking.platform.io]
  resources: [ipaddresses]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: eve-reads-ips}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: ip-reader}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: eve}
`;

const event = (name: string) => ({ apiVersion: 'v1', kind: 'Event', metadata: { name }, involvedObject: { kind: 'ServiceCIDR', name: 'kubernetes', apiVersion: 'networking.platform.io/v1' }, reason: 'R', message: 'm', type: 'Normal' });
const kubectl133 = requireTool('/usr/lib/google-cloud-sdk/bin/kubectl.1.33', 'kubectl 1.33 is a supported client');

describe('namespaced authorization and audit', () => {
  let s: TestServer;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'platform-ns-authz-'));
    writeFileSync(join(dir, 'tokens.csv'), 'eve-token,eve,uid-eve\n');
    writeFileSync(join(dir, 'policy.yaml'), POLICY);
    s = await startServer({ args: ['--token-auth-file', join(dir, 'tokens.csv'), '--authorization-policy-file', join(dir, 'policy.yaml'), '--audit-log-path', join(dir, 'audit.log')] });
  });
  after(async () => {
    await s?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('a RoleBinding grants in its namespace only', async () => {
    const eve = { token: 'eve-token' };
    assert.equal((await s.request('POST', '/api/v1/namespaces/default/events', { ...eve, body: event('by-eve') })).status, 201);
    assert.equal((await s.request('GET', '/api/v1/namespaces/default/events', eve)).status, 200);
    const other = await s.request('GET', '/api/v1/namespaces/kube-system/events', eve);
    assert.equal(other.status, 403);
    assert.equal(other.json.message, 'events is forbidden: User "eve" cannot list resource "events" in API group "" in the namespace "kube-system"');
    const all = await s.request('GET', '/api/v1/events', eve);
    assert.equal(all.status, 403);
    assert.equal(all.json.message, 'events is forbidden: User "eve" cannot list resource "events" in API group "" at the cluster scope');
    const v1 = await s.request('GET', '/apis/events.k8s.io/v1/namespaces/default/events', eve);
    assert.equal(v1.status, 403, 'the Role names the core group only');
    const del = await s.request('DELETE', '/api/v1/namespaces/default/events/by-eve', eve);
    assert.equal(del.status, 403);
    assert.equal(del.json.message, 'events "by-eve" is forbidden: User "eve" cannot delete resource "events" in API group "" in the namespace "default"');
  });

  test('IPAddresses are authorized at the cluster scope', async () => {
    const eve = { token: 'eve-token' };
    assert.equal((await s.request('GET', '/apis/networking.platform.io/v1/ipaddresses', eve)).status, 200);
    const body = { apiVersion: 'networking.platform.io/v1', kind: 'IPAddress', metadata: { name: '10.0.0.9' }, spec: { parentRef: { resource: 'services', name: 'x' } } };
    const create = await s.request('POST', '/apis/networking.platform.io/v1/ipaddresses', { ...eve, body });
    assert.equal(create.status, 403);
    assert.equal(create.json.message, 'ipaddresses.networking.platform.io is forbidden: User "eve" cannot create resource "ipaddresses" in API group "networking.platform.io" at the cluster scope');
  });

  test('kubectl auth can-i keeps the namespace of a namespaced resource', { skip: !kubectl133 }, async () => {
    const k = kubectlFor(kubectl133!, s.kubeconfigPath);
    const can = (args: string[]) => k(['--token', 'eve-token', 'auth', 'can-i', ...args]);
    assert.equal((await can(['create', 'events', '-n', 'default'])).stdout.trim(), 'yes');
    assert.equal((await can(['create', 'events', '-n', 'kube-system'])).stdout.trim(), 'no');
    assert.equal((await can(['list', 'events', '-A'])).stdout.trim(), 'no');
  });

  test('audit events name the namespace in objectRef', async () => {
    assert.equal((await s.request('GET', '/api/v1/namespaces/kube-public/events/none')).status, 404);
    let ref: Record<string, string> | undefined;
    for (let i = 0; i < 100 && !ref; i++) {
      const lines = readFileSync(join(dir, 'audit.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      ref = lines.find((e) => e.requestURI === '/api/v1/namespaces/kube-public/events/none' && e.stage === 'ResponseComplete')?.objectRef;
      if (!ref) await new Promise((r) => setTimeout(r, 50));
    }
    assert.deepEqual({ resource: ref?.resource, namespace: ref?.namespace, name: ref?.name, apiVersion: ref?.apiVersion }, { resource: 'events', namespace: 'kube-public', name: 'none', apiVersion: 'v1' });
  });
});
