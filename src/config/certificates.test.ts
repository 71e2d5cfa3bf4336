// Serving certificates on disk: made once, reused as they are on later starts (no regeneration,
// so the kubeconfig's CA stays valid), and replaced only when unusable: corrupt, a key that does
// not match, expired or about to, or not issued by the CA on disk.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import 'reflect-metadata';
import { createPrivateKey, webcrypto, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import { ensureServingCertificates } from './certificates.js';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 24 * 3600 * 1000;

const withDir = async (fn: (dir: string) => Promise<void>) => {
  const dir = mkdtempSync(join(tmpdir(), 'platform-certs-'));
  try {
    await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
const read = (dir: string, f: string) => readFileSync(join(dir, f), 'utf8');
const hosts = ['127.0.0.1'];

/** A serving certificate signed by the CA on disk with the given window (as an old server would have left it). */
async function writeServing(dir: string, notBefore: Date, notAfter: Date): Promise<void> {
  const caCert = new x509.X509Certificate(read(dir, 'ca.crt'));
  const der = Buffer.from(read(dir, 'ca.key').replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
  const caKey = await webcrypto.subtle.importKey('pkcs8', der, ALG, true, ['sign']);
  const keys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: '0a',
    subject: 'CN=platform-apiserver',
    issuer: caCert.subject,
    notBefore,
    notAfter,
    signingAlgorithm: ALG,
    publicKey: keys.publicKey as never,
    signingKey: caKey as never,
    extensions: [new x509.SubjectAlternativeNameExtension([{ type: 'ip', value: '127.0.0.1' }])],
  });
  writeFileSync(join(dir, 'apiserver.crt'), cert.toString('pem') + '\n');
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)).toString('base64');
  writeFileSync(join(dir, 'apiserver.key'), `-----BEGIN PRIVATE KEY-----\n${pkcs8}\n-----END PRIVATE KEY-----\n`);
}

describe('serving certificates', () => {
  test('made once, then reused byte for byte (files not rewritten)', () =>
    withDir(async (dir) => {
      const first = await ensureServingCertificates({ dir, hosts });
      const mtime = statSync(join(dir, 'apiserver.crt')).mtimeMs;
      const again = await ensureServingCertificates({ dir, hosts });
      assert.deepEqual(again, first);
      assert.equal(statSync(join(dir, 'apiserver.crt')).mtimeMs, mtime);
      const cert = new X509Certificate(first.certPem);
      assert.ok(cert.checkIssued(new X509Certificate(first.caCertPem)));
      assert.ok(cert.checkPrivateKey(createPrivateKey(first.keyPem)));
      assert.ok(cert.checkIP('127.0.0.1'));
    }));

  test('a corrupt serving certificate, or one whose key does not match, is replaced under the same CA', () =>
    withDir(async (dir) => {
      const first = await ensureServingCertificates({ dir, hosts });
      writeFileSync(join(dir, 'apiserver.crt'), '-----BEGIN CERTIFICATE-----\nnot a certificate\n-----END CERTIFICATE-----\n');
      const fixed = await ensureServingCertificates({ dir, hosts });
      assert.equal(fixed.caCertPem, first.caCertPem);
      assert.notEqual(fixed.certPem, first.certPem);
      assert.ok(new X509Certificate(fixed.certPem).checkPrivateKey(createPrivateKey(fixed.keyPem)));

      writeFileSync(join(dir, 'apiserver.key'), first.keyPem); // the old key beside the new certificate
      const rematched = await ensureServingCertificates({ dir, hosts });
      assert.equal(rematched.caCertPem, first.caCertPem);
      assert.ok(new X509Certificate(rematched.certPem).checkPrivateKey(createPrivateKey(rematched.keyPem)));
    }));

  test('an expired, or soon expiring, serving certificate is replaced under the same CA', () =>
    withDir(async (dir) => {
      const first = await ensureServingCertificates({ dir, hosts });
      for (const notAfter of [new Date(Date.now() - DAY), new Date(Date.now() + 10 * DAY)]) {
        await writeServing(dir, new Date(Date.now() - 400 * DAY), notAfter);
        const stale = read(dir, 'apiserver.crt');
        const fixed = await ensureServingCertificates({ dir, hosts });
        assert.equal(fixed.caCertPem, first.caCertPem);
        assert.notEqual(fixed.certPem, stale);
        assert.ok(Date.parse(new X509Certificate(fixed.certPem).validTo) > Date.now() + 300 * DAY);
      }
      // A valid one made outside the server is kept.
      await writeServing(dir, new Date(Date.now() - DAY), new Date(Date.now() + 100 * DAY));
      const kept = read(dir, 'apiserver.crt');
      assert.equal((await ensureServingCertificates({ dir, hosts })).certPem, kept);
    }));

  test('a corrupt CA is replaced, and so is the serving certificate it signed', () =>
    withDir(async (dir) => {
      const first = await ensureServingCertificates({ dir, hosts });
      writeFileSync(join(dir, 'ca.crt'), 'garbage\n');
      const fixed = await ensureServingCertificates({ dir, hosts });
      assert.notEqual(fixed.caCertPem, first.caCertPem);
      assert.notEqual(fixed.certPem, first.certPem);
      assert.ok(new X509Certificate(fixed.certPem).checkIssued(new X509Certificate(fixed.caCertPem)));
    }));

  test('a host the certificate does not name gets a new certificate', () =>
    withDir(async (dir) => {
      const first = await ensureServingCertificates({ dir, hosts });
      const more = await ensureServingCertificates({ dir, hosts: ['127.0.0.1', 'api.example.test'] });
      assert.equal(more.caCertPem, first.caCertPem);
      assert.ok(new X509Certificate(more.certPem).checkHost('api.example.test'));
    }));
});
