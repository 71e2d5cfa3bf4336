// How one JWT issuer's verified tokens become users, against a real HTTPS issuer on loopback
// (kube's oidc authenticator): claim mappings (claim and prefix, CEL expressions), the required
// claims and validation rules with kube's messages, email_verified, expiry without leeway, and
// tokens that are not this issuer's. Pinned here because mutation testing found them covered only
// by end-to-end tests (issue #35).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { startOidcIssuer, type OidcIssuer } from '../../../test/support/oidc-issuer.js';
import { eventually } from '../../../test/support/polling.js';
import { compileExpression } from './claims-cel.js';
import { bearerToken } from '../bearer-token.js';
import { JwtAuthenticator, untrustedIssuer } from './jwt-authenticator.js';
import type { CompiledRules, JwtAuthenticatorSpec } from './jwt-config.js';
import type { AuthResult } from '../authenticator.js';

let issuer: OidcIssuer;
const authenticators: JwtAuthenticator[] = [];
before(async () => {
  issuer = await startOidcIssuer({ audience: 'platform' });
});
after(async () => {
  authenticators.forEach((a) => a.close());
  await issuer?.stop();
});

type Mappings = Partial<JwtAuthenticatorSpec['claimMappings']>;

/** An authenticator of the test issuer, ready (its keys fetched). */
async function authenticator(mappings: Mappings = {}, more: { claimValidationRules?: JwtAuthenticatorSpec['claimValidationRules']; rules?: Partial<CompiledRules> } = {}) {
  const spec: JwtAuthenticatorSpec = {
    issuer: { url: issuer.url, audiences: ['platform'], certificateAuthority: issuer.caPem },
    claimValidationRules: more.claimValidationRules ?? [],
    claimMappings: { username: { claim: 'sub', prefix: '' }, groups: {}, uid: {}, extra: [], ...mappings },
    userValidationRules: [],
  };
  const a = new JwtAuthenticator({
    spec,
    rules: { extra: [], claimValidation: [], userValidation: [], ...more.rules },
    signingAlgs: ['RS256'],
    logger: pino({ level: 'silent' }),
    initRetryMs: 100,
  });
  authenticators.push(a);
  await eventually(async () => a.keys.ready, (ready) => ready, 10_000, 50);
  return async (claims: Record<string, unknown>): Promise<AuthResult> => a.authenticate({ headers: { authorization: `Bearer ${await issuer.token(claims)}` } });
}

const user = (u: Record<string, unknown>) => ({ kind: 'user', user: u });
const error = (message: string) => ({ kind: 'error', message });
const cel = (source: string) => compileExpression(source, 'claims');

describe('JWT claims to users', () => {
  test('username and groups from claims, with their prefixes; a single string is one group', async () => {
    const auth = await authenticator({ username: { claim: 'sub', prefix: 'oidc:' }, groups: { claim: 'roles', prefix: 'r:' } });
    assert.deepEqual(await auth({ sub: 'alice', roles: ['a', 'b'] }), user({ username: 'oidc:alice', groups: ['r:a', 'r:b'] }));
    assert.deepEqual(await auth({ sub: 'alice', roles: 'solo' }), user({ username: 'oidc:alice', groups: ['r:solo'] }));
    assert.deepEqual(await auth({ sub: 'alice' }), user({ username: 'oidc:alice', groups: [] }), 'no groups claim: no groups');
    assert.deepEqual(await auth({ sub: 'alice', roles: ['a', 1] }), error('oidc: parse groups claim "roles": must be a string or an array of strings'));
    assert.deepEqual(await auth({ roles: ['a'] }), error('oidc: parse username claims "sub": claim not present'));
    assert.deepEqual(await auth({ sub: 7 }), error('oidc: parse username claims "sub": claim is not a string'));
    const plain = await authenticator({ groups: { claim: 'roles' } });
    assert.deepEqual(await plain({ sub: 'bob', roles: ['a'] }), user({ username: 'bob', groups: ['a'] }));
  });

  test('email as the username needs email_verified true when the token has it', async () => {
    const auth = await authenticator({ username: { claim: 'email', prefix: '' } });
    assert.deepEqual(await auth({ email: 'a@example.com' }), user({ username: 'a@example.com', groups: [] }));
    assert.deepEqual(await auth({ email: 'a@example.com', email_verified: true }), user({ username: 'a@example.com', groups: [] }));
    assert.deepEqual(await auth({ email: 'a@example.com', email_verified: false }), error('oidc: email not verified'));
    assert.deepEqual(await auth({ email: 'a@example.com', email_verified: 'true' }), error("oidc: parse 'email_verified' claim: not a boolean"));
    // Another username claim does not look at email_verified.
    const bySub = await authenticator();
    assert.deepEqual(await bySub({ sub: 'x', email_verified: false }), user({ username: 'x', groups: [] }));
  });

  test('uid from a claim; extra from expressions, empty lists left out', async () => {
    const auth = await authenticator(
      { uid: { claim: 'oid' } },
      { rules: { extra: [{ key: 'example.com/team', expression: cel('claims.team') }, { key: 'example.com/none', expression: cel('[]') }] } },
    );
    assert.deepEqual(await auth({ sub: 'a', oid: 'u-1', team: 'blue' }), user({ username: 'a', groups: [], uid: 'u-1', extra: { 'example.com/team': ['blue'] } }));
    assert.deepEqual(await auth({ sub: 'a', team: 'blue' }), error('oidc: parse uid claim "oid": claim not present'));
    assert.deepEqual(await auth({ sub: 'a', oid: 5, team: 'blue' }), error('oidc: parse uid claim "oid": claim is not a string'));
    assert.deepEqual(
      await auth({ sub: 'a', oid: 'u-1', team: 3 }),
      error('oidc: error evaluating extra claim expression: claims.team: expression must return a string or a list of strings'),
    );
    const noExtra = await authenticator({}, { rules: { extra: [{ key: 'example.com/none', expression: cel('[]') }] } });
    assert.deepEqual(await noExtra({ sub: 'a' }), user({ username: 'a', groups: [] }), 'no extra at all when every list is empty');
  });

  test('username, groups and uid from CEL expressions, and what they must return', async () => {
    const auth = await authenticator({}, { rules: { username: cel("'u:' + claims.sub"), groups: cel('claims.g'), uid: cel('claims.id') } });
    assert.deepEqual(await auth({ sub: 'a', g: ['x', 'y'], id: 'i' }), user({ username: 'u:a', groups: ['x', 'y'], uid: 'i' }));
    assert.deepEqual(await auth({ sub: 'a', g: 'x', id: 'i' }), user({ username: 'u:a', groups: ['x'], uid: 'i' }));
    assert.deepEqual(await auth({ sub: 'a', g: 1, id: 'i' }), error('oidc: error evaluating group claim expression: expression must return a string or a list of strings'));
    assert.deepEqual(await auth({ sub: 'a', g: [], id: 2 }), error('oidc: error evaluating uid claim expression: uid claim expression must return a string'));
    const badName = await authenticator({}, { rules: { username: cel('claims.n') } });
    assert.deepEqual(await badName({ sub: 'a', n: 1 }), error('oidc: error evaluating username claim expression: username claim expression must return a string'));
    const missing = await badName({ sub: 'a' });
    assert.equal(missing.kind, 'error');
    assert.match((missing as { message: string }).message, /^oidc: error evaluating username claim expression: /);
  });

  test('required claims: present, a string, and the value asked for', async () => {
    const auth = await authenticator({}, { claimValidationRules: [{ claim: 'tier', requiredValue: 'gold' }] });
    assert.deepEqual(await auth({ sub: 'a', tier: 'gold' }), user({ username: 'a', groups: [] }));
    assert.deepEqual(await auth({ sub: 'a' }), error('oidc: required claim tier not present in ID token'));
    assert.deepEqual(await auth({ sub: 'a', tier: 1 }), error('oidc: parse claim tier: not a string'));
    assert.deepEqual(await auth({ sub: 'a', tier: 'silver' }), error('oidc: required claim tier value does not match. Got = silver, want = gold'));
  });

  test('claim validation expressions must return true, with the rule and its message in the error', async () => {
    const auth = await authenticator({}, { rules: { claimValidation: [{ expression: cel("claims.sub != 'root'"), message: 'no root' }, { expression: cel('claims.n'), message: 'n' }] } });
    assert.deepEqual(await auth({ sub: 'a', n: true }), user({ username: 'a', groups: [] }));
    assert.deepEqual(await auth({ sub: 'root', n: true }), error("oidc: error evaluating claim validation expression: validation expression 'claims.sub != 'root'' failed: no root"));
    assert.deepEqual(await auth({ sub: 'a', n: 'yes' }), error('oidc: error evaluating claim validation expression: validation expression must return a boolean'));
    assert.deepEqual(await auth({ sub: 'a', n: false }), error("oidc: error evaluating claim validation expression: validation expression 'claims.n' failed: n"));
  });

  test('an expired token is refused without leeway; a token of another audience or issuer is not a user', async () => {
    const auth = await authenticator();
    const now = Math.floor(Date.now() / 1000);
    const expired = await auth({ sub: 'a', exp: now - 5 });
    assert.equal(expired.kind, 'error');
    assert.match((expired as { message: string }).message, /^oidc: verify token: /);
    assert.deepEqual(await auth({ sub: 'a', exp: now + 60 }), user({ username: 'a', groups: [] }));
    assert.equal((await auth({ sub: 'a', aud: 'other' })).kind, 'error');
    const a = authenticators.at(-1)!;
    // Not this issuer's (by its unverified iss): none, so the next authenticator may try.
    assert.deepEqual(await a.authenticate({ headers: { authorization: `Bearer ${await issuer.token({ sub: 'a', iss: 'https://elsewhere.example' })}` } }), { kind: 'none' });
    assert.deepEqual(await a.authenticate({ headers: {} }), { kind: 'none' });
  });
});

describe('token parsing', () => {
  test('bearerToken reads one token after Bearer, case-insensitively', () => {
    assert.equal(bearerToken({ headers: { authorization: 'Bearer abc' } }), 'abc');
    assert.equal(bearerToken({ headers: { authorization: 'bearer abc  ' } }), 'abc');
    assert.equal(bearerToken({ headers: { authorization: ['Bearer one', 'Bearer two'] } }), 'one');
    assert.equal(bearerToken({ headers: { authorization: 'Bearer a b' } }), 'a');
    assert.equal(bearerToken({ headers: { authorization: 'Basic abc' } }), undefined);
    assert.equal(bearerToken({ headers: {} }), undefined);
  });

  test("untrustedIssuer reads iss of a compact JWT; accounts.google.com is Google's URL", () => {
    const jwt = (payload: unknown) => `e30.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.sig`;
    assert.equal(untrustedIssuer(jwt({ iss: 'https://i.example' })), 'https://i.example');
    assert.equal(untrustedIssuer(jwt({ iss: 'accounts.google.com' })), 'https://accounts.google.com');
    assert.equal(untrustedIssuer(jwt({ iss: 5 })), undefined);
    assert.equal(untrustedIssuer(jwt(null)), undefined);
    assert.equal(untrustedIssuer(`${jwt({ iss: 'https://i.example' })}.extra`), undefined);
    assert.equal(untrustedIssuer('e30.not-json.sig'), undefined);
    assert.equal(untrustedIssuer(`{"a":1}.${Buffer.from('{"iss":"x"}').toString('base64url')}.s`), undefined, 'a JSON serialization is not a compact JWT');
  });
});
