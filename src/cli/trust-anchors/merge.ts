// The merged trust anchors of a set of ClusterTrustBundles, as the kubelet computes a
// clusterTrustBundle projected volume: every PEM block of every bundle (decoded as Go's
// pem.Decode does; type and headers ignored), de-duplicated by DER bytes, sorted by those bytes,
// each written as a fresh CERTIFICATE block (base64 at 64 columns), concatenated.
//
// One difference: the kubelet shuffles the sorted list (once per computation) so that consumers
// cannot come to depend on an order. We keep the sorted order, so that the output changes only
// when the set does and `--watch` rewrites a file only on real changes. The order carries no
// meaning either way.

import { pemDecodeAll } from '../../resources/clustertrustbundles/pem-decode.js';

export interface TrustBundleLike {
  metadata?: { name?: string };
  spec?: { signerName?: string; trustBundle?: string };
}

/** The merged PEM ('' when there is no certificate). */
export function mergeTrustAnchors(bundles: readonly TrustBundleLike[]): string {
  const unique = new Map<string, Buffer>();
  for (const b of bundles) {
    for (const block of pemDecodeAll(b.spec?.trustBundle ?? '')) unique.set(block.bytes.toString('latin1'), block.bytes);
  }
  return [...unique.values()]
    .sort(Buffer.compare)
    .map(encodeCertificate)
    .join('');
}

/** Go's pem.EncodeToMemory of a CERTIFICATE block without headers. */
export function encodeCertificate(der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.map((l) => `${l}\n`).join('')}-----END CERTIFICATE-----\n`;
}

/** How many certificates a merged PEM holds. */
export const countCertificates = (pem: string): number => pem.split('-----BEGIN CERTIFICATE-----').length - 1;
