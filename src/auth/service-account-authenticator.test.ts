// Service-account tokens as kube-apiserver judges them: signature against one of the keys,
// issuer, audience, expiry with 60 s of tolerance, the kubernetes.io claims and sub, then kube's
// user; a token from another issuer is not ours; a verified token is trusted again from memory,
// never past its expiry.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, type JWTPayload } from 'jose';
import { loadServiceAccountKeys, ServiceAccountAuthenticator, VERIFIED_TOKEN_TTL_MS } from './service-account-authenticator.js';

const ISSUER = 'https://kubernetes.default.svc';
const AUDIENCE = 'https://kubernetes.default.svc';
const keyPair = () => generateKeyPairSync('ec', { namedCurve: 'P-256' });
const signing = keyPair();
const other = keyPair();

const claims = (over: Record<string, unknown> = {}): JWTPayload => ({
  iss: ISSUER,
  aud: [AUDIENCE],
  sub: 'system:serviceaccount:team-a:builder',
  'kubernetes.io': { namespace: 'team-a', serviceaccount: { name: 'builder', uid: 'sa-uid' }, pod: { name: 'p', uid: 'pod-uid' } },
  jti: 'token-id',
  ...over,
});

/** `expiresIn: null`: the payload's own exp, or none. */
async function token(payload: JWTPayload, key: KeyObject = signing.privateKey, expiresIn: number | null = 3600): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const jwt = new SignJWT(payload).setProtectedHeader({ alg: 'ES256' }).setIssuedAt(now);
  if (expiresIn !== null) jwt.setExpirationTime(now + expiresIn);
  return jwt.sign(key);
}

const request = (t: string) => ({ headers: { authorization: `Bearer ${t}` } });
const authn = (now?: () => number) => new ServiceAccountAuthenticator({ keys: [other.publicKey, signing.publicKey], issuers: ['https://other.example', ISSUER], audiences: [AUDIENCE], now });

describe('ServiceAccountAuthenticator', () => {
  test("a valid token is kube's service-account user, with its pod, uid and token id", async () => {
    assert.deepEqual(await authn().authenticate(request(await token(claims()))), {
      kind: 'user',
      user: {
        username: 'system:serviceaccount:team-a:builder',
        groups: ['system:serviceaccounts', 'system:serviceaccounts:team-a'],
        uid: 'sa-uid',
        extra: {
          'authentication.kubernetes.io/pod-name': ['p'],
          'authentication.kubernetes.io/pod-uid': ['pod-uid'],
          'authentication.kubernetes.io/credential-id': ['JTI=token-id'],
        },
      },
    });
  });

  test('without a pod, uid or token id, the user has no extra and no uid', async () => {
    const t = await token(claims({ jti: undefined, 'kubernetes.io': { namespace: 'team-a', serviceaccount: { name: 'builder' } } }));
    assert.deepEqual(await authn().authenticate(request(t)), {
      kind: 'user',
      user: { username: 'system:serviceaccount:team-a:builder', groups: ['system:serviceaccounts', 'system:serviceaccounts:team-a'] },
    });
  });

  test('not a JWT, no bearer token, or another issuer: not ours', async () => {
    const a = authn();
    assert.deepEqual(await a.authenticate({ headers: {} }), { kind: 'none' });
    assert.deepEqual(await a.authenticate({ headers: { authorization: 'Basic abc' } }), { kind: 'none' });
    assert.deepEqual(await a.authenticate(request('opaque-token')), { kind: 'none' });
    assert.deepEqual(await a.authenticate(request('a.b.c')), { kind: 'none' });
    assert.deepEqual(await a.authenticate(request(await token(claims({ iss: 'https://elsewhere' })))), { kind: 'none' });
    assert.deepEqual(await a.authenticate(request(await token(claims({ iss: 7 })))), { kind: 'none' });
  });

  test('the bearer scheme is case-insensitive and the first of repeated headers counts', async () => {
    const t = await token(claims());
    assert.equal((await authn().authenticate({ headers: { authorization: ` Bearer ${t}  ` } })).kind, 'user', 'spaces around the header');
    assert.equal((await authn().authenticate({ headers: { authorization: `Bearer ${t} extra` } })).kind, 'user', 'kube reads the second part and ignores a third');
    for (const authorization of [`xBearer ${t}`, `Bearer  ${t}`, `Bearer${t}`]) {
      assert.deepEqual(await authn().authenticate({ headers: { authorization } }), { kind: 'none' }, authorization);
    }
    assert.equal((await authn().authenticate({ headers: { authorization: `bearer ${t}` } })).kind, 'user');
    assert.equal((await authn().authenticate({ headers: { authorization: [`Bearer ${t}`, 'Bearer x'] } })).kind, 'user');
  });

  test('our issuer but a bad signature, audience or expiry is an invalid bearer token', async () => {
    const invalid = { kind: 'error', message: 'invalid bearer token' };
    const a = authn();
    assert.deepEqual(await a.authenticate(request(await token(claims(), keyPair().privateKey))), invalid);
    assert.deepEqual(await a.authenticate(request(await token(claims({ aud: ['someone-else'] })))), invalid);
    assert.deepEqual(await a.authenticate(request(await token(claims(), signing.privateKey, -120))), invalid);
  });

  test('expiry has 60 s of tolerance for clock skew', async () => {
    assert.equal((await authn().authenticate(request(await token(claims(), signing.privateKey, -30)))).kind, 'user');
  });

  test('claims that do not name a service account, or a sub that differs, are refused', async () => {
    const refused = { kind: 'error', message: 'service account token has no valid kubernetes.io claims' };
    const a = authn();
    assert.deepEqual(await a.authenticate(request(await token(claims({ sub: 'system:serviceaccount:team-a:other' })))), refused);
    assert.deepEqual(await a.authenticate(request(await token(claims({ 'kubernetes.io': { serviceaccount: { name: 'builder' } } })))), refused);
    assert.deepEqual(await a.authenticate(request(await token(claims({ 'kubernetes.io': { namespace: 'team-a' } })))), refused);
    // Without a name there is no user to name, whatever sub says.
    assert.deepEqual(await a.authenticate(request(await token(claims({ sub: 'system:serviceaccount:team-a:undefined', 'kubernetes.io': { namespace: 'team-a' } })))), refused);
    assert.deepEqual(await a.authenticate(request(await token(claims({ sub: 'system:serviceaccount:undefined:builder', 'kubernetes.io': { serviceaccount: { name: 'builder' } } })))), refused);
    assert.deepEqual(await a.authenticate(request(await token(claims({ 'kubernetes.io': undefined })))), refused);
  });

  test('a verified token is trusted from memory for the TTL, as a copy; an expired one is checked again', async () => {
    let clock = Date.now();
    const a = authn(() => clock);
    const t = await token(claims());
    const first = await a.authenticate(request(t));
    assert.equal(first.kind, 'user');
    if (first.kind === 'user') first.user.groups.push('changed-by-caller');
    const again = await a.authenticate(request(t));
    assert.deepEqual(again.kind === 'user' && again.user.groups, ['system:serviceaccounts', 'system:serviceaccounts:team-a']);
    if (again.kind === 'user') again.user.groups.push('changed-by-caller');
    const third = await a.authenticate(request(t));
    assert.deepEqual(third.kind === 'user' && third.user.groups, ['system:serviceaccounts', 'system:serviceaccounts:team-a']);
    clock += VERIFIED_TOKEN_TTL_MS + 1;
    assert.equal((await a.authenticate(request(t))).kind, 'user');
  });
});

describe('loadServiceAccountKeys', () => {
  test('public and private PEM keys give their public keys; a file without one is an error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sa-keys-'));
    try {
      const both = join(dir, 'both.pem');
      writeFileSync(both, `${signing.publicKey.export({ type: 'spki', format: 'pem' })}\n${other.privateKey.export({ type: 'pkcs8', format: 'pem' })}`);
      const keys = loadServiceAccountKeys([both]);
      assert.equal(keys.length, 2);
      assert.ok(keys.every((k) => k.type === 'public'));
      assert.ok(keys[0]!.equals(signing.publicKey));
      assert.ok(keys[1]!.equals(other.publicKey));
      const empty = join(dir, 'empty.pem');
      writeFileSync(empty, 'no keys here');
      assert.throws(() => loadServiceAccountKeys([empty]), { message: `${empty}: no PEM keys found` });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('ServiceAccountAuthenticator: how long a verified token is trusted', () => {
  // The keys array is the authenticator's own: emptied, only the verified-token cache can answer.
  const withKeys = (now: () => number) => {
    const keys = [signing.publicKey];
    return { keys, a: new ServiceAccountAuthenticator({ keys, issuers: [ISSUER], audiences: [AUDIENCE], now }) };
  };
  const nowS = () => Math.floor(Date.now() / 1000);

  test('within the TTL, a token whose exp has just passed is still trusted: exp has 60 s of tolerance', async () => {
    let clock = Date.now();
    const { keys, a } = withKeys(() => clock);
    const t = await token(claims({ exp: nowS() + 2 }), signing.privateKey, null);
    assert.equal((await a.authenticate(request(t))).kind, 'user');
    keys.length = 0;
    clock += 5_000;
    assert.equal((await a.authenticate(request(t))).kind, 'user', 'from memory, 3 s past exp');
  });

  test('never past exp plus the tolerance, even within the TTL', async () => {
    let clock = Date.now();
    const { keys, a } = withKeys(() => clock);
    const t = await token(claims({ exp: nowS() - 55 }), signing.privateKey, null);
    assert.equal((await a.authenticate(request(t))).kind, 'user', '55 s past exp: within the tolerance');
    keys.length = 0;
    clock += 2_000;
    assert.equal((await a.authenticate(request(t))).kind, 'user', 'from memory');
    clock += 5_000;
    assert.deepEqual(await a.authenticate(request(t)), { kind: 'error', message: 'invalid bearer token' }, 'checked again past exp + 60 s, and no key verifies it now');
  });

  test('a token without exp is trusted from memory for the TTL alone', async () => {
    let clock = Date.now();
    const { keys, a } = withKeys(() => clock);
    const t = await token(claims(), signing.privateKey, null);
    assert.equal((await a.authenticate(request(t))).kind, 'user');
    keys.length = 0;
    clock += VERIFIED_TOKEN_TTL_MS - 1;
    assert.equal((await a.authenticate(request(t))).kind, 'user');
    clock += 1;
    assert.deepEqual(await a.authenticate(request(t)), { kind: 'error', message: 'invalid bearer token' });
  });

  test('a failure is not remembered: the same token verifies once a key accepts it', async () => {
    const keys: KeyObject[] = [];
    const a = new ServiceAccountAuthenticator({ keys, issuers: [ISSUER], audiences: [AUDIENCE] });
    const t = await token(claims());
    assert.deepEqual(await a.authenticate(request(t)), { kind: 'error', message: 'invalid bearer token' });
    keys.push(signing.publicKey);
    assert.equal((await a.authenticate(request(t))).kind, 'user');
  });

  test('not before (nbf) has the same 60 s of tolerance', async () => {
    const a = authn();
    assert.equal((await a.authenticate(request(await token(claims({ nbf: nowS() + 30 }))))).kind, 'user');
    assert.deepEqual(await a.authenticate(request(await token(claims({ nbf: nowS() + 120 })))), { kind: 'error', message: 'invalid bearer token' });
  });
});
