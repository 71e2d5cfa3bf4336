import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError } from '../apimachinery/status-error.js';
import type { UserInfo } from '../apimachinery/request-context.js';
import { ALL_RULES, type AuthorizationAttributes, type Authorizer } from './authorizer.js';
import { resolveImpersonation, wantsImpersonation } from './impersonation.js';

const alice: UserInfo = { username: 'alice', groups: ['system:authenticated'] };

/** Allows the listed `resource/name[@namespace]` impersonations. */
function allowing(...allowed: string[]): Authorizer & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    rulesFor: async () => ALL_RULES,
    async authorize(a: AuthorizationAttributes) {
      const res = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
      const key = `${res}/${a.name}${a.namespace ? `@${a.namespace}` : ''}`;
      asked.push(`${a.verb} ${a.apiGroup || 'core'} ${key}`);
      return { decision: allowed.includes(key) ? 'allow' : 'no-opinion', reason: '' };
    },
  };
}

describe('impersonation', () => {
  test('detects impersonation headers', () => {
    assert.equal(wantsImpersonation({ 'impersonate-user': ['bob'] }), true);
    assert.equal(wantsImpersonation({ authorization: 'Bearer x' }), false);
    // As kube reads them: a blank user or uid asks for nothing; a group or extra header always asks.
    assert.equal(wantsImpersonation({ 'impersonate-user': [''] }), false);
    assert.equal(wantsImpersonation({ 'impersonate-user': '', 'impersonate-uid': '' }), false);
    assert.equal(wantsImpersonation({ 'impersonate-user': '', 'impersonate-group': '' }), true);
    assert.equal(wantsImpersonation({ 'impersonate-extra-team': 'x' }), true);
  });

  test('user, groups, uid and extras are each authorized, and system:authenticated is added', async () => {
    const authz = allowing('users/bob', 'groups/devs', 'groups/qa', 'uids/u-9', 'userextras/team/platform');
    const user = await resolveImpersonation(
      alice,
      { 'impersonate-user': ['bob'], 'impersonate-group': ['devs', 'qa'], 'impersonate-uid': ['u-9'], 'impersonate-extra-team': ['platform'] },
      authz,
    );
    assert.deepEqual(user, { username: 'bob', uid: 'u-9', groups: ['devs', 'qa', 'system:authenticated'], extra: { team: ['platform'] } });
    assert.deepEqual(authz.asked, [
      'impersonate core users/bob',
      'impersonate core groups/devs',
      'impersonate core groups/qa',
      'impersonate authentication.k8s.io userextras/team/platform',
      'impersonate authentication.k8s.io uids/u-9',
    ]);
  });

  test('an empty Impersonate-Uid asks for nothing: not authorized, not applied (kube reads it as absent)', async () => {
    const authz = allowing('users/bob');
    const user = await resolveImpersonation(alice, { 'impersonate-user': ['bob'], 'impersonate-uid': [''] }, authz);
    assert.deepEqual(user, { username: 'bob', groups: ['system:authenticated'] });
    assert.deepEqual(authz.asked, ['impersonate core users/bob']);
    // Only the first value counts, as Go's Header.Get: an empty first one is no uid at all.
    assert.deepEqual(await resolveImpersonation(alice, { 'impersonate-user': ['bob'], 'impersonate-uid': ['', 'u-9'] }, allowing('users/bob')), { username: 'bob', groups: ['system:authenticated'] });
    // An empty uid alone is no impersonation, so it needs no user either.
    assert.equal(wantsImpersonation({ 'impersonate-uid': [''] }), false);
  });

  test('a service account is authorized in its namespace and gets its groups', async () => {
    const user = await resolveImpersonation(alice, { 'impersonate-user': ['system:serviceaccount:team-a:builder'] }, allowing('serviceaccounts/builder@team-a'));
    assert.deepEqual(user, {
      username: 'system:serviceaccount:team-a:builder',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:team-a', 'system:authenticated'],
    });
  });

  test('a refused impersonation is a 403 in kube-apiserver form', async () => {
    await assert.rejects(resolveImpersonation(alice, { 'impersonate-user': ['bob'] }, allowing()), (e: unknown) => {
      assert.ok(isStatusError(e));
      assert.equal(e.code, 403);
      assert.equal(e.message, 'users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope');
      return true;
    });
  });

  test('groups without a user are refused like upstream (500)', async () => {
    await assert.rejects(resolveImpersonation(alice, { 'impersonate-group': ['devs'] }, allowing()), (e: unknown) => isStatusError(e) && e.code === 500);
  });

  test('impersonating system:anonymous yields system:unauthenticated', async () => {
    const user = await resolveImpersonation(alice, { 'impersonate-user': ['system:anonymous'] }, allowing('users/system:anonymous'));
    assert.deepEqual(user.groups, ['system:unauthenticated']);
  });

  test('extra keys are lower-cased and percent-decoded', async () => {
    const user = await resolveImpersonation(alice, { 'impersonate-user': ['bob'], 'impersonate-extra-example.com%2fteam': ['a', 'b'] }, allowing('users/bob', 'userextras/example.com/team/a', 'userextras/example.com/team/b'));
    assert.deepEqual(user.extra, { 'example.com/team': ['a', 'b'] });
  });
});
