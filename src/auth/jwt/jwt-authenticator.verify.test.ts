// How one JWT issuer's authenticator verifies a token against the issuer's keys (go-oidc's
// verifier as kube uses it), with the key source injected so each path is reached directly:
// a token without `kid` tried against every key of its algorithm, a refetch of the keys when
// none verifies (rotation) but only for an algorithm we accept, and bounded; expiry without
// leeway and its message; the verified-token cache; what the observer is told; the key source's
// identity across reloads. Pinned here because mutation testing found them unreached (issue #35).

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createLocalJWKSet, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { silentLogger } from '../../apimachinery/request-context.js';
import type { AuthResult } from '../authenticator.js';
import type { IssuerKeys } from './issuer-keys.js';
import { startOidcIssuer } from '../../../test/support/oidc-issuer.js';
import { eventually } from '../../../test/support/polling.js';
import { compileExpression } from './claims-cel.js';
import { bearerToken } from '../bearer-token.js';
import { JwtAuthenticator, untrustedIssuer, type JwtAuthenticatorObserver } from './jwt-authenticator.js';
import type { CompiledRules, JwtAuthenticatorSpec } from './jwt-config.js';

const ISSUER = 'https://issuer.example';

interface Key {
  alg: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

async function key(alg = 'RS256', kid?: string): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const jwk: JWK = { ...(await exportJWK(publicKey)), alg, use: 'sig' };
  if (kid) jwk.kid = kid;
  return { alg, privateKey, jwk };
}

const jwks = (...keys: Key[]): JWTVerifyGetKey => createLocalJWKSet({ keys: keys.map((k) => k.jwk) });

/** The issuer's key source as the authenticator sees it, with what it was asked. */
class FakeKeys {
  current: JWTVerifyGetKey | undefined;
  refreshes = 0;
  closed = false;
  /** What a refetch does (by default: nothing new, as a rate-limited refresh). */
  onRefresh: () => Promise<boolean> = async () => false;
  constructor(current?: JWTVerifyGetKey) {
    this.current = current;
  }
  get ready(): boolean {
    return this.current !== undefined;
  }
  get keys(): JWTVerifyGetKey | undefined {
    return this.current;
  }
  refresh(): Promise<boolean> {
    this.refreshes++;
    return this.onRefresh();
  }
  close(): void {
    this.closed = true;
  }
}

const spec = (over: Partial<JwtAuthenticatorSpec['issuer']> = {}): JwtAuthenticatorSpec => ({
  issuer: { url: ISSUER, audiences: ['platform'], ...over },
  claimValidationRules: [],
  claimMappings: { username: { claim: 'sub', prefix: '' }, groups: {}, uid: {}, extra: [] },
  userValidationRules: [],
});
const noRules: CompiledRules = { extra: [], claimValidation: [], userValidation: [] };

function authenticator(keys: FakeKeys, o: { signingAlgs?: string[]; observer?: JwtAuthenticatorObserver; refreshWaitMs?: number; rules?: Partial<CompiledRules>; claimValidationRules?: JwtAuthenticatorSpec['claimValidationRules'] } = {}) {
  return new JwtAuthenticator({
    spec: { ...spec(), claimValidationRules: o.claimValidationRules ?? [] },
    rules: { ...noRules, ...o.rules },
    signingAlgs: o.signingAlgs ?? ['RS256', 'ES256'],
    logger: silentLogger,
    observer: o.observer,
    keys: keys as unknown as IssuerKeys,
    refreshWaitMs: o.refreshWaitMs,
  });
}

async function token(k: Key, claims: JWTPayload = {}, header: Record<string, unknown> = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const body: JWTPayload = { iss: ISSUER, aud: 'platform', sub: 'alice', iat: now, exp: now + 600, ...claims };
  for (const [name, v] of Object.entries(body)) if (v === undefined) delete body[name];
  const kid = k.jwk.kid;
  return new SignJWT(body).setProtectedHeader({ alg: k.alg, ...(kid ? { kid } : {}), ...header }).sign(k.privateKey);
}

const bearer = (t: string) => ({ headers: { authorization: `Bearer ${t}` } });
const alice: AuthResult = { kind: 'user', user: { username: 'alice', groups: [] } };

describe('verifying against the issuer keys', () => {
  test('a token without kid is tried against every key of its algorithm', async () => {
    const first = await key();
    const second = await key();
    const keys = new FakeKeys(jwks(first, second));
    const a = authenticator(keys);
    assert.deepEqual(await a.authenticate(bearer(await token(second))), alice);
    assert.deepEqual(await a.authenticate(bearer(await token(first, { sub: 'bob' }))), { kind: 'user', user: { username: 'bob', groups: [] } });
    assert.equal(keys.refreshes, 0, 'a key that verifies needs no refetch');
    // The signature holds with one of them, but the token is for another audience: that is the answer.
    assert.deepEqual(await a.authenticate(bearer(await token(second, { aud: 'elsewhere' }))), { kind: 'error', message: 'oidc: verify token: unexpected "aud" claim value' });
    assert.equal(keys.refreshes, 0, 'a key that verifies needs no refetch');
    const stranger = await key();
    assert.deepEqual(await a.authenticate(bearer(await token(stranger))), { kind: 'error', message: 'oidc: verify token: signature verification failed' });
    assert.equal(keys.refreshes, 1, 'no key verifies: the keys are fetched again (go-oidc), here bringing nothing new');
    keys.onRefresh = async () => {
      keys.current = jwks(first, second, stranger);
      return true;
    };
    assert.deepEqual(await a.authenticate(bearer(await token(stranger, { sub: 'carol' }))), { kind: 'user', user: { username: 'carol', groups: [] } });
    assert.equal(keys.refreshes, 2, 'the refetched set verifies a kid-less token with any of its keys too');
  });

  test('a key the cached set lacks is fetched again (rotation), and the token verifies with the new set', async () => {
    const old = await key('RS256', 'old');
    const rotated = await key('RS256', 'new');
    const keys = new FakeKeys(jwks(old));
    keys.onRefresh = async () => {
      keys.current = jwks(rotated, old);
      return true;
    };
    const a = authenticator(keys);
    assert.deepEqual(await a.authenticate(bearer(await token(rotated))), alice);
    assert.equal(keys.refreshes, 1);
  });

  test('a signature that fails with the cached key of that kid makes a refetch too', async () => {
    const published = await key('RS256', 'k1');
    const reissued = await key('RS256', 'k1');
    const keys = new FakeKeys(jwks(published));
    keys.onRefresh = async () => {
      keys.current = jwks(reissued);
      return true;
    };
    assert.deepEqual(await authenticator(keys).authenticate(bearer(await token(reissued))), alice);
    assert.equal(keys.refreshes, 1);
  });

  test('no refetch when it brings nothing new, for an algorithm we do not accept, or for a bad header', async () => {
    const known = await key('RS256', 'k1');
    const keys = new FakeKeys(jwks(known));
    const a = authenticator(keys, { signingAlgs: ['RS256'] });
    const unknown = await key('RS256', 'k2');
    const r = await a.authenticate(bearer(await token(unknown)));
    assert.equal(r.kind, 'error');
    assert.match((r as { message: string }).message, /^oidc: verify token: /);
    assert.equal(keys.refreshes, 1, 'asked, but the refetch brought nothing');
    const es = await key('ES256', 'k3');
    keys.onRefresh = async () => {
      keys.current = jwks(known, es);
      return true;
    };
    const refused = await a.authenticate(bearer(await token(es)));
    assert.equal(refused.kind, 'error');
    assert.equal(keys.refreshes, 1, 'ES256 is not accepted here: its token does not make us fetch keys');
    const [h, p, s] = (await token(unknown)).split('.');
    const garbled = await a.authenticate(bearer(`${h}x.${p}.${s}`));
    assert.equal(garbled.kind, 'error');
    assert.equal(keys.refreshes, 1, 'an unreadable header does not make us fetch keys');
  });

  test('a refetch that does not end holds the request only for the bounded wait', async () => {
    const keys = new FakeKeys(jwks(await key('RS256', 'k1')));
    keys.onRefresh = () => new Promise<boolean>(() => undefined);
    const a = authenticator(keys, { refreshWaitMs: 50 });
    const r = await a.authenticate(bearer(await token(await key('RS256', 'k2'))));
    assert.deepEqual(r, { kind: 'error', message: 'oidc: verify token: no applicable key found in the JSON Web Key Set' });
    assert.equal(keys.refreshes, 1);
  });

  test('keys a refetch put in place are used only once it reports them, within the wait', async () => {
    const old = await key('RS256', 'k1');
    const rotated = await key('RS256', 'k2');
    const keys = new FakeKeys(jwks(old));
    // The new set lands at once, but the refetch does not end within the wait: the request does not use it.
    keys.onRefresh = () => {
      keys.current = jwks(rotated);
      return new Promise<boolean>(() => undefined);
    };
    const a = authenticator(keys, { refreshWaitMs: 50 });
    assert.deepEqual(await a.authenticate(bearer(await token(rotated))), { kind: 'error', message: 'oidc: verify token: no applicable key found in the JSON Web Key Set' });
    // A refetch that ends after the wait (1 s here, the wait 50 ms) is not waited for.
    const late = new FakeKeys(jwks(old));
    late.onRefresh = () =>
      new Promise<boolean>((resolve) =>
        setTimeout(() => {
          late.current = jwks(rotated);
          resolve(true);
        }, 1000),
      );
    const b = authenticator(late, { refreshWaitMs: 50 });
    assert.deepEqual(await b.authenticate(bearer(await token(rotated))), { kind: 'error', message: 'oidc: verify token: no applicable key found in the JSON Web Key Set' });
    // With the default wait (5 s), a refetch that ends after 200 ms is waited for.
    const patient = new FakeKeys(jwks(old));
    patient.onRefresh = () =>
      new Promise<boolean>((resolve) =>
        setTimeout(() => {
          patient.current = jwks(rotated);
          resolve(true);
        }, 200),
      );
    assert.deepEqual(await authenticator(patient).authenticate(bearer(await token(rotated))), alice);
  });

  test('before the first keys arrive every token is refused as not initialized', async () => {
    const keys = new FakeKeys();
    const r = await authenticator(keys).authenticate(bearer(await token(await key())));
    assert.deepEqual(r, { kind: 'error', message: 'oidc: authenticator not initialized' });
    assert.equal(keys.refreshes, 0);
  });

  test('only the configured algorithms verify, and exp is required', async () => {
    const es = await key('ES256', 'es');
    const rs = await key('RS256', 'rs');
    const a = authenticator(new FakeKeys(jwks(es, rs)), { signingAlgs: ['RS256'] });
    assert.deepEqual(await a.authenticate(bearer(await token(es))), { kind: 'error', message: 'oidc: verify token: "alg" (Algorithm) Header Parameter value not allowed' });
    assert.deepEqual(await a.authenticate(bearer(await token(rs, { exp: undefined }))), { kind: 'error', message: 'oidc: verify token: missing required "exp" claim' });
    assert.deepEqual(await a.authenticate(bearer(await token(rs, { iss: `${ISSUER}/other` }))), { kind: 'none' }, 'another issuer: not ours');
  });
});

describe('expiry and not-before', () => {
  test('exp has no leeway: a token expired a second ago is refused with its expiry', async () => {
    const k = await key('RS256', 'k');
    const a = authenticator(new FakeKeys(jwks(k)));
    const exp = Math.floor(Date.now() / 1000) - 2;
    assert.deepEqual(await a.authenticate(bearer(await token(k, { exp }))), {
      kind: 'error',
      message: `oidc: verify token: oidc: token is expired (Token Expiry: ${new Date(exp * 1000).toISOString()})`,
    });
  });

  test('a token is good up to its exp second itself (go-oidc: expired once now is after exp)', async (t) => {
    const k = await key('RS256', 'k');
    const a = authenticator(new FakeKeys(jwks(k)));
    const exp = Math.floor(Date.now() / 1000) + 30;
    const signed = await token(k, { exp });
    t.mock.timers.enable({ apis: ['Date'], now: exp * 1000 });
    assert.deepEqual(await a.authenticate(bearer(signed)), alice);
  });

  test('nbf has a minute of leeway', async () => {
    const k = await key('RS256', 'k');
    const a = authenticator(new FakeKeys(jwks(k)));
    const now = Math.floor(Date.now() / 1000);
    assert.deepEqual(await a.authenticate(bearer(await token(k, { nbf: now + 30 }))), alice);
    const early = await a.authenticate(bearer(await token(k, { nbf: now + 300, sub: 'early' })));
    assert.deepEqual(early, { kind: 'error', message: 'oidc: verify token: "nbf" claim timestamp check failed' });
  });
});

describe('the verified-token cache and the observer', () => {
  test('a verified token is served from memory, as a copy; the observer hears each judgement once', async () => {
    const k = await key('RS256', 'k');
    const keys = new FakeKeys(jwks(k));
    const attempts: [string, string][] = [];
    // Seconds, not nanoseconds: a judgement here takes well under five minutes.
    const a = authenticator(keys, { observer: { attempt: (issuer, result, seconds) => void (assert.ok(seconds >= 0 && seconds < 300, String(seconds)), attempts.push([issuer, result])) } });
    const t = await token(k);
    const first = await a.authenticate(bearer(t));
    assert.deepEqual(first, alice);
    if (first.kind === 'user') first.user.groups.push('system:masters');
    // The keys are gone: only the cache can answer now.
    keys.current = jwks(await key('RS256', 'other'));
    assert.deepEqual(await a.authenticate(bearer(t)), alice);
    assert.deepEqual(await a.authenticateToken(t), alice);
    assert.deepEqual(attempts, [[ISSUER, 'success']]);
    const bad = await a.authenticate(bearer(await token(k, { sub: 'bob' })));
    assert.equal(bad.kind, 'error');
    assert.deepEqual(attempts, [[ISSUER, 'success'], [ISSUER, 'failure']]);
  });

  test('a failure is never cached: the same token is judged again', async () => {
    const k = await key('RS256', 'k');
    const keys = new FakeKeys();
    const a = authenticator(keys);
    const t = await token(k);
    assert.equal((await a.authenticate(bearer(t))).kind, 'error');
    keys.current = jwks(k);
    assert.deepEqual(await a.authenticate(bearer(t)), alice);
  });
});

describe('the key source', () => {
  test('a shared key source is used as it is, and close() closes it', async () => {
    const keys = new FakeKeys();
    const a = authenticator(keys);
    assert.equal(a.keys, keys as unknown as IssuerKeys);
    assert.equal(a.issuer, ISSUER);
    assert.equal(keys.closed, false);
    a.close();
    assert.equal(keys.closed, true);
  });

  test('its identity is the issuer URL, the discovery URL and the CA, nothing else', () => {
    assert.equal(JwtAuthenticator.keySourceId(spec()), JSON.stringify([ISSUER, '', '']));
    assert.equal(JwtAuthenticator.keySourceId(spec({ discoveryURL: 'https://d.example/x', certificateAuthority: 'PEM' })), JSON.stringify([ISSUER, 'https://d.example/x', 'PEM']));
    assert.equal(JwtAuthenticator.keySourceId(spec({ audiences: ['other'] })), JwtAuthenticator.keySourceId(spec()));
  });
});

describe('claim rules and CEL failures', () => {
  const k = key('RS256', 'k');
  const cel = (source: string) => compileExpression(source, 'claims');
  const userCel = (source: string) => compileExpression(source, 'user');
  async function judge(o: Parameters<typeof authenticator>[1], claims: JWTPayload): Promise<AuthResult> {
    const signing = await k;
    return authenticator(new FakeKeys(jwks(signing)), o).authenticate(bearer(await token(signing, claims)));
  }

  test('a required claim without a value must be present and empty; a rule without a claim is not one', async () => {
    const rules = [{ claim: 'tier' }, { expression: 'claims.x', message: 'not a claim rule' }];
    assert.deepEqual(await judge({ claimValidationRules: rules }, { tier: '' }), alice);
    assert.deepEqual(await judge({ claimValidationRules: rules }, { tier: 'gold' }), { kind: 'error', message: 'oidc: required claim tier value does not match. Got = gold, want = ' });
  });

  test('an expression that fails to evaluate names what it was evaluating', async () => {
    assert.deepEqual(await judge({ rules: { uid: cel('claims.missing') } }, {}), { kind: 'error', message: 'oidc: error evaluating uid claim expression: field not found: missing' });
    assert.deepEqual(await judge({ rules: { groups: cel('claims.missing') } }, {}), { kind: 'error', message: 'oidc: error evaluating group claim expression: field not found: missing' });
    assert.deepEqual(
      await judge({ rules: { extra: [{ key: 'example.com/x', expression: cel('claims.missing') }] } }, {}),
      { kind: 'error', message: 'oidc: error evaluating extra claim expression: claims.missing: field not found: missing' },
    );
    assert.deepEqual(
      await judge({ rules: { claimValidation: [{ expression: cel("claims.missing == 'x'"), message: 'm' }] } }, {}),
      { kind: 'error', message: 'oidc: error evaluating claim validation expression: field not found: missing' },
    );
    assert.deepEqual(
      await judge({ rules: { userValidation: [{ expression: userCel("user.extra['x'] == ['y']"), message: 'm' }] } }, {}),
      { kind: 'error', message: 'oidc: error evaluating user info validation rule: field not found: x' },
    );
  });

  test('a user validation rule must return a boolean, and true', async () => {
    assert.deepEqual(
      await judge({ rules: { userValidation: [{ expression: userCel('user.username'), message: 'm' }] } }, {}),
      { kind: 'error', message: 'oidc: error evaluating user info validation rule: validation expression must return a boolean' },
    );
    assert.deepEqual(
      await judge({ rules: { userValidation: [{ expression: userCel("user.username == 'bob'"), message: 'only bob' }] } }, {}),
      { kind: 'error', message: "oidc: error evaluating user info validation rule: validation expression 'user.username == 'bob'' failed: only bob" },
    );
    assert.deepEqual(await judge({ rules: { userValidation: [{ expression: userCel("user.username == 'alice'"), message: 'm' }] } }, {}), alice);
  });
});

describe('bearer tokens and the unverified issuer', () => {
  test('Bearer must start the header, and one space follow it', () => {
    assert.equal(bearerToken({ headers: { authorization: 'xBearer abc' } }), undefined);
    // kube splits at single spaces only: the tab is the token.
    assert.equal(bearerToken({ headers: { authorization: 'Bearer \t  abc' } }), '\t');
  });

  test('a payload that is no JSON object names no issuer; nor does a JSON serialization, even after spaces', () => {
    const jwt = (payload: unknown) => `e30.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.sig`;
    for (const payload of [5, 'https://i.example', ['https://i.example'], null, true]) assert.equal(untrustedIssuer(jwt(payload)), undefined, JSON.stringify(payload));
    assert.equal(untrustedIssuer(` {"a":1}.${Buffer.from('{"iss":"x"}').toString('base64url')}.s`), undefined);
  });
});

describe('an issuer of its own', () => {
  const stops: (() => Promise<void>)[] = [];
  after(async () => {
    for (const stop of stops) await stop();
  });

  test('without a shared key source it fetches the keys itself, and tells the observer', async () => {
    const issuer = await startOidcIssuer({ audience: 'platform' });
    const fetches: [string, boolean][] = [];
    const a = new JwtAuthenticator({
      spec: { ...spec({ url: issuer.url, certificateAuthority: issuer.caPem }) },
      rules: noRules,
      signingAlgs: ['RS256'],
      logger: silentLogger,
      observer: { attempt: () => undefined, jwksFetch: (url, ok) => void fetches.push([url, ok]) },
      initRetryMs: 100,
    });
    stops.push(async () => a.close(), () => issuer.stop());
    await eventually(async () => a.keys.ready, (ready) => ready, 10_000, 50);
    assert.deepEqual(fetches, [[issuer.url, true]]);
    assert.deepEqual(await a.authenticate(bearer(await issuer.token({ sub: 'alice', aud: 'platform' }))), alice);
  });
});
