// The impersonation filter on HTTP/2, where Node gives no headersDistinct: each occurrence of a
// header is read from the raw pairs, names lower-cased, repeated Impersonate-Group headers kept
// apart; and an unauthenticated request is never impersonated.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALL_RULES, type Authorizer } from '../../auth/authorizer.js';
import { impersonationFilter } from './impersonation.js';
import { fakeExchange } from './test-state.js';

const admin = { username: 'admin', groups: ['system:masters'] };
const allowAll: Authorizer = { rulesFor: async () => ALL_RULES, authorize: async () => ({ decision: 'allow', reason: '' }) };

test('HTTP/2: every raw occurrence counts, names lower-cased', async () => {
  const x = fakeExchange({ user: admin, headers: { 'impersonate-user': 'bob' } });
  const raw = x.state.req.raw as unknown as { headersDistinct?: unknown; rawHeaders: string[] };
  raw.headersDistinct = undefined;
  raw.rawHeaders = ['Impersonate-User', 'bob', 'Impersonate-Group', 'devs', 'impersonate-group', 'qa', 'Impersonate-Extra-Scopes', 'view', 'dangling'];
  await impersonationFilter(allowAll)(x.state, async () => {});
  assert.deepEqual(x.state.impersonated, { username: 'bob', groups: ['devs', 'qa', 'system:authenticated'], extra: { scopes: ['view'] } });
});

test('HTTP/1.1: headersDistinct is read as it is', async () => {
  const x = fakeExchange({ user: admin, headers: { 'impersonate-user': 'bob' } });
  const raw = x.state.req.raw as unknown as { headersDistinct: Record<string, string[]>; rawHeaders: string[] };
  raw.headersDistinct = { 'impersonate-user': ['bob'], 'impersonate-group': ['a', 'b'] };
  raw.rawHeaders = ['Impersonate-User', 'mallory'];
  await impersonationFilter(allowAll)(x.state, async () => {});
  assert.deepEqual(x.state.impersonated, { username: 'bob', groups: ['a', 'b', 'system:authenticated'] });
});

test('a request with no authenticated user is not impersonated', async () => {
  const x = fakeExchange({ headers: { 'impersonate-user': 'bob' } });
  await impersonationFilter(allowAll)(x.state, async () => {});
  assert.equal(x.state.impersonated, undefined);
});
