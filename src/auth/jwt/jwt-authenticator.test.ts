// The JWT authenticator against a real HTTPS issuer that is garbage-answering, slow, or names
// another issuer: start-up never blocks, tokens get an error (401) until the issuer answers
// properly, a slow issuer holds a request only for the bounded refetch wait, and cached keys
// survive an issuer that turns bad.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { makeSigningKey, startOidcIssuer, type OidcIssuer } from '../../../test/support/oidc-issuer.js';
import { eventually } from '../../../test/support/polling.js';
import { JwtAuthenticator } from './jwt-authenticator.js';
import type { JwtAuthenticatorSpec } from './jwt-config.js';

const issuers: OidcIssuer[] = [];
const authenticators: JwtAuthenticator[] = [];
after(async () => {
  authenticators.forEach((a) => a.close());
  await Promise.all(issuers.map((i) => i.stop()));
});

async function setUp(mode: 'ok' | 'slow' | 'garbage') {
  const issuer = await startOidcIssuer({ audience: 'platform' });
  issuers.push(issuer);
  issuer.peer.mode = mode;
  const spec: JwtAuthenticatorSpec = {
    issuer: { url: issuer.url, audiences: ['platform'], certificateAuthority: issuer.caPem },
    claimValidationRules: [],
    claimMappings: { username: { claim: 'sub', prefix: '' }, groups: {}, uid: {}, extra: [] },
    userValidationRules: [],
  };
  // JWKS fetches that have ended (with keys or with an error).
  const fetchesEnded = { count: 0 };
  const observer = { attempt: () => undefined, jwksFetch: () => void fetchesEnded.count++ };
  const a = new JwtAuthenticator({ spec, rules: { extra: [], claimValidation: [], userValidation: [] }, signingAlgs: ['RS256'], logger: pino({ level: 'silent' }), observer, initRetryMs: 200, minRefreshIntervalMs: 0, refreshWaitMs: 1000 });
  authenticators.push(a);
  // Construction only starts the discovery in the background: no keys yet (the tests below show
  // tokens answered while the issuer stalls or garbles that discovery).
  assert.equal(a.keys.ready, false, 'construction does not wait for the issuer');
  const auth = async (token: string) => a.authenticate({ headers: { authorization: `Bearer ${token}` } });
  return { issuer, a, auth, fetchesEnded };
}

for (const mode of ['garbage', 'slow'] as const) {
  test(`an issuer answering ${mode} at start: errors (401) until it answers, then users`, async () => {
    const { issuer, auth } = await setUp(mode);
    const token = await issuer.token({ sub: 'alice' });
    // The discovery has reached the issuer, which stalls it or answers garbage: tokens get their
    // answer all the same.
    await eventually(async () => issuer.peer.hits.get('/.well-known/openid-configuration') ?? 0, (n) => n >= 1, 10_000, 20);
    const r = await auth(token);
    assert.deepEqual(r, { kind: 'error', message: 'oidc: authenticator not initialized' });
    issuer.peer.mode = 'ok';
    if (mode === 'slow') {
      // The stalled discovery times out (30 s) before a retry; restart the peer's connections instead.
      await issuer.peer.setDown(true);
      await issuer.peer.setDown(false);
    }
    const ok = await eventually(() => auth(token), (x) => x.kind === 'user', 40_000, 200);
    assert.equal(ok.kind, 'user');
  });
}

test('an issuer whose discovery document names another issuer never becomes ready', async () => {
  const issuer = await startOidcIssuer({ audience: 'platform' });
  issuers.push(issuer);
  // Configured with a trailing slash: the discovery document's "issuer" (without it) does not match.
  const spec: JwtAuthenticatorSpec = {
    issuer: { url: `${issuer.url}/`, discoveryURL: `${issuer.url}/.well-known/openid-configuration`, audiences: ['platform'], certificateAuthority: issuer.caPem },
    claimValidationRules: [],
    claimMappings: { username: { claim: 'sub', prefix: '' }, groups: {}, uid: {}, extra: [] },
    userValidationRules: [],
  };
  const mismatched = new JwtAuthenticator({ spec, rules: { extra: [], claimValidation: [], userValidation: [] }, signingAlgs: ['RS256'], logger: pino({ level: 'silent' }), initRetryMs: 100 });
  authenticators.push(mismatched);
  await new Promise((r) => setTimeout(r, 1000));
  assert.equal(mismatched.keys.ready, false);
  const r = await mismatched.authenticate({ headers: { authorization: `Bearer ${await issuer.token({ sub: 'x', iss: `${issuer.url}/` })}` } });
  assert.deepEqual(r, { kind: 'error', message: 'oidc: authenticator not initialized' });
});

test('a slow issuer during a key refetch holds the request for the bounded wait only; cached keys keep working', async () => {
  const { issuer, auth, fetchesEnded } = await setUp('ok');
  const known = await issuer.token({ sub: 'alice' });
  await eventually(() => auth(known), (x) => x.kind === 'user', 10_000, 100);
  issuer.peer.mode = 'slow';
  const stranger = await makeSigningKey();
  const requested = issuer.jwksFetches();
  const ended = fetchesEnded.count;
  const r = await auth(await issuer.token({ sub: 'bob' }, { key: stranger }));
  assert.equal(r.kind, 'error');
  // Answered after the bounded wait, while the refetch the unknown key started is still held by the
  // issuer (the fetch itself gives up only after 30 s).
  assert.equal(fetchesEnded.count, ended, 'the request was answered before the refetch ended');
  await eventually(async () => issuer.jwksFetches(), (n) => n === requested + 1, 10_000, 20);
  issuer.peer.mode = 'garbage';
  assert.equal((await auth(await issuer.token({ sub: 'carol' }))).kind, 'user', 'a new token with a cached key verifies without the issuer');
  issuer.peer.mode = 'ok';
});
