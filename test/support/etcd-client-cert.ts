// A client certificate for TLS to a test etcd: clientAuth, signed by the CA the server's
// certificate code wrote into a dir (ca.crt, ca.key), so one CA verifies etcd's serving
// certificate and etcd verifies the client's.

import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const pem = (der: ArrayBuffer): string => `-----BEGIN PRIVATE KEY-----\n${Buffer.from(der).toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END PRIVATE KEY-----\n`;

/** A client certificate (clientAuth) signed by the CA in `dir`. */
export async function clientCertificate(dir: string): Promise<{ certFile: string; keyFile: string }> {
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
