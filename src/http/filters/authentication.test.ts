import { test } from 'node:test';
import assert from 'node:assert/strict';
import { silentLogger } from '../../apimachinery/request-context.js';
import { isStatusError } from '../../apimachinery/status-error.js';
import type { Authenticator } from '../../auth/authenticator.js';
import { authenticationFilter } from './authentication.js';
import { fakeExchange } from './test-state.js';

const tokens: Authenticator = {
  authenticate: async ({ headers }) => (headers.authorization === 'Bearer good' ? { kind: 'user', user: { username: 'alice', groups: ['system:authenticated'] } } : { kind: 'none' }),
};
const filter = authenticationFilter({ authenticator: tokens, clientCertificates: false, logger: silentLogger });

test('a known credential sets the user and is removed from the request', async () => {
  const x = fakeExchange({ headers: { authorization: 'Bearer good' } });
  let passed = false;
  await filter(x.state, async () => void (passed = true));
  assert.equal(passed, true);
  assert.equal(x.state.authenticated?.username, 'alice');
  assert.equal(x.state.req.headers.authorization, undefined);
});

test('no credential is a 401 that stops the request; public paths need none', async () => {
  const x = fakeExchange();
  await assert.rejects(
    filter(x.state, async () => assert.fail('must not pass')),
    (e: unknown) => isStatusError(e) && e.status.code === 401,
  );
  const pub = fakeExchange();
  pub.state.isPublic = true;
  let passed = false;
  await filter(pub.state, async () => void (passed = true));
  assert.equal(passed, true);
  assert.equal(pub.state.authenticated, undefined);
});
