// Serving certificates generated once into the data dir (an ECDSA P-256 CA and a server
// certificate it signs) and reused on later starts; regenerated only when a needed host is
// missing or the certificate is about to expire. Made with @peculiar/x509 on WebCrypto, which is
// loaded only when something must be generated: checking what is on disk needs only
// node:crypto, and loading the generator costs a tenth of a second of every start.

import { createPrivateKey, webcrypto, X509Certificate } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import type * as X509 from '@peculiar/x509';

let generator: Promise<typeof X509> | undefined;
/** @peculiar/x509 (with the reflect-metadata it needs) on Node's WebCrypto, loaded once, on first use. */
function loadX509(): Promise<typeof X509> {
  generator ??= (async () => {
    await import('reflect-metadata');
    const x509 = await import('@peculiar/x509');
    x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
    return x509;
  })();
  return generator;
}

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 24 * 3600 * 1000;

export interface ServingCertificates {
  caCertPem: string;
  certPem: string;
  keyPem: string;
}

type Keys = Parameters<typeof X509.X509CertificateGenerator.createSelfSigned>[0]['keys'];

const pemKey = (der: ArrayBuffer): string => `-----BEGIN PRIVATE KEY-----\n${Buffer.from(der).toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END PRIVATE KEY-----\n`;

async function newKeys(): Promise<Keys> {
  return (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as unknown as Keys;
}

async function importKey(pem: string): Promise<CryptoKeyLike> {
  const der = Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
  return webcrypto.subtle.importKey('pkcs8', der, ALG, true, ['sign']) as unknown as CryptoKeyLike;
}
type CryptoKeyLike = Keys['privateKey'];

const serial = (): string => Buffer.from(webcrypto.getRandomValues(new Uint8Array(16))).toString('hex').replace(/^[89a-f]/, '1');

async function createCA(dir: string): Promise<void> {
  const x509 = await loadX509();
  const keys = await newKeys();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: 'CN=platform-apiserver-ca',
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 3650 * DAY),
    signingAlgorithm: ALG,
    keys,
    extensions: [new x509.BasicConstraintsExtension(true, undefined, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true)],
  });
  writeFileSync(join(dir, 'ca.crt'), cert.toString('pem') + '\n');
  writeFileSync(join(dir, 'ca.key'), pemKey(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey as unknown as webcrypto.CryptoKey)), { mode: 0o600 });
}

async function createServing(dir: string, hosts: string[]): Promise<void> {
  const x509 = await loadX509();
  const caCert = new x509.X509Certificate(readFileSync(join(dir, 'ca.crt'), 'utf8'));
  const caKey = await importKey(readFileSync(join(dir, 'ca.key'), 'utf8'));
  const keys = await newKeys();
  const names = [...new Set(['localhost', '127.0.0.1', '::1', ...hosts])].map((h) => (isIP(h) ? { type: 'ip' as const, value: h } : { type: 'dns' as const, value: h }));
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: 'CN=platform-apiserver',
    issuer: caCert.subject,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 365 * DAY),
    signingAlgorithm: ALG,
    publicKey: keys.publicKey,
    signingKey: caKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(names),
    ],
  });
  writeFileSync(join(dir, 'apiserver.crt'), cert.toString('pem') + '\n');
  writeFileSync(join(dir, 'apiserver.key'), pemKey(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey as unknown as webcrypto.CryptoKey)), { mode: 0o600 });
}

/** A certificate and its key from disk, or undefined when either is missing, unreadable or they do not match. */
function readPair(dir: string, name: string): X509Certificate | undefined {
  try {
    const cert = new X509Certificate(readFileSync(join(dir, `${name}.crt`)));
    const key = createPrivateKey(readFileSync(join(dir, `${name}.key`)));
    return cert.checkPrivateKey(key) ? cert : undefined;
  } catch {
    return undefined;
  }
}

/** Valid now and for at least `marginMs` more. */
const current = (cert: X509Certificate, marginMs: number): boolean => Date.parse(cert.validFrom) <= Date.now() + 60_000 && Date.parse(cert.validTo) - Date.now() >= marginMs;

/** The CA on disk, when it can still sign (a corrupt, mismatched or expired one is replaced). */
function usableCA(dir: string): X509Certificate | undefined {
  const ca = readPair(dir, 'ca');
  return ca && ca.ca && current(ca, DAY) ? ca : undefined;
}

function servingCertUsable(dir: string, ca: X509Certificate, hosts: string[]): boolean {
  const cert = readPair(dir, 'apiserver');
  if (!cert || !current(cert, 30 * DAY)) return false;
  if (!cert.checkIssued(ca) || !cert.verify(ca.publicKey)) return false;
  return hosts.every((h) => (isIP(h) ? cert.checkIP(h) !== undefined : cert.checkHost(h) !== undefined));
}

export async function ensureServingCertificates(opts: { dir: string; hosts: string[] }): Promise<ServingCertificates> {
  mkdirSync(opts.dir, { recursive: true, mode: 0o700 });
  // A new CA invalidates every kubeconfig handed out before, so the one on disk is kept as long
  // as it is usable; only the serving certificate is renewed (hosts changed, expiring, corrupt).
  let ca = usableCA(opts.dir);
  if (!ca) {
    await createCA(opts.dir);
    ca = usableCA(opts.dir)!;
  }
  const hosts = opts.hosts.filter((h) => h && h !== '0.0.0.0' && h !== '::');
  if (!servingCertUsable(opts.dir, ca, hosts)) await createServing(opts.dir, hosts);
  return {
    caCertPem: readFileSync(join(opts.dir, 'ca.crt'), 'utf8'),
    certPem: readFileSync(join(opts.dir, 'apiserver.crt'), 'utf8'),
    keyPem: readFileSync(join(opts.dir, 'apiserver.key'), 'utf8'),
  };
}
