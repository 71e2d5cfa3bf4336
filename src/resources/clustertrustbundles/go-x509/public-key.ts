// Go's parsePublicKey for the algorithms ParseCertificate parses (RSA, DSA, ECDSA on P-224,
// P-256, P-384 and P-521, Ed25519); any other algorithm is UnknownPublicKeyAlgorithm and is
// accepted unparsed. ECDSA points are checked as elliptic.Unmarshal does: uncompressed form,
// exact length, coordinates below p, on the curve (y² = x³ − 3x + b mod p).

import { Der, rightAlign, type GoRules } from './der.js';

const oidKey = (arcs: number[]): string => arcs.join('.');

export const KEY_RSA = '1.2.840.113549.1.1.1';
export const KEY_DSA = '1.2.840.10040.4.1';
export const KEY_ECDSA = '1.2.840.10045.2.1';
export const KEY_ED25519 = '1.3.101.112';

interface Curve {
  p: bigint;
  b: bigint;
  bytes: number;
}

const CURVES = new Map<string, Curve>([
  ['1.3.132.0.33', { p: 2n ** 224n - 2n ** 96n + 1n, b: 0xb4050a850c04b3abf54132565044b0b7d7bfd8ba270b39432355ffb4n, bytes: 28 }],
  [
    '1.2.840.10045.3.1.7',
    { p: 2n ** 256n - 2n ** 224n + 2n ** 192n + 2n ** 96n - 1n, b: 0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604bn, bytes: 32 },
  ],
  [
    '1.3.132.0.34',
    {
      p: 2n ** 384n - 2n ** 128n - 2n ** 96n + 2n ** 32n - 1n,
      b: 0xb3312fa7e23ee7e4988e056be3f82d19181d9c6efe8141120314088f5013875ac656398d8a2ed19d2a85c8edd3ec2aefn,
      bytes: 48,
    },
  ],
  [
    '1.3.132.0.35',
    {
      p: 2n ** 521n - 1n,
      b: 0x0051953eb9618e1c9a1f929a21a0b68540eea2da725b99b315f3b8b489918ef109e156193951ec7e937b1652c0bd3bb1bf073573df883d2c34f1ef451fd46b503f00n,
      bytes: 66,
    },
  ],
]);

const toBig = (b: Uint8Array): bigint => (b.length === 0 ? 0n : BigInt(`0x${Buffer.from(b.buffer, b.byteOffset, b.length).toString('hex')}`));

/** elliptic.Unmarshal on a NIST curve: true when `data` is a valid uncompressed point. */
export function validPoint(curve: Curve, data: Uint8Array): boolean {
  if (data.length !== 1 + 2 * curve.bytes || data[0] !== 4) return false;
  const x = toBig(data.subarray(1, 1 + curve.bytes));
  const y = toBig(data.subarray(1 + curve.bytes));
  const { p, b } = curve;
  if (x >= p || y >= p) return false;
  return (y * y - (x * x * x - 3n * x + b)) % p === 0n;
}

export const curveForTest = (oid: string): Curve | undefined => CURVES.get(oid);

/** Whether the key Go would parse for `algorithm` (with `params`, the parameters' full DER or empty) is well formed. */
export function publicKeyValid(algorithm: number[], params: Uint8Array, key: { bytes: Uint8Array; bitLength: number }, rules: GoRules): boolean {
  const data = rightAlign(key.bytes, key.bitLength);
  switch (oidKey(algorithm)) {
    case KEY_RSA: {
      if (params.length !== 2 || params[0] !== 0x05 || params[1] !== 0x00) return false; // NULL parameters
      const seq = Der.of(data).read(0x30);
      if (!seq) return false;
      const n = seq.readBigIntSign();
      if (n === undefined) return false;
      const e = seq.readInt64();
      return e !== undefined && n > 0 && e > 0n;
    }
    case KEY_ECDSA: {
      const curveOid = Der.of(params).readOid(rules);
      if (!curveOid) return false;
      const curve = CURVES.get(oidKey(curveOid));
      return curve !== undefined && validPoint(curve, data);
    }
    case KEY_ED25519:
      return params.length === 0 && data.length === 32;
    case KEY_DSA: {
      const y = Der.of(data).readBigIntSign();
      if (y === undefined) return false;
      const seq = Der.of(params).read(0x30);
      if (!seq) return false;
      const p = seq.readBigIntSign();
      const q = p === undefined ? undefined : seq.readBigIntSign();
      const g = q === undefined ? undefined : seq.readBigIntSign();
      if (g === undefined) return false;
      return y > 0 && p! > 0 && q! > 0 && g > 0;
    }
    default:
      return true; // UnknownPublicKeyAlgorithm: not parsed
  }
}
