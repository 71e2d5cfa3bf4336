// Client certificates and service-account tokens over real TLS: who the server says you are
// (SelfSubjectReview), and 401 for credentials it cannot verify.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http2 from 'node:http2';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { startServer, WHOAMI_PATH, type TestServer } from './harness.js';
import { makeClientCert, makeSigningCA } from '../fixtures/certs.js';

const ISSUER = 'https://issuer.platform.test';

describe('client certificates and service-account tokens', () => {
  let server: TestServer;
  let dir: string;
  const saKeys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  let client: { certPem: string; keyPem: string };
  let stranger: { certPem: string; keyPem: string };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'platform-authn-'));
    const ca = await makeSigningCA();
    client = await makeClientCert(ca, 'carol', ['ops', 'devs']);
    stranger = await makeClientCert(await makeSigningCA('other-ca'), 'mallory');
    writeFileSync(join(dir, 'client-ca.pem'), ca.pem);
    writeFileSync(join(dir, 'sa.pub'), saKeys.publicKey.export({ type: 'spki', format: 'pem' }));
    server = await startServer({
      args: ['--client-ca-file', join(dir, 'client-ca.pem'), '--service-account-key-file', join(dir, 'sa.pub'), '--service-account-issuer', ISSUER],
    });
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  function whoami(opts: { cert?: { certPem: string; keyPem: string }; token?: string }): Promise<{ status: number; json: any }> {
    const url = new URL(server.url);
    const body = JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
    return new Promise((resolve, reject) => {
      const req = https.request(
        {
          host: url.hostname,
          port: url.port,
          method: 'POST',
          path: WHOAMI_PATH,
          ca: server.caCertPem,
          cert: opts.cert?.certPem,
          key: opts.cert?.keyPem,
          headers: { 'Content-Type': 'application/json', 'Content-Length': String(body.length), ...(opts.token ? { Authorization: `Bearer ${opts.token}` } : {}) },
        },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  /** The same review over HTTP/2 (as kubectl and client-go send it), on a connection of its own. */
  function whoamiH2(cert: { certPem: string; keyPem: string }): Promise<{ status: number; json: any }> {
    const body = JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
    return new Promise((resolve, reject) => {
      const session = http2.connect(server.url, { ca: server.caCertPem, cert: cert.certPem, key: cert.keyPem });
      session.on('error', reject);
      const req = session.request({ ':method': 'POST', ':path': WHOAMI_PATH, 'content-type': 'application/json' });
      let status = 0;
      let text = '';
      req.on('response', (h) => (status = Number(h[':status'])));
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        session.close();
        resolve({ status, json: JSON.parse(text) });
      });
      req.on('error', reject);
      req.setTimeout(30_000, () => req.destroy(new Error('no answer within 30 s')));
      req.end(body);
    });
  }

  test('client certificates over HTTP/2: the same user, and 401 for another CA', async () => {
    const r = await whoamiH2(client);
    assert.equal(r.status, 201, JSON.stringify(r.json));
    assert.equal(r.json.status.userInfo.username, 'carol');
    assert.deepEqual(r.json.status.userInfo.groups, ['ops', 'devs', 'system:authenticated']);
    assert.equal((await whoamiH2(stranger)).status, 401);
  });

  const saToken = (claims: { aud?: string; iss?: string; exp?: number } = {}) =>
    new SignJWT({ 'kubernetes.io': { namespace: 'team-a', serviceaccount: { name: 'builder', uid: 'sa-uid-1' }, pod: { name: 'builder-0', uid: 'pod-uid-1' } } })
      .setProtectedHeader({ alg: 'ES256' })
      .setSubject('system:serviceaccount:team-a:builder')
      .setIssuer(claims.iss ?? ISSUER)
      .setAudience(claims.aud ?? ISSUER)
      .setIssuedAt()
      .setExpirationTime(claims.exp ?? Math.floor(Date.now() / 1000) + 600)
      .setJti('token-1')
      .sign(saKeys.privateKey);

  test('a client certificate from the client CA: CN is the user, O the groups', async () => {
    const r = await whoami({ cert: client });
    assert.equal(r.status, 201);
    assert.equal(r.json.status.userInfo.username, 'carol');
    assert.deepEqual(r.json.status.userInfo.groups, ['ops', 'devs', 'system:authenticated']);
    assert.match(r.json.status.userInfo.extra['authentication.kubernetes.io/credential-id'][0], /^X509SHA256=[0-9a-f]{64}$/);
  });

  test('a certificate from another CA is refused with 401', async () => {
    const r = await whoami({ cert: stranger });
    assert.equal(r.status, 401);
    assert.equal(r.json.reason, 'Unauthorized');
  });

  test('a service-account token: its account, groups and bound pod', async () => {
    const r = await whoami({ token: await saToken() });
    assert.equal(r.status, 201, JSON.stringify(r.json));
    assert.deepEqual(r.json.status.userInfo, {
      username: 'system:serviceaccount:team-a:builder',
      uid: 'sa-uid-1',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:team-a', 'system:authenticated'],
      extra: {
        'authentication.kubernetes.io/pod-name': ['builder-0'],
        'authentication.kubernetes.io/pod-uid': ['pod-uid-1'],
        'authentication.kubernetes.io/credential-id': ['JTI=token-1'],
      },
    });
  });

  test('a verified token is trusted again only until it expires (exp plus the 60 s tolerance)', async () => {
    // Accepted for about 4 more seconds: expired 56 s ago, within the tolerance.
    const token = await saToken({ exp: Math.floor(Date.now() / 1000) - 56 });
    const first = await whoami({ token });
    assert.equal(first.status, 201, JSON.stringify(first.json));
    assert.equal((await whoami({ token })).status, 201, 'again, from the verified-token cache');
    await new Promise((r) => setTimeout(r, 5000));
    const later = await whoami({ token });
    assert.equal(later.status, 401, 'the cache does not outlive the token');
    assert.equal(later.json.reason, 'Unauthorized');
  });

  test('expired, wrong-audience, foreign-issuer and tampered tokens are 401', async () => {
    const expired = await saToken({ exp: Math.floor(Date.now() / 1000) - 3600 });
    const wrongAudience = await saToken({ aud: 'https://elsewhere' });
    const foreign = await saToken({ iss: 'https://not-ours' });
    const good = await saToken();
    const tampered = `${good.slice(0, -4)}AAAA`;
    for (const token of [expired, wrongAudience, foreign, tampered]) {
      const r = await whoami({ token });
      assert.equal(r.status, 401, token);
    }
  });
});
