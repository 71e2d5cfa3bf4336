// Chain verification as Go's Certificate.Verify with kube's options: through the intermediates
// the client sent to a root of the current bundle, CA intermediates only, each certificate's
// validity period at the time asked, the clientAuth usage (or any) wherever usages are named.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { makeClientCert, makeSigningCA, type TestCA } from '../../test/fixtures/certs.js';
import { ClientCertificateChains } from './client-certificate-chains.js';

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 24 * 3600 * 1000;
const der = (pem: string): Buffer => Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ''), 'base64');

/** A certificate for a CA signed by `issuer` (an intermediate), or a non-CA one when `ca` is false. */
async function intermediate(issuer: TestCA, name: string, ca = true, notAfter = new Date(Date.now() + DAY)): Promise<TestCA> {
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as unknown as TestCA['keys'];
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: Math.floor(Math.random() * 1e9).toString(16),
    subject: `CN=${name}`,
    issuer: new x509.X509Certificate(issuer.der).subject,
    notBefore: new Date(Date.now() - 60_000),
    notAfter,
    signingAlgorithm: ALG,
    publicKey: keys.publicKey,
    signingKey: issuer.keys.privateKey,
    extensions: [new x509.BasicConstraintsExtension(ca, undefined, true)],
  });
  const d = Buffer.from(cert.rawData);
  return { der: d, pem: cert.toString('pem'), keys };
}

test('chains through the intermediates sent, to a root of the bundle in force', async () => {
  const root = await makeSigningCA('root');
  const inter = await intermediate(root, 'intermediate');
  const leaf = await makeClientCert(inter, 'alice', ['devs']);
  const chains = new ClientCertificateChains();
  chains.setBundle(root.pem);
  const ok = chains.verify([der(leaf.certPem), inter.der]);
  assert.equal(ok.ok, true);
  assert.equal(ok.ok && ok.leaf.subject, 'CN=alice\nO=devs');
  assert.deepEqual(chains.verify([der(leaf.certPem)]), { ok: false, reason: 'x509: certificate signed by unknown authority' }, 'without the intermediate');
  chains.setBundle((await makeSigningCA('other')).pem);
  assert.deepEqual(chains.verify([der(leaf.certPem), inter.der]), { ok: false, reason: 'x509: certificate signed by unknown authority' }, 'another bundle');
  chains.setBundle(inter.pem);
  assert.equal(chains.verify([der(leaf.certPem)]).ok, true, 'the intermediate itself as a root');
});

test('an intermediate that is not a CA signs nothing', async () => {
  const root = await makeSigningCA('root');
  const notCA = await intermediate(root, 'not-a-ca', false);
  const leaf = await makeClientCert(notCA, 'mallory');
  const chains = new ClientCertificateChains();
  chains.setBundle(root.pem);
  assert.equal(chains.verify([der(leaf.certPem), notCA.der]).ok, false);
});

test('validity: the leaf and every certificate of the chain at the time asked', async () => {
  const root = await makeSigningCA('root');
  const shortInter = await intermediate(root, 'short', true, new Date(Date.now() + 3600_000));
  const leaf = await makeClientCert(shortInter, 'alice');
  const chains = new ClientCertificateChains();
  chains.setBundle(root.pem);
  const presented = [der(leaf.certPem), shortInter.der];
  assert.equal(chains.verify(presented).ok, true);
  const later = chains.verify(presented, Date.now() + 2 * 3600_000);
  assert.equal(later.ok, false, 'the intermediate expired');
  assert.match(!later.ok ? later.reason : '', /^x509: certificate has expired or is not yet valid/);
  assert.equal(chains.verify(presented, Date.now() - 3600_000).ok, false, 'not yet valid');
});

test('usages: clientAuth or any wherever usages are named', async () => {
  const root = await makeSigningCA('root');
  const chains = new ClientCertificateChains();
  chains.setBundle(root.pem);
  const serverOnly = await makeClientCert(root, 'web', [], { usages: [x509.ExtendedKeyUsage.serverAuth] });
  assert.deepEqual(chains.verify([der(serverOnly.certPem)]), { ok: false, reason: 'x509: certificate specifies an incompatible key usage' });
  const any = await makeClientCert(root, 'any', [], { usages: ['2.5.29.37.0'] });
  assert.equal(chains.verify([der(any.certPem)]).ok, true);
  const both = await makeClientCert(root, 'both', [], { usages: [x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth] });
  assert.equal(chains.verify([der(both.certPem)]).ok, true);
});

test('no bundle: nothing verifies', async () => {
  const root = await makeSigningCA('root');
  const leaf = await makeClientCert(root, 'alice');
  const chains = new ClientCertificateChains();
  chains.setBundle(undefined);
  assert.equal(chains.hasBundle(), false);
  assert.equal(chains.verify([der(leaf.certPem)]).ok, false);
});
