// TLS to etcd (--etcd-cafile, --etcd-certfile, --etcd-keyfile): a real etcd serving clients over
// TLS and requiring client certificates; the store verifies etcd against the CA and presents its
// own certificate. Without the client certificate etcd refuses the store.

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import { EtcdStore } from './etcd-store.js';
import { isStorageError } from './revisioned-store.js';
import { ensureServingCertificates } from '../config/certificates.js';
import { requireEtcd, startEtcdCluster, type EtcdCluster } from '../../test/support/etcd-process.js';

const haveEtcd = requireEtcd('TLS to etcd is tested against a real etcd') !== undefined;
const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const pem = (der: ArrayBuffer): string => `-----BEGIN PRIVATE KEY-----\n${Buffer.from(der).toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END PRIVATE KEY-----\n`;

/** A client certificate (clientAuth) signed by the CA in `dir`. */
async function clientCertificate(dir: string): Promise<{ certFile: string; keyFile: string }> {
  x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
  const caCert = new x509.X509Certificate(readFileSync(join(dir, 'ca.crt'), 'utf8'));
  const caDer = Buffer.from(readFileSync(join(dir, 'ca.key'), 'utf8').replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
  const caKey = await webcrypto.subtle.importKey('pkcs8', caDer, ALG, true, ['sign']);
  const keys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: '01',
    subject: 'CN=platform-apiserver-etcd-client',
    issuer: caCert.subject,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 86_400_000),
    signingAlgorithm: ALG,
    publicKey: keys.publicKey as never,
    signingKey: caKey as never,
    extensions: [new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]), new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true)],
  });
  const certFile = join(dir, 'client.crt');
  const keyFile = join(dir, 'client.key');
  writeFileSync(certFile, cert.toString('pem') + '\n');
  writeFileSync(keyFile, pem(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)), { mode: 0o600 });
  return { certFile, keyFile };
}

describe('TLS to etcd', { skip: !haveEtcd }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'etcd-tls-'));
  let etcd: EtcdCluster | undefined;
  after(async () => {
    await etcd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the store verifies etcd with the CA and authenticates with its client certificate', async () => {
    await ensureServingCertificates({ dir, hosts: ['127.0.0.1'] });
    const client = await clientCertificate(dir);
    const tls = { certFile: join(dir, 'apiserver.crt'), keyFile: join(dir, 'apiserver.key'), caFile: join(dir, 'ca.crt'), clientCertFile: client.certFile, clientKeyFile: client.keyFile };
    etcd = await startEtcdCluster({ tls });
    assert.match(etcd.endpoints, /^https:\/\//);
    const store = new EtcdStore({ servers: etcd.endpoints.split(','), caFile: tls.caFile, certFile: client.certFile, keyFile: client.keyFile, root: '', prefix: '/tls' });
    try {
      const put = await store.optimisticPut('/k', new TextEncoder().encode('over tls'), 0);
      assert.equal(new TextDecoder().decode((await store.get('/k')).kv!.value), 'over tls');
      assert.equal(await store.currentRevision(), put.revision);
    } finally {
      await store.close();
    }
    const anonymous = new EtcdStore({ servers: etcd.endpoints.split(','), caFile: tls.caFile, root: '', prefix: '/tls', requestTimeoutMs: 3000 });
    try {
      await assert.rejects(anonymous.get('/k'), (e: unknown) => isStorageError(e));
    } finally {
      await anonymous.close();
    }
  });
});
