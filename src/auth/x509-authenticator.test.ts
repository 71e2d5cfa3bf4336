// Client certificates as kube maps them: CN the user, each O a group, the certificate's SHA-256
// as the credential id; no certificate (or no CA bundle) is not ours, one that does not verify
// against the bundle in force is a 401 error.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, X509Certificate } from 'node:crypto';
import { makeClientCert, makeSigningCA } from '../../test/fixtures/certs.js';
import { subjectAttributes, X509Authenticator } from './x509-authenticator.js';

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
  assert.deepEqual(await a.authenticate({ headers: {}, clientCertificate: { chain: [] } }), { kind: 'none' }, 'an empty chain is no certificate');
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

// Go's pkix.Name, which kube reads: CommonName is the last CN (each one overwrites it),
// Organization every O in order, multi-valued RDNs flattened, values unescaped.
async function userOf(cn: string, groups: string[]) {
  const ca = await makeSigningCA();
  const { certPem } = await makeClientCert(ca, cn, groups);
  const a = new X509Authenticator();
  a.setClientCA(ca.pem);
  const r = await a.authenticate({ headers: {}, clientCertificate: { chain: [der(certPem)] } });
  return r.kind === 'user' ? { username: r.user.username, groups: r.user.groups } : r;
}

test('the last CN is the user, as Go reads the subject', async () => {
  assert.deepEqual(await userOf('first, CN=second', ['devs']), { username: 'second', groups: ['devs'] });
});

test('a multi-valued RDN is flattened: its CN is the user, its O a group', async () => {
  assert.deepEqual(await userOf('x+O=multi', ['z']), { username: 'x', groups: ['multi', 'z'] });
});

test('special and control characters in names are the characters, not their escapes', async () => {
  assert.deepEqual(await userOf('\\ sp', ['a\\,b', 'c\\+d', 'line\\0Abreak', 'é ü', '\\#hash', 'q\\"uo\\<\\>\\;\\\\x']), {
    username: ' sp',
    groups: ['a,b', 'c+d', 'line\nbreak', 'é ü', '#hash', 'q"uo<>;\\x'],
  });
});

test("subjectAttributes reads Node's subject text", () => {
  assert.deepEqual(subjectAttributes('CN=a \\  + O=b\nO=\\2C\\5c\nOU=x=y\n1.2.3.4=v'), [
    ['CN', 'a  '],
    ['O', 'b'],
    ['O', ',\\'],
    ['OU', 'x=y'],
    ['1.2.3.4', 'v'],
  ]);
  assert.deepEqual(subjectAttributes(''), []);
  assert.deepEqual(subjectAttributes('O='), [['O', '']]);
});
