// --tls-min-version and --tls-cipher-suites as kube-apiserver reads them (component-base's
// names: Go's crypto/tls constants), turned into what Node's TLS (OpenSSL) takes. The default is
// what a Go 1.24 server offers: TLS 1.2 at least and Go's default TLS 1.0-1.2 suites (ECDHE with
// AES-GCM, ChaCha20-Poly1305 and AES-CBC-SHA). TLS 1.3 suites are not configurable, as in Go:
// all three are always on, and naming one in the flag is accepted and changes nothing. Insecure
// suites are accepted with a warning, as kube accepts them. A suite this OpenSSL no longer has
// (RC4, 3DES) is accepted by name and simply never negotiated; with no TLS 1.0-1.2 suite left,
// only TLS 1.3 is served (Go would find no suite for an older handshake either).

import { getCiphers } from 'node:tls';

export type NodeTlsVersion = 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';

export interface TlsOptions {
  minVersion: NodeTlsVersion;
  /** OpenSSL cipher string (TLS 1.0-1.2 suites, then the TLS 1.3 ones). */
  ciphers: string;
  /** Insecure suites named in the flag (kube warns about each). */
  insecure: string[];
}

const VERSIONS: Record<string, NodeTlsVersion> = { VersionTLS10: 'TLSv1', VersionTLS11: 'TLSv1.1', VersionTLS12: 'TLSv1.2', VersionTLS13: 'TLSv1.3' };

/** Go's secure suites (tls.CipherSuites()), by Go's name, as OpenSSL names them. */
const SECURE: Record<string, string> = {
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  // component-base keeps the older names too.
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: 'ECDHE-ECDSA-CHACHA20-POLY1305',
};

/** Go's insecure suites (tls.InsecureCipherSuites()). */
const INSECURE: Record<string, string> = {
  TLS_RSA_WITH_RC4_128_SHA: 'RC4-SHA',
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: 'DES-CBC3-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA256: 'AES128-SHA256',
  TLS_ECDHE_ECDSA_WITH_RC4_128_SHA: 'ECDHE-ECDSA-RC4-SHA',
  TLS_ECDHE_RSA_WITH_RC4_128_SHA: 'ECDHE-RSA-RC4-SHA',
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: 'ECDHE-RSA-DES-CBC3-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: 'ECDHE-ECDSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: 'ECDHE-RSA-AES128-SHA256',
};

/** The TLS 1.3 suites: always all of them (Go's are not configurable). */
const TLS13 = ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'];

/** What a Go 1.24 server offers for TLS 1.0-1.2 when no suites are configured. */
const GO_DEFAULT = [
  'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256',
  'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256',
  'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA',
  'TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA',
];

/** Every name the flag accepts (for help and documentation). */
export const TLS_CIPHER_NAMES = { secure: [...Object.keys(SECURE), ...TLS13].sort(), insecure: Object.keys(INSECURE).sort() };

export function resolveTls(minVersion: string | undefined, cipherSuites: string | undefined): TlsOptions {
  let min: NodeTlsVersion = 'TLSv1.2';
  if (minVersion) {
    const v = VERSIONS[minVersion];
    if (!v) throw new Error(`unknown tls version ${JSON.stringify(minVersion)}`);
    min = v;
  }
  const names = cipherSuites ? cipherSuites.split(',').map((s) => s.trim()).filter(Boolean) : [];
  const openssl: string[] = [];
  const insecure: string[] = [];
  for (const name of names.length ? names : GO_DEFAULT) {
    if (TLS13.includes(name)) continue;
    const secure = SECURE[name];
    const weak = INSECURE[name];
    if (!secure && !weak) throw new Error(`Cipher suite ${name} not supported or doesn't exist`);
    if (weak) insecure.push(name);
    const s = secure ?? weak!;
    if (!openssl.includes(s)) openssl.push(s);
  }
  const available = new Set(getCiphers().map((c) => c.toUpperCase()));
  const usable = openssl.filter((c) => available.has(c));
  if (usable.length === 0) return { minVersion: 'TLSv1.3', ciphers: TLS13.join(':'), insecure };
  // OpenSSL 3 refuses TLS 1.0/1.1 handshakes (their SHA-1 signatures) above security level 0;
  // a server told to accept those versions has to lower it, as Go simply serves them.
  const level = min === 'TLSv1' || min === 'TLSv1.1' ? ['@SECLEVEL=0'] : [];
  return { minVersion: min, ciphers: [...usable, ...level, ...TLS13].join(':'), insecure };
}
