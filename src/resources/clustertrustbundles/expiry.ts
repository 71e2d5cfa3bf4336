// Expiry made visible: the validity of each certificate in a trust bundle, the warnings a
// create or update returns for certificates that are expired, not yet valid or expiring within
// 30 days (kubectl prints them as `Warning: ...`), and the earliest expiry of a bundle (for a
// gauge). Upstream kube checks none of this; a stale trust anchor fails only at handshake time.

import { X509Certificate } from 'node:crypto';
import { readValidity } from './certificate-validity.js';
import { pemDecodeAll } from './pem-decode.js';

export const EXPIRY_WARNING_WINDOW_MS = 30 * 24 * 3600 * 1000;
/** More warnings than this are summarized in one line (headers stay small). */
const MAX_WARNINGS = 20;

export interface CertificateValidity {
  /** 0-based position among the bundle's PEM blocks. */
  index: number;
  subject: string;
  notBefore: Date;
  notAfter: Date;
}

/** Validity of each certificate in `trustBundle` (blocks that do not parse are skipped: validation reports them). */
export function certificateValidities(trustBundle: string): CertificateValidity[] {
  const out: CertificateValidity[] = [];
  pemDecodeAll(trustBundle).forEach((block, index) => {
    try {
      const cert = new X509Certificate(block.bytes);
      out.push({ index, subject: cert.subject.split('\n').join(', '), notBefore: new Date(cert.validFrom), notAfter: new Date(cert.validTo) });
    } catch {
      // Not a certificate: validation answers for it.
    }
  });
  return out;
}

const rfc3339 = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Whether a certificate valid from `notBefore` to `notAfter` is worth a warning at `t`. */
const warrantsWarning = (notBefore: Date, notAfter: Date, t: number): boolean =>
  notAfter.getTime() < t || notBefore.getTime() > t || notAfter.getTime() - t <= EXPIRY_WARNING_WINDOW_MS;

/**
 * One warning per certificate that is expired, not yet valid, or expires within 30 days of `now`.
 * Every create and update of a bundle asks, and most certificates need no warning: their validity
 * is read from the DER (certificate-validity.ts), and only a certificate to warn about (or one the
 * reader does not understand) is parsed fully, for its subject.
 */
export function expiryWarnings(trustBundle: string, now: Date): string[] {
  const t = now.getTime();
  const warnings: string[] = [];
  pemDecodeAll(trustBundle).forEach((block, index) => {
    const v = readValidity(block.bytes);
    if (v && !warrantsWarning(v.notBefore, v.notAfter, t)) return;
    let c: CertificateValidity;
    try {
      const cert = new X509Certificate(block.bytes);
      c = { index, subject: cert.subject.split('\n').join(', '), notBefore: new Date(cert.validFrom), notAfter: new Date(cert.validTo) };
    } catch {
      return; // not a certificate: validation answers for it
    }
    const which = `spec.trustBundle: certificate ${c.index} (${c.subject || 'no subject'})`;
    if (c.notAfter.getTime() < t) warnings.push(`${which} expired at ${rfc3339(c.notAfter)}`);
    else if (c.notBefore.getTime() > t) warnings.push(`${which} is not valid until ${rfc3339(c.notBefore)}`);
    else if (c.notAfter.getTime() - t <= EXPIRY_WARNING_WINDOW_MS) warnings.push(`${which} expires at ${rfc3339(c.notAfter)}, within 30 days`);
  });
  if (warnings.length <= MAX_WARNINGS) return warnings;
  return [...warnings.slice(0, MAX_WARNINGS), `spec.trustBundle: ${warnings.length - MAX_WARNINGS} more certificates are expired, not yet valid or expiring within 30 days`];
}

/**
 * The earliest notAfter of the bundle's certificates; undefined when it has none. Read from the
 * DER's validity field (the gauge needs no subject, and a full parse of every bundle made
 * restarts with thousands of them slow); a block the reader does not understand is parsed fully.
 */
export function earliestExpiry(trustBundle: string): Date | undefined {
  let earliest: Date | undefined;
  for (const block of pemDecodeAll(trustBundle)) {
    let notAfter = readValidity(block.bytes)?.notAfter;
    if (!notAfter) {
      try {
        notAfter = new Date(new X509Certificate(block.bytes).validTo);
      } catch {
        continue; // not a certificate: validation answers for it
      }
    }
    if (!earliest || notAfter < earliest) earliest = notAfter;
  }
  return earliest;
}
