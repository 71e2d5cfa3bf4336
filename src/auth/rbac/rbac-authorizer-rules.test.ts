// RBAC beyond the basics: a RoleBinding's reason, a RoleBinding to a ClusterRole in a namespace,
// a Role never granted cluster-wide, the first matching subject named; rulesFor (what
// SelfSubjectRulesReview shows); and the union's reasons and evaluation errors.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AuthorizationAttributes, Authorizer, AuthorizationResult, UserRules } from '../authorizer.js';
import type { UserInfo } from '../../apimachinery/request-context.js';
import { RbacAuthorizer, privilegedGroupsAuthorizer, unionAuthorizer } from './rbac-authorizer.js';
import { emptyPolicy, type RbacPolicy } from './rbac-types.js';

const user = (username: string, groups: string[] = []): UserInfo => ({ username, groups });
const request = (u: UserInfo, verb: string, resource: string, extra: Partial<AuthorizationAttributes> = {}): AuthorizationAttributes => ({
  user: u, verb, isResourceRequest: true, path: '', apiGroup: '', apiVersion: 'v1', resource, subresource: '', namespace: '', name: '', ...extra,
});
const ref = (kind: 'ClusterRole' | 'Role', name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind, name });

function policy(): RbacPolicy {
  const p = emptyPolicy();
  p.clusterRoles.set('reader', { kind: 'ClusterRole', metadata: { name: 'reader' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['serviceaccounts'] }, { verbs: ['get'], nonResourceURLs: ['/healthz'] }] });
  p.clusterRoles.set('named', { kind: 'ClusterRole', metadata: { name: 'named' }, rules: [{ verbs: ['get'], apiGroups: ['g'], resources: ['r'], resourceNames: ['n'] }] });
  p.roles.set('team-a/editor', { kind: 'Role', metadata: { name: 'editor', namespace: 'team-a' }, rules: [{ verbs: ['update'], apiGroups: [''], resources: ['serviceaccounts'] }] });
  p.clusterRoleBindings.push(
    // A Role named by a ClusterRoleBinding grants nothing: Roles live in a namespace.
    { kind: 'ClusterRoleBinding', metadata: { name: 'wrong-kind' }, roleRef: ref('Role', 'editor'), subjects: [{ kind: 'User', name: 'alice' }] },
    { kind: 'ClusterRoleBinding', metadata: { name: 'names' }, roleRef: ref('ClusterRole', 'named'), subjects: [{ kind: 'Group', name: 'ops' }, { kind: 'User', name: 'carol' }] },
    { kind: 'ClusterRoleBinding', metadata: { name: 'no-subjects' }, roleRef: ref('ClusterRole', 'reader') },
    { kind: 'ClusterRoleBinding', metadata: { name: 'missing-role' }, roleRef: ref('ClusterRole', 'nope'), subjects: [{ kind: 'User', name: 'alice' }] },
  );
  p.roleBindings.push(
    { kind: 'RoleBinding', metadata: { name: 'edit', namespace: 'team-a' }, roleRef: ref('Role', 'editor'), subjects: [{ kind: 'ServiceAccount', name: 'builder' }] },
    { kind: 'RoleBinding', metadata: { name: 'read', namespace: 'team-a' }, roleRef: ref('ClusterRole', 'reader'), subjects: [{ kind: 'User', name: 'alice' }] },
    { kind: 'RoleBinding', metadata: { name: 'no-subjects', namespace: 'team-a' }, roleRef: ref('ClusterRole', 'reader') },
  );
  return p;
}
const rbac = new RbacAuthorizer(policy);

describe('RBAC authorizer', () => {
  test('a RoleBinding allows in its namespace and says so; its ServiceAccount subject takes the namespace', async () => {
    const sa = user('system:serviceaccount:team-a:builder');
    assert.deepEqual(await rbac.authorize(request(sa, 'update', 'serviceaccounts', { namespace: 'team-a', name: 'x' })), {
      decision: 'allow',
      reason: 'RBAC: allowed by RoleBinding "edit/team-a" of Role "editor" to ServiceAccount "/builder"',
    });
    assert.equal((await rbac.authorize(request(sa, 'update', 'serviceaccounts', { namespace: 'team-b', name: 'x' }))).decision, 'no-opinion');
    assert.equal((await rbac.authorize(request(sa, 'update', 'serviceaccounts', { name: 'x' }))).decision, 'no-opinion', 'never cluster-wide');
  });

  test('a RoleBinding to a ClusterRole grants its rules in the namespace only', async () => {
    const alice = user('alice');
    assert.deepEqual(await rbac.authorize(request(alice, 'get', 'serviceaccounts', { namespace: 'team-a' })), {
      decision: 'allow',
      reason: 'RBAC: allowed by RoleBinding "read/team-a" of ClusterRole "reader" to User "alice"',
    });
    assert.equal((await rbac.authorize(request(alice, 'get', 'serviceaccounts'))).decision, 'no-opinion');
    assert.equal((await rbac.authorize(request(alice, 'update', 'serviceaccounts', { namespace: 'team-a' }))).decision, 'no-opinion', 'a Role through a ClusterRoleBinding grants nothing');
  });

  test('the reason names the first subject of the binding that matches', async () => {
    const r = await rbac.authorize(request(user('carol', ['ops']), 'get', 'r', { apiGroup: 'g', name: 'n' }));
    assert.equal(r.reason, 'RBAC: allowed by ClusterRoleBinding "names" of ClusterRole "named" to Group "ops"');
  });

  test('rulesFor: cluster bindings, then the namespace\'s bindings; resource names kept; a Role outside its namespace gives nothing', async () => {
    assert.deepEqual(await rbac.rulesFor(user('alice'), 'team-a'), {
      resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['serviceaccounts'] }],
      nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
      incomplete: false,
    });
    assert.deepEqual(await rbac.rulesFor(user('alice'), 'team-b'), { resourceRules: [], nonResourceRules: [], incomplete: false });
    assert.deepEqual((await rbac.rulesFor(user('carol'), '')).resourceRules, [{ verbs: ['get'], apiGroups: ['g'], resources: ['r'], resourceNames: ['n'] }]);
    assert.deepEqual((await rbac.rulesFor(user('system:serviceaccount:team-a:builder'), 'team-a')).resourceRules, [{ verbs: ['update'], apiGroups: [''], resources: ['serviceaccounts'] }]);
  });
});

describe('RBAC authorizer: no opinion', () => {
  test('nothing allows: no opinion, with no reason', async () => {
    assert.deepEqual(await rbac.authorize(request(user('alice'), 'delete', 'serviceaccounts', { namespace: 'team-a' })), { decision: 'no-opinion', reason: '' });
  });

  test('a RoleBinding never applies to a cluster-scoped request, even one that names no namespace', async () => {
    const p = emptyPolicy();
    p.clusterRoles.set('all', { kind: 'ClusterRole', metadata: { name: 'all' }, rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }] });
    p.roleBindings.push({ kind: 'RoleBinding', metadata: { name: 'stray' }, roleRef: ref('ClusterRole', 'all'), subjects: [{ kind: 'User', name: 'alice' }] });
    assert.deepEqual(await new RbacAuthorizer(() => p).authorize(request(user('alice'), 'get', 'servicecidrs')), { decision: 'no-opinion', reason: '' });
  });

  test('rulesFor: a rule without apiGroups is shown with none', async () => {
    const p = emptyPolicy();
    p.clusterRoles.set('groupless', { kind: 'ClusterRole', metadata: { name: 'groupless' }, rules: [{ verbs: ['get'], resources: ['r'] }] });
    p.clusterRoleBindings.push({ kind: 'ClusterRoleBinding', metadata: { name: 'b' }, roleRef: ref('ClusterRole', 'groupless'), subjects: [{ kind: 'User', name: 'alice' }] });
    assert.deepEqual(await new RbacAuthorizer(() => p).rulesFor(user('alice'), ''), {
      resourceRules: [{ verbs: ['get'], apiGroups: [], resources: ['r'] }],
      nonResourceRules: [],
      incomplete: false,
    });
  });
});

describe('privileged groups and the union', () => {
  const fixed = (result: AuthorizationResult, rules: UserRules = { resourceRules: [], nonResourceRules: [], incomplete: false }): Authorizer => ({
    authorize: async () => result,
    rulesFor: async () => rules,
  });

  test('privileged groups: everything for members, nothing for others', async () => {
    const masters = privilegedGroupsAuthorizer(['system:masters']);
    assert.deepEqual(await masters.authorize(request(user('x', ['system:masters']), 'delete', 'r')), { decision: 'allow', reason: '' });
    assert.deepEqual(await masters.rulesFor(user('x'), ''), { resourceRules: [], nonResourceRules: [], incomplete: false });
    assert.deepEqual((await masters.rulesFor(user('x', ['system:masters']), '')).resourceRules[0]?.verbs, ['*']);
    assert.deepEqual(await masters.authorize(request(user('x', ['ops']), 'delete', 'r')), { decision: 'no-opinion', reason: '' });
  });

  test('the first allow or deny decides; reasons and errors of the others are joined', async () => {
    const denied = await unionAuthorizer([fixed({ decision: 'no-opinion', reason: 'a' }), fixed({ decision: 'deny', reason: 'no' }), fixed({ decision: 'allow', reason: 'late' })]).authorize(request(user('u'), 'get', 'r'));
    assert.deepEqual(denied, { decision: 'deny', reason: 'no' });
    const none = await unionAuthorizer([
      fixed({ decision: 'no-opinion', reason: 'a', error: 'e1' }),
      fixed({ decision: 'no-opinion', reason: '' }),
      fixed({ decision: 'no-opinion', reason: 'b', error: 'e2' }),
    ]).authorize(request(user('u'), 'get', 'r'));
    assert.deepEqual(none, { decision: 'no-opinion', reason: 'a\nb', error: '[e1, e2]' });
    const one = await unionAuthorizer([fixed({ decision: 'no-opinion', reason: '', error: 'only' })]).authorize(request(user('u'), 'get', 'r'));
    assert.deepEqual(one, { decision: 'no-opinion', reason: '', error: 'only' });
    // No errors: no error at all (not an empty aggregate).
    const clean = await unionAuthorizer([fixed({ decision: 'no-opinion', reason: 'a' }), fixed({ decision: 'no-opinion', reason: 'b' })]).authorize(request(user('u'), 'get', 'r'));
    assert.deepEqual(clean, { decision: 'no-opinion', reason: 'a\nb' });
  });

  test('rulesFor joins every authorizer\'s rules, incompleteness and errors', async () => {
    const rule = { verbs: ['get'], apiGroups: [''], resources: ['r'] };
    const out = await unionAuthorizer([
      fixed({ decision: 'no-opinion', reason: '' }, { resourceRules: [rule], nonResourceRules: [], incomplete: false }),
      fixed({ decision: 'no-opinion', reason: '' }, { resourceRules: [], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/x'] }], incomplete: true, evaluationError: 'e1' }),
    ]).rulesFor(user('u'), '');
    assert.deepEqual(out, { resourceRules: [rule], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/x'] }], incomplete: true, evaluationError: 'e1' });
    const two = await unionAuthorizer([
      fixed({ decision: 'no-opinion', reason: '' }, { resourceRules: [], nonResourceRules: [], incomplete: false, evaluationError: 'e1' }),
      fixed({ decision: 'no-opinion', reason: '' }, { resourceRules: [], nonResourceRules: [], incomplete: false, evaluationError: 'e2' }),
    ]).rulesFor(user('u'), '');
    assert.equal(two.evaluationError, '[e1, e2]');
    assert.equal(two.incomplete, false);
    const clean = await unionAuthorizer([fixed({ decision: 'no-opinion', reason: '' }), fixed({ decision: 'no-opinion', reason: '' })]).rulesFor(user('u'), '');
    assert.deepEqual(clean, { resourceRules: [], nonResourceRules: [], incomplete: false });
  });
});
