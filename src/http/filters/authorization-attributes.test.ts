// What the authorization filter asks (authorizationAttributes): the request's attributes, and its
// selectors only for the verbs kube keeps them for; and what it does without a user, and with
// an audit trail. (Decisions and refusals: authorization.test.ts.)

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError } from '../../apimachinery/status-error.js';
import type { AuthorizationResult, Authorizer } from '../../auth/authorizer.js';
import { ALL_RULES } from '../../auth/authorizer.js';
import { resolveRequestInfo } from '../endpoints/request-info.js';
import type { RequestAudit } from './audit-log.js';
import { authorizationAttributes, authorizationFilter } from './authorization.js';
import { fakeExchange } from './test-state.js';

const user = { username: 'alice', groups: [] };
const SELECTORS = new URLSearchParams('labelSelector=a%3Db&fieldSelector=metadata.name%3Dx');
const attrsOf = (method: string, path: string, query = SELECTORS) => authorizationAttributes(user, resolveRequestInfo(method, path, query), query);

test('every attribute of the request, as resolved', () => {
  assert.deepEqual(attrsOf('PUT', '/apis/networking.platform.io/v1/namespaces/ns/servicecidrs/a/status'), {
    user,
    verb: 'update',
    isResourceRequest: true,
    path: '/apis/networking.platform.io/v1/namespaces/ns/servicecidrs/a/status',
    apiGroup: 'networking.platform.io',
    apiVersion: 'v1',
    resource: 'servicecidrs',
    subresource: 'status',
    namespace: 'ns',
    name: 'a',
  });
});

test('selectors only for list, watch and deletecollection of resources, and only those given', () => {
  const SC = '/apis/networking.platform.io/v1/servicecidrs';
  for (const [method, path, query] of [
    ['GET', SC, SELECTORS],
    ['GET', SC, new URLSearchParams('watch=1&labelSelector=a%3Db&fieldSelector=metadata.name%3Dx')],
    ['DELETE', SC, SELECTORS],
  ] as const) {
    const a = attrsOf(method, path, query);
    assert.deepEqual([a.verb, a.labelSelector, a.fieldSelector], [a.verb, 'a=b', 'metadata.name=x'], `${method} ${query}`);
  }
  const get = attrsOf('GET', `${SC}/x`);
  assert.equal('labelSelector' in get || 'fieldSelector' in get, false);
  const nonResource = attrsOf('GET', '/metrics');
  assert.equal('labelSelector' in nonResource || 'fieldSelector' in nonResource, false);
  // No query given: no selectors.
  const without = authorizationAttributes(user, resolveRequestInfo('GET', SC, SELECTORS));
  assert.equal('labelSelector' in without || 'fieldSelector' in without, false);
  const empty = attrsOf('GET', SC, new URLSearchParams('labelSelector=&fieldSelector='));
  assert.equal('labelSelector' in empty || 'fieldSelector' in empty, false);
});

test('no user at all is a 401; the decision goes to the audit trail', async () => {
  const result: AuthorizationResult = { decision: 'allow', reason: 'ok' };
  const authorizer: Authorizer = { rulesFor: async () => ALL_RULES, authorize: async () => result };
  const nobody = fakeExchange();
  await assert.rejects(
    authorizationFilter(authorizer)(nobody.state, async () => assert.fail('must not pass')),
    (e: unknown) => isStatusError(e) && e.status.code === 401,
  );
  const audited: AuthorizationResult[] = [];
  const x = fakeExchange({ user });
  x.state.audit = { authorized: (r: AuthorizationResult) => void audited.push(r) } as unknown as RequestAudit;
  await authorizationFilter(authorizer)(x.state, async () => {});
  assert.deepEqual(audited, [result]);
});
