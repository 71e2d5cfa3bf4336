// Certificate parsing as strict as Go's x509.ParseCertificate where Node is lenient: Node's
// X509Certificate accepts trailing bytes after the DER SEQUENCE, Go does not.

import { X509Certificate } from 'node:crypto';

/** True when `der` is exactly one minimally encoded DER SEQUENCE (tag, length, contents). */
export function isSingleDerSequence(der: Buffer): boolean {
  if (der.length < 2 || der[0] !== 0x30) return false;
  const first = der[1]!;
  if (first < 0x80) return 2 + first === der.length;
  const n = first & 0x7f;
  if (n === 0 || n > 4 || der.length < 2 + n) return false;
  if (der[2] === 0) return false; // leading zero: not minimal
  let length = 0;
  for (let i = 0; i < n; i++) length = length * 256 + der[2 + i]!;
  if (length < 0x80) return false; // long form for a short length: not minimal
  return 2 + n + length === der.length;
}

export type CertificateCheck = { ok: true; isCA: boolean } | { ok: false };

export function parseCertificate(der: Buffer): CertificateCheck {
  if (!isSingleDerSequence(der)) return { ok: false };
  try {
    return { ok: true, isCA: new X509Certificate(der).ca };
  } catch {
    return { ok: false };
  }
}
