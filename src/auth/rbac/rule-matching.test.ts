// RBAC's rule and subject matching on its own (rbac/v1 evaluation helpers): each case is one way
// kube's RuleAllows / appliesTo answers that a small change here would turn around.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AuthorizationAttributes } from '../authorizer.js';
import { describeSubject, ruleAllows, subjectMatches } from './rule-matching.js';
import type { PolicyRule } from './rbac-types.js';

const resource = (verb: string, group: string, res: string, subresource = '', name = ''): AuthorizationAttributes => ({
  user: { username: 'u', groups: [] },
  verb,
  isResourceRequest: true,
  path: '',
  apiGroup: group,
  apiVersion: 'v1',
  resource: res,
  subresource,
  namespace: '',
  name,
});

const nonResource = (verb: string, path: string): AuthorizationAttributes => ({
  user: { username: 'u', groups: [] },
  verb,
  isResourceRequest: false,
  path,
  apiGroup: '',
  apiVersion: '',
  resource: '',
  subresource: '',
  namespace: '',
  name: '',
});

const G = 'networking.platform.io';

describe('ruleAllows: resource rules', () => {
  test('verbs: an exact verb or *, nothing else', () => {
    const rule: PolicyRule = { verbs: ['get'], apiGroups: [G], resources: ['servicecidrs'] };
    assert.equal(ruleAllows(resource('get', G, 'servicecidrs'), rule), true);
    assert.equal(ruleAllows(resource('list', G, 'servicecidrs'), rule), false);
    assert.equal(ruleAllows(resource('list', G, 'servicecidrs'), { ...rule, verbs: ['*'] }), true);
  });

  test('apiGroups: an exact group or *; a rule without apiGroups matches no resource', () => {
    const rule: PolicyRule = { verbs: ['get'], apiGroups: [G], resources: ['servicecidrs'] };
    assert.equal(ruleAllows(resource('get', 'other.io', 'servicecidrs'), rule), false);
    assert.equal(ruleAllows(resource('get', 'other.io', 'servicecidrs'), { ...rule, apiGroups: ['*'] }), true);
    assert.equal(ruleAllows(resource('get', G, 'servicecidrs'), { verbs: ['get'], resources: ['servicecidrs'] }), false);
  });

  test('resources: exact, *, resource/subresource; a rule without resources matches none', () => {
    const rule: PolicyRule = { verbs: ['get'], apiGroups: [G], resources: ['servicecidrs'] };
    assert.equal(ruleAllows(resource('get', G, 'clustertrustbundles'), rule), false);
    assert.equal(ruleAllows(resource('get', G, 'clustertrustbundles'), { ...rule, resources: ['*'] }), true);
    assert.equal(ruleAllows(resource('get', G, 'servicecidrs'), { verbs: ['get'], apiGroups: [G] }), false);
    // The main resource's rule does not reach its subresource, nor the other way round.
    assert.equal(ruleAllows(resource('get', G, 'servicecidrs', 'status'), rule), false);
    assert.equal(ruleAllows(resource('get', G, 'servicecidrs', 'status'), { ...rule, resources: ['servicecidrs/status'] }), true);
    assert.equal(ruleAllows(resource('get', G, 'servicecidrs'), { ...rule, resources: ['servicecidrs/status'] }), false);
  });

  test('*/status allows the status of any resource, and nothing else', () => {
    const rule: PolicyRule = { verbs: ['update'], apiGroups: [G], resources: ['*/status'] };
    assert.equal(ruleAllows(resource('update', G, 'servicecidrs', 'status'), rule), true);
    assert.equal(ruleAllows(resource('update', G, 'clustertrustbundles', 'status'), rule), true);
    assert.equal(ruleAllows(resource('update', G, 'servicecidrs', 'scale'), rule), false);
    assert.equal(ruleAllows(resource('update', G, 'servicecidrs'), rule), false);
    // `*/` with no subresource on the request is not a wildcard for the main resource.
    assert.equal(ruleAllows(resource('update', G, 'servicecidrs'), { ...rule, resources: ['*/'] }), false);
  });

  test('resourceNames: empty allows any name; otherwise only the listed names, never an unnamed request', () => {
    const rule: PolicyRule = { verbs: ['get', 'list'], apiGroups: [G], resources: ['servicecidrs'], resourceNames: ['kubernetes'] };
    assert.equal(ruleAllows(resource('get', G, 'servicecidrs', '', 'kubernetes'), rule), true);
    assert.equal(ruleAllows(resource('get', G, 'servicecidrs', '', 'other'), rule), false);
    assert.equal(ruleAllows(resource('list', G, 'servicecidrs'), rule), false);
    assert.equal(ruleAllows(resource('get', G, 'servicecidrs', '', 'other'), { ...rule, resourceNames: [] }), true);
    assert.equal(ruleAllows(resource('list', G, 'servicecidrs'), { ...rule, resourceNames: [] }), true);
  });

  test('resourceNames are compared as kube compares them: a listed empty name matches an unnamed request', () => {
    const rule: PolicyRule = { verbs: ['list', 'get'], apiGroups: [G], resources: ['servicecidrs'], resourceNames: [''] };
    assert.equal(ruleAllows(resource('list', G, 'servicecidrs'), rule), true);
    assert.equal(ruleAllows(resource('get', G, 'servicecidrs', '', 'kubernetes'), rule), false);
  });

  test('a resource rule never allows a non-resource URL', () => {
    const rule: PolicyRule = { verbs: ['get'], apiGroups: ['*'], resources: ['*'] };
    assert.equal(ruleAllows(nonResource('get', '/healthz'), rule), false);
  });
});

describe('ruleAllows: non-resource URLs', () => {
  test('an exact path', () => {
    const rule: PolicyRule = { verbs: ['get'], nonResourceURLs: ['/healthz'] };
    assert.equal(ruleAllows(nonResource('get', '/healthz'), rule), true);
    assert.equal(ruleAllows(nonResource('get', '/healthz/ping'), rule), false);
    assert.equal(ruleAllows(nonResource('post', '/healthz'), rule), false);
  });

  test('/healthz/* is a prefix ending in the slash: /healthz/ping, not /healthzx nor /healthz', () => {
    const rule: PolicyRule = { verbs: ['get'], nonResourceURLs: ['/healthz/*'] };
    assert.equal(ruleAllows(nonResource('get', '/healthz/ping'), rule), true);
    assert.equal(ruleAllows(nonResource('get', '/healthz/'), rule), true);
    assert.equal(ruleAllows(nonResource('get', '/healthzx'), rule), false);
    assert.equal(ruleAllows(nonResource('get', '/healthz'), rule), false);
  });

  test('every trailing * is trimmed from a prefix rule (Go\'s TrimRight): /healthz/** is /healthz/*, ** is *', () => {
    assert.equal(ruleAllows(nonResource('get', '/healthz/ping'), { verbs: ['get'], nonResourceURLs: ['/healthz/**'] }), true);
    assert.equal(ruleAllows(nonResource('get', '/healthz'), { verbs: ['get'], nonResourceURLs: ['/healthz/**'] }), false);
    assert.equal(ruleAllows(nonResource('get', '/metrics'), { verbs: ['get'], nonResourceURLs: ['**'] }), true);
  });

  test('* matches every path; a rule without nonResourceURLs matches none', () => {
    assert.equal(ruleAllows(nonResource('get', '/metrics'), { verbs: ['get'], nonResourceURLs: ['*'] }), true);
    assert.equal(ruleAllows(nonResource('get', '/metrics'), { verbs: ['get'] }), false);
    // A `*` only counts at the end: `/api*x` is an exact path that no request names.
    assert.equal(ruleAllows(nonResource('get', '/apis'), { verbs: ['get'], nonResourceURLs: ['/api*x'] }), false);
  });

  test('a non-resource rule never allows a resource request', () => {
    assert.equal(ruleAllows(resource('get', G, 'servicecidrs'), { verbs: ['get'], nonResourceURLs: ['*'] }), false);
  });
});

describe('subjectMatches', () => {
  const user = (username: string, groups: string[] = []) => ({ username, groups });

  test('User by name, Group by membership', () => {
    assert.equal(subjectMatches({ kind: 'User', name: 'alice' }, user('alice'), ''), true);
    assert.equal(subjectMatches({ kind: 'User', name: 'alice' }, user('bob', ['alice']), ''), false);
    assert.equal(subjectMatches({ kind: 'Group', name: 'ops' }, user('bob', ['ops']), ''), true);
    assert.equal(subjectMatches({ kind: 'Group', name: 'ops' }, user('ops'), ''), false);
  });

  test("a ServiceAccount by its username, its namespace defaulting to the binding's", () => {
    const sa = user('system:serviceaccount:team-a:builder');
    assert.equal(subjectMatches({ kind: 'ServiceAccount', name: 'builder', namespace: 'team-a' }, sa, ''), true);
    assert.equal(subjectMatches({ kind: 'ServiceAccount', name: 'builder' }, sa, 'team-a'), true);
    assert.equal(subjectMatches({ kind: 'ServiceAccount', name: 'builder', namespace: 'team-a' }, sa, 'team-b'), true);
    assert.equal(subjectMatches({ kind: 'ServiceAccount', name: 'builder', namespace: 'team-b' }, sa, 'team-a'), false);
    assert.equal(subjectMatches({ kind: 'ServiceAccount', name: 'other', namespace: 'team-a' }, sa, ''), false);
  });

  test('a ServiceAccount subject with no namespace, in a ClusterRoleBinding, matches no one', () => {
    // Not even the username an empty namespace would spell.
    assert.equal(subjectMatches({ kind: 'ServiceAccount', name: 'builder' }, user('system:serviceaccount::builder'), ''), false);
    assert.equal(subjectMatches({ kind: 'ServiceAccount', name: 'builder', namespace: '' }, user('system:serviceaccount::builder'), ''), false);
  });

  test('an unknown subject kind matches no one', () => {
    assert.equal(subjectMatches({ kind: 'Robot', name: 'alice' } as never, user('alice', ['alice']), ''), false);
  });
});

describe('describeSubject', () => {
  test('as RBAC names a subject in its reasons', () => {
    assert.equal(describeSubject({ kind: 'User', name: 'alice' }), 'User "alice"');
    assert.equal(describeSubject({ kind: 'Group', name: 'ops' }), 'Group "ops"');
    assert.equal(describeSubject({ kind: 'ServiceAccount', name: 'builder', namespace: 'team-a' }), 'ServiceAccount "team-a/builder"');
    assert.equal(describeSubject({ kind: 'ServiceAccount', name: 'builder' }), 'ServiceAccount "/builder"');
  });
});
