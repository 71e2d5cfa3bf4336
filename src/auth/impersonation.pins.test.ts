// Impersonation cases beyond the basic ones (issue #35's mutation run): the exact question each
// part asks, how groups are completed, which names count as service accounts, header spelling,
// an authorizer failure, and extras kube's way.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError } from '../apimachinery/status-error.js';
import type { UserInfo } from '../apimachinery/request-context.js';
import { ALL_RULES, type AuthorizationAttributes, type Authorizer } from './authorizer.js';
import { resolveImpersonation, wantsImpersonation } from './impersonation.js';

const alice: UserInfo = { username: 'alice', groups: ['system:authenticated'] };

function recording(allow = true): Authorizer & { asked: AuthorizationAttributes[] } {
  const asked: AuthorizationAttributes[] = [];
  return {
    asked,
    rulesFor: async () => ALL_RULES,
    async authorize(a) {
      asked.push(a);
      return { decision: allow ? 'allow' : 'deny', reason: allow ? '' : 'not today' };
    },
  };
}

const status = async (p: Promise<unknown>): Promise<{ code: number; message: string }> => {
  try {
    await p;
  } catch (e) {
    if (isStatusError(e)) return { code: e.code, message: e.message };
    throw e;
  }
  assert.fail('expected a StatusError');
};

describe('wantsImpersonation', () => {
  test('header names in any case; other headers starting with i are not impersonation', () => {
    assert.equal(wantsImpersonation({ 'Impersonate-User': ['bob'] }), true);
    assert.equal(wantsImpersonation({ 'IMPERSONATE-GROUP': 'devs' }), true);
    assert.equal(wantsImpersonation({ 'impersonate-uid': ['u-1'] }), true);
    assert.equal(wantsImpersonation({ 'impersonate-uid': [''] }), false);
    assert.equal(wantsImpersonation({ 'if-match': 'x', 'impersonate-userx': 'bob', 'x-impersonate-user': 'bob' }), false);
    assert.equal(wantsImpersonation({ 'impersonate-user': ['', 'bob'] }), true);
    assert.equal(wantsImpersonation({ 'impersonate-user': undefined }), false);
    const inherited = Object.create({ 'impersonate-user': 'bob' }) as Record<string, string>;
    assert.equal(wantsImpersonation(inherited), false);
  });
});

describe('resolveImpersonation', () => {
  test('each part is asked as a cluster-scoped impersonate resource request, v1', async () => {
    const authz = recording();
    await resolveImpersonation(alice, { 'impersonate-user': ['system:serviceaccount:ns:sa'], 'impersonate-extra-scopes': ['view'] }, authz);
    const base = { user: alice, verb: 'impersonate', isResourceRequest: true, path: '', apiVersion: 'v1' };
    assert.deepEqual(authz.asked, [
      { ...base, apiGroup: '', resource: 'serviceaccounts', subresource: '', namespace: 'ns', name: 'sa' },
      { ...base, apiGroup: 'authentication.k8s.io', resource: 'userextras', subresource: 'scopes', namespace: '', name: 'view' },
    ]);
  });

  test('a refused service account names its namespace; a denial keeps the reason; an authorizer error is a 403 with its message', async () => {
    assert.deepEqual(await status(resolveImpersonation(alice, { 'impersonate-user': ['system:serviceaccount:ns:sa'] }, recording(false))), {
      code: 403,
      message: 'serviceaccounts "sa" is forbidden: User "alice" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ns": not today',
    });
    const failing: Authorizer = {
      rulesFor: async () => ALL_RULES,
      async authorize() {
        throw new Error('webhook down');
      },
    };
    assert.deepEqual(await status(resolveImpersonation(alice, { 'impersonate-user': ['bob'] }, failing)), {
      code: 403,
      message: 'users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope: webhook down',
    });
  });

  test('only system:serviceaccount:<ns>:<name> with both parts is a service account', async () => {
    for (const name of ['system:serviceaccount:ns', 'system:serviceaccount::sa', 'system:serviceaccount:ns:', 'system:serviceaccount:a:b:c']) {
      const authz = recording();
      const user = await resolveImpersonation(alice, { 'impersonate-user': [name] }, authz);
      assert.equal(authz.asked[0]!.resource, 'users', name);
      assert.deepEqual(user.groups, ['system:authenticated'], name);
    }
  });

  test('groups given replace the service account groups; authenticated or unauthenticated is never added twice', async () => {
    const sa = await resolveImpersonation(alice, { 'impersonate-user': ['system:serviceaccount:ns:sa'], 'impersonate-group': ['devs'] }, recording());
    assert.deepEqual(sa.groups, ['devs', 'system:authenticated']);
    const authed = await resolveImpersonation(alice, { 'impersonate-user': ['bob'], 'impersonate-group': ['system:authenticated', 'x'] }, recording());
    assert.deepEqual(authed.groups, ['system:authenticated', 'x']);
    const unauthed = await resolveImpersonation(alice, { 'impersonate-user': ['bob'], 'impersonate-group': ['system:unauthenticated'] }, recording());
    assert.deepEqual(unauthed.groups, ['system:unauthenticated']);
    const anonymous = await resolveImpersonation(alice, { 'impersonate-user': ['system:anonymous'], 'impersonate-group': ['system:unauthenticated', 'y'] }, recording());
    assert.deepEqual(anonymous.groups, ['system:unauthenticated', 'y']);
    const anonymousWithGroups = await resolveImpersonation(alice, { 'impersonate-user': ['system:anonymous'], 'impersonate-group': ['y'] }, recording());
    assert.deepEqual(anonymousWithGroups.groups, ['y', 'system:unauthenticated']);
  });

  test('a uid or extras without a user are a 500 in upstream words; a blank user counts as none', async () => {
    const message = 'Internal error occurred: impersonating groups, extras or a uid requires impersonating a user (Impersonate-User)';
    assert.deepEqual(await status(resolveImpersonation(alice, { 'impersonate-uid': ['u'] }, recording())), { code: 500, message });
    assert.deepEqual(await status(resolveImpersonation(alice, { 'impersonate-user': [''], 'impersonate-extra-a': ['b'] }, recording())), { code: 500, message });
  });

  test('extras: repeated headers add up, a malformed escape is kept as written, __proto__ is a key like any other', async () => {
    const user = await resolveImpersonation(
      alice,
      { 'impersonate-user': ['bob'], 'impersonate-extra-team': ['a', 'b'], 'impersonate-extra-Team': 'c', 'impersonate-extra-bad%zz': ['x'], 'impersonate-extra-__proto__': ['p'] },
      recording(),
    );
    assert.deepEqual(Object.keys(user.extra!).sort(), ['__proto__', 'bad%zz', 'team']);
    assert.deepEqual(user.extra!.team, ['a', 'b', 'c']);
    assert.deepEqual(Object.getOwnPropertyDescriptor(user.extra, '__proto__')?.value, ['p']);
    assert.equal(Object.getPrototypeOf(user.extra), Object.prototype);
    // Without extras or a uid, neither appears.
    assert.deepEqual(await resolveImpersonation(alice, { 'impersonate-user': ['bob'] }, recording()), { username: 'bob', groups: ['system:authenticated'] });
  });
});
