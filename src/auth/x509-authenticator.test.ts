// Client certificates as kube maps them: CN the user, each O a group, the certificate's SHA-256
// as the credential id; no certificate is not ours, an unverified one is a 401 error.

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
  const r = await new X509Authenticator().authenticate({ headers: {}, clientCertificate: { der: raw, verified: true } });
  assert.deepEqual(r, {
    kind: 'user',
    user: {
      username: 'alice',
      groups: ['devs', 'ops'],
      extra: { 'authentication.kubernetes.io/credential-id': [`X509SHA256=${createHash('sha256').update(raw).digest('hex')}`] },
    },
  });
});

test('a certificate that did not verify is an error naming why; none presented is not ours', async () => {
  const ca = await makeSigningCA();
  const { certPem } = await makeClientCert(ca, 'alice');
  const a = new X509Authenticator();
  assert.deepEqual(await a.authenticate({ headers: {}, clientCertificate: { der: der(certPem), verified: false, error: 'certificate has expired' } }), {
    kind: 'error',
    message: 'verifying certificate failed: certificate has expired',
  });
  assert.deepEqual(await a.authenticate({ headers: {}, clientCertificate: { der: der(certPem), verified: false } }), {
    kind: 'error',
    message: 'verifying certificate failed: unknown authority',
  });
  assert.deepEqual(await a.authenticate({ headers: {} }), { kind: 'none' });
});

test('a verified certificate without a CN names no user', async () => {
  const ca = await makeSigningCA();
  const { certPem } = await makeClientCert(ca, '', ['devs']);
  assert.deepEqual(await new X509Authenticator().authenticate({ headers: {}, clientCertificate: { der: der(certPem), verified: true } }), { kind: 'none' });
});
