// A certificate's validity window (notBefore, notAfter) read straight from its DER, walking only
// the fields before it (RFC 5280: Certificate → tbsCertificate → [version], serialNumber,
// signature, issuer, validity). The expiry gauge needs nothing else, and Node's X509Certificate
// (OpenSSL decoding the whole certificate, public key included) costs about half a millisecond a
// certificate: with thousands of trust bundles that was most of a restart. Stored bundles were
// validated on write (go-x509/); anything this reader does not understand (a time with an
// offset, say) answers undefined and the caller falls back to X509Certificate.

interface Tlv {
  tag: number;
  /** Offset of the contents. */
  start: number;
  /** Offset just past the contents. */
  end: number;
}

/** The DER element at `offset`, within `limit`; undefined when it does not fit. */
function readTlv(der: Uint8Array, offset: number, limit: number): Tlv | undefined {
  if (offset + 2 > limit) return undefined;
  const tag = der[offset]!;
  const first = der[offset + 1]!;
  let start = offset + 2;
  let length = first;
  if (first & 0x80) {
    const n = first & 0x7f;
    if (n === 0 || n > 4 || start + n > limit) return undefined;
    length = 0;
    for (let i = 0; i < n; i++) length = length * 256 + der[start + i]!;
    start += n;
  }
  const end = start + length;
  return end > limit ? undefined : { tag, start, end };
}

const SEQUENCE = 0x30;
const INTEGER = 0x02;
const VERSION = 0xa0; // [0] EXPLICIT
const UTC_TIME = 0x17;
const GENERALIZED_TIME = 0x18;

/** UTCTime `YYMMDDHHMMSSZ` (years 50–99 are 19xx) or GeneralizedTime `YYYYMMDDHHMMSSZ`, as DER requires them. */
function readTime(der: Uint8Array, t: Tlv): Date | undefined {
  const text = Buffer.from(der.buffer, der.byteOffset + t.start, t.end - t.start).toString('latin1');
  const m = t.tag === UTC_TIME ? /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(text) : t.tag === GENERALIZED_TIME ? /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(text) : null;
  if (!m) return undefined;
  let year = Number(m[1]);
  if (t.tag === UTC_TIME) year += year >= 50 ? 1900 : 2000;
  const date = new Date(Date.UTC(year, Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])));
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** The validity window of a DER certificate, or undefined when its DER is not as expected. */
export function readValidity(der: Uint8Array): { notBefore: Date; notAfter: Date } | undefined {
  const cert = readTlv(der, 0, der.length);
  if (!cert || cert.tag !== SEQUENCE) return undefined;
  const tbs = readTlv(der, cert.start, cert.end);
  if (!tbs || tbs.tag !== SEQUENCE) return undefined;
  let field = readTlv(der, tbs.start, tbs.end);
  if (field?.tag === VERSION) field = readTlv(der, field.end, tbs.end);
  if (field?.tag !== INTEGER) return undefined; // serialNumber
  const signature = readTlv(der, field.end, tbs.end);
  if (signature?.tag !== SEQUENCE) return undefined;
  const issuer = readTlv(der, signature.end, tbs.end);
  if (issuer?.tag !== SEQUENCE) return undefined;
  const validity = readTlv(der, issuer.end, tbs.end);
  if (validity?.tag !== SEQUENCE) return undefined;
  const notBefore = readTlv(der, validity.start, validity.end);
  const notAfter = notBefore && readTlv(der, notBefore.end, validity.end);
  if (!notBefore || !notAfter || notAfter.end !== validity.end) return undefined;
  const from = readTime(der, notBefore);
  const to = readTime(der, notAfter);
  return from && to ? { notBefore: from, notAfter: to } : undefined;
}
