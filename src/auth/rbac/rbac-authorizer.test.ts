import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AuthorizationAttributes } from '../authorizer.js';
import type { UserInfo } from '../../apimachinery/request-context.js';
import { privilegedGroupsAuthorizer, RbacAuthorizer, unionAuthorizer } from './rbac-authorizer.js';
import { withBootstrapPolicy } from './bootstrap-policy.js';
import { emptyPolicy, type RbacPolicy } from './rbac-types.js';

const user = (username: string, groups: string[] = []): UserInfo => ({ username, groups: [...groups, 'system:authenticated'] });

const request = (u: UserInfo, verb: string, resource: string, extra: Partial<AuthorizationAttributes> = {}): AuthorizationAttributes => ({
  user: u,
  verb,
  isResourceRequest: true,
  path: '',
  apiGroup: 'networking.platform.io',
  apiVersion: 'v1',
  resource,
  subresource: '',
  namespace: '',
  name: '',
  ...extra,
});

function policy(): RbacPolicy {
  const p = emptyPolicy();
  p.clusterRoles.set('cidr-editor', {
    kind: 'ClusterRole',
    metadata: { name: 'cidr-editor' },
    rules: [{ verbs: ['get', 'update'], apiGroups: ['networking.platform.io'], resources: ['servicecidrs', 'servicecidrs/status'] }],
  });
  p.clusterRoles.set('one-cidr', {
    kind: 'ClusterRole',
    metadata: { name: 'one-cidr' },
    rules: [{ verbs: ['get', 'list', 'create'], apiGroups: ['networking.platform.io'], resources: ['servicecidrs'], resourceNames: ['kubernetes'] }],
  });
  p.roles.set('team-a/impersonator', {
    kind: 'Role',
    metadata: { name: 'impersonator', namespace: 'team-a' },
    rules: [{ verbs: ['impersonate'], apiGroups: [''], resources: ['serviceaccounts'] }],
  });
  p.clusterRoleBindings.push(
    { kind: 'ClusterRoleBinding', metadata: { name: 'alice-edits' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cidr-editor' }, subjects: [{ kind: 'User', name: 'alice' }] },
    { kind: 'ClusterRoleBinding', metadata: { name: 'ops-one' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'one-cidr' }, subjects: [{ kind: 'Group', name: 'ops' }] },
    // A ServiceAccount subject without a namespace never matches in a ClusterRoleBinding.
    { kind: 'ClusterRoleBinding', metadata: { name: 'bad-sa' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cidr-editor' }, subjects: [{ kind: 'ServiceAccount', name: 'builder' }] },
  );
  p.roleBindings.push({
    kind: 'RoleBinding',
    metadata: { name: 'bob-impersonates', namespace: 'team-a' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'impersonator' },
    subjects: [{ kind: 'User', name: 'bob' }],
  });
  return withBootstrapPolicy(p);
}

const rbac = new RbacAuthorizer(policy);

describe('RBAC authorizer', () => {
  test('a ClusterRoleBinding to a user allows the listed verbs and explains why', async () => {
    const r = await rbac.authorize(request(user('alice'), 'update', 'servicecidrs', { name: 'x' }));
    assert.deepEqual(r, { decision: 'allow', reason: 'RBAC: allowed by ClusterRoleBinding "alice-edits" of ClusterRole "cidr-editor" to User "alice"' });
    assert.equal((await rbac.authorize(request(user('alice'), 'delete', 'servicecidrs', { name: 'x' }))).decision, 'no-opinion');
  });

  test('subresources must be named as resource/subresource', async () => {
    assert.equal((await rbac.authorize(request(user('alice'), 'update', 'servicecidrs', { subresource: 'status', name: 'x' }))).decision, 'allow');
    assert.equal((await rbac.authorize(request(user('carol', ['ops']), 'get', 'servicecidrs', { subresource: 'status', name: 'kubernetes' }))).decision, 'no-opinion');
  });

  test('resourceNames never authorize create or an unfiltered list', async () => {
    const ops = user('carol', ['ops']);
    assert.equal((await rbac.authorize(request(ops, 'get', 'servicecidrs', { name: 'kubernetes' }))).decision, 'allow');
    assert.equal((await rbac.authorize(request(ops, 'get', 'servicecidrs', { name: 'other' }))).decision, 'no-opinion');
    assert.equal((await rbac.authorize(request(ops, 'list', 'servicecidrs'))).decision, 'no-opinion');
    assert.equal((await rbac.authorize(request(ops, 'list', 'servicecidrs', { name: 'kubernetes' }))).decision, 'allow');
    assert.equal((await rbac.authorize(request(ops, 'create', 'servicecidrs'))).decision, 'no-opinion');
  });

  test('RoleBindings apply only in their namespace', async () => {
    const attrs = { apiGroup: '', resource: 'serviceaccounts', name: 'builder' };
    assert.equal((await rbac.authorize(request(user('bob'), 'impersonate', 'serviceaccounts', { ...attrs, namespace: 'team-a' }))).decision, 'allow');
    assert.equal((await rbac.authorize(request(user('bob'), 'impersonate', 'serviceaccounts', { ...attrs, namespace: 'team-b' }))).decision, 'no-opinion');
  });

  test('a ServiceAccount subject without a namespace never matches at cluster scope', async () => {
    const sa = user('system:serviceaccount:default:builder', ['system:serviceaccounts']);
    assert.equal((await rbac.authorize(request(sa, 'get', 'servicecidrs', { name: 'x' }))).decision, 'no-opinion');
  });

  test('bootstrap: every authenticated user may read ClusterTrustBundles, discover and self-review', async () => {
    const anyone = user('dave');
    const ctb = { apiGroup: 'certificates.platform.io', apiVersion: 'v1beta1' };
    for (const verb of ['get', 'list', 'watch']) {
      assert.equal((await rbac.authorize(request(anyone, verb, 'clustertrustbundles', ctb))).decision, 'allow', verb);
    }
    assert.equal((await rbac.authorize(request(anyone, 'create', 'clustertrustbundles', ctb))).decision, 'no-opinion');
    const path = (p: string) => request(anyone, 'get', '', { isResourceRequest: false, path: p });
    assert.equal((await rbac.authorize(path('/apis/networking.platform.io/v1'))).decision, 'allow');
    assert.equal((await rbac.authorize(path('/openapi/v3'))).decision, 'allow');
    assert.equal((await rbac.authorize(path('/metrics'))).decision, 'no-opinion');
    const review = request(anyone, 'create', 'selfsubjectaccessreviews', { apiGroup: 'authorization.k8s.io' });
    assert.equal((await rbac.authorize(review)).decision, 'allow');
  });

  test('the union asks system:masters first, then RBAC', async () => {
    const union = unionAuthorizer([privilegedGroupsAuthorizer(['system:masters']), rbac]);
    assert.equal((await union.authorize(request(user('root', ['system:masters']), 'delete', 'servicecidrs'))).decision, 'allow');
    assert.equal((await union.authorize(request(user('eve'), 'delete', 'servicecidrs'))).decision, 'no-opinion');
  });
});
