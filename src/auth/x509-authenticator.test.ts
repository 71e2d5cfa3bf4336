// Client certificates as kube maps them: CN the user, each O a group, the certificate's SHA-256
// as the credential id; no certificate (or no CA bundle) is not ours, one that does not verify
// against the bundle in force is a 401 error.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, X509Certificate } from 'node:crypto';
import { makeClientCert, makeSigningCA } from '../../test/fixtures/certs.js';
import { X509Authenticator } from './x509-authenticator.js';

const der = (pem: string): Buffer => new X509Certificate(pem).raw;

test('CN is the user, each O a group, in order; the credential id is the certificate SHA-256', async () => {
  const ca = await makeSigningCA();
  const { certPem } = await makeClientCert(ca, 'alice', ['devs', 'ops']);
  const raw = der(certPem);
  const a = new X509Authenticator();
  a.setClientCA(ca.pem);
  const r = await a.authenticate({ headers: {}, clientCertificate: { chain: [raw] } });
  assert.deepEqual(r, {
    kind: 'user',
    user: {
      username: 'alice',
      groups: ['devs', 'ops'],
      extra: { 'authentication.kubernetes.io/credential-id': [`X509SHA256=${createHash('sha256').update(raw).digest('hex')}`] },
    },
  });
});

test('a certificate from another authority is an error naming why; none presented, or no bundle, is not ours', async () => {
  const ca = await makeSigningCA();
  const other = await makeSigningCA('another-ca');
  const { certPem } = await makeClientCert(other, 'alice');
  const a = new X509Authenticator();
  a.setClientCA(ca.pem);
  const r = await a.authenticate({ headers: {}, clientCertificate: { chain: [der(certPem)] } });
  assert.equal(r.kind, 'error');
  assert.match((r as { message: string }).message, /^verifying certificate failed: /);
  assert.deepEqual(await a.authenticate({ headers: {} }), { kind: 'none' });
  assert.deepEqual(await new X509Authenticator().authenticate({ headers: {}, clientCertificate: { chain: [der(certPem)] } }), { kind: 'none' });
});

test('a CA dropped from the bundle stops authenticating its certificates at once', async () => {
  const ca = await makeSigningCA();
  const other = await makeSigningCA('another-ca');
  const { certPem } = await makeClientCert(ca, 'alice');
  const a = new X509Authenticator();
  a.setClientCA(ca.pem + other.pem);
  assert.equal((await a.authenticate({ headers: {}, clientCertificate: { chain: [der(certPem)] } })).kind, 'user');
  a.setClientCA(other.pem);
  assert.equal((await a.authenticate({ headers: {}, clientCertificate: { chain: [der(certPem)] } })).kind, 'error');
});

test('a verified certificate without a CN names no user', async () => {
  const ca = await makeSigningCA();
  const { certPem } = await makeClientCert(ca, '', ['devs']);
  const a = new X509Authenticator();
  a.setClientCA(ca.pem);
  assert.deepEqual(await a.authenticate({ headers: {}, clientCertificate: { chain: [der(certPem)] } }), { kind: 'none' });
});
