import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError } from '../../apimachinery/status-error.js';
import { ALL_RULES, type Authorizer } from '../../auth/authorizer.js';
import { resolveRequestInfo } from '../endpoints/request-info.js';
import { authorizationFilter } from './authorization.js';
import { fakeExchange } from './test-state.js';

const onlyAlice: Authorizer = {
  rulesFor: async () => ALL_RULES,
  authorize: async (a) => ({ decision: a.user.username === 'alice' && a.verb === 'list' ? 'allow' : 'no-opinion', reason: 'test' }),
};

const exchange = (username: string, impersonated?: string) => {
  const x = fakeExchange({ user: { username, groups: [] } });
  if (impersonated) x.state.impersonated = { username: impersonated, groups: [] };
  x.state.info = resolveRequestInfo('GET', '/apis/networking.platform.io/v1/servicecidrs', new URLSearchParams());
  return x;
};

test('an allowed request passes; the acting (impersonated) user is the one authorized', async () => {
  let passed = 0;
  await authorizationFilter(onlyAlice)(exchange('alice').state, async () => void passed++);
  await authorizationFilter(onlyAlice)(exchange('admin', 'alice').state, async () => void passed++);
  assert.equal(passed, 2);
});

test('anything else is a 403 naming the user, verb and resource', async () => {
  await assert.rejects(
    authorizationFilter(onlyAlice)(exchange('alice', 'bob').state, async () => assert.fail('must not pass')),
    (e: unknown) => isStatusError(e) && e.status.code === 403 && /User "bob" cannot list resource "servicecidrs"/.test(e.status.message ?? ''),
  );
  const pub = exchange('nobody');
  pub.state.isPublic = true;
  let passed = false;
  await authorizationFilter(onlyAlice)(pub.state, async () => void (passed = true));
  assert.equal(passed, true, 'public paths are not authorized');
});

test('no allow with an evaluation error is a 500; an allow beside an error stands; list selectors reach the authorizer', async () => {
  const seen: { fieldSelector?: string; labelSelector?: string }[] = [];
  const failing = (decision: 'allow' | 'no-opinion' | 'deny'): Authorizer => ({
    rulesFor: async () => ALL_RULES,
    authorize: async (a) => {
      seen.push({ fieldSelector: a.fieldSelector, labelSelector: a.labelSelector });
      return { decision, reason: '', error: 'webhook down' };
    },
  });
  for (const decision of ['no-opinion', 'deny'] as const) {
    await assert.rejects(
      authorizationFilter(failing(decision))(exchange('alice').state, async () => assert.fail('must not pass')),
      (e: unknown) => isStatusError(e) && e.status.code === 500 && e.status.reason === 'InternalError' && e.status.message === 'Internal error occurred: webhook down',
    );
  }
  let passed = false;
  const x = exchange('alice');
  x.state.query = new URLSearchParams('labelSelector=a%3Db&fieldSelector=metadata.name%3Dx');
  await authorizationFilter(failing('allow'))(x.state, async () => void (passed = true));
  assert.equal(passed, true);
  assert.deepEqual(seen.at(-1), { fieldSelector: 'metadata.name=x', labelSelector: 'a=b' });
});
