import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError } from '../../apimachinery/status-error.js';
import { ALL_RULES, type Authorizer } from '../../auth/authorizer.js';
import { impersonationFilter } from './impersonation.js';
import { fakeExchange } from './test-state.js';

const admin = { username: 'admin', groups: ['system:masters'] };
const allowAdmin: Authorizer = {
  rulesFor: async () => ALL_RULES,
  authorize: async (a) => ({ decision: a.user.username === 'admin' ? 'allow' : 'no-opinion', reason: '' }),
};

test('with Impersonate-* headers the request acts as the impersonated user', async () => {
  const x = fakeExchange({ user: admin, headers: { 'impersonate-user': 'bob' } });
  await impersonationFilter(allowAdmin)(x.state, async () => {});
  assert.equal(x.state.impersonated?.username, 'bob');
  assert.equal(x.state.authenticated?.username, 'admin');
});

test('without them nothing changes; a refused impersonation is a 403', async () => {
  const x = fakeExchange({ user: admin });
  await impersonationFilter(allowAdmin)(x.state, async () => {});
  assert.equal(x.state.impersonated, undefined);
  const y = fakeExchange({ user: { username: 'eve', groups: [] }, headers: { 'impersonate-user': 'bob' } });
  await assert.rejects(
    impersonationFilter(allowAdmin)(y.state, async () => assert.fail('must not pass')),
    (e: unknown) => isStatusError(e) && e.status.code === 403,
  );
});

test('a malformed Impersonate-Extra escape is kept as written (kube), never a 500', async () => {
  const x = fakeExchange({ user: admin, headers: { 'impersonate-user': 'bob', 'impersonate-extra-%zz': 'v', 'impersonate-extra-a%2fb': 'w' } });
  await impersonationFilter(allowAdmin)(x.state, async () => {});
  assert.deepEqual(x.state.impersonated?.extra, { '%zz': ['v'], 'a/b': ['w'] });
});
