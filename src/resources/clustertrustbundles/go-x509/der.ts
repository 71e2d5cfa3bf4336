// A strict DER reader with the exact acceptance rules of Go's golang.org/x/crypto/cryptobyte
// (the reader behind crypto/x509.ParseCertificate): one-byte tags only, definite minimal
// lengths of at most four length bytes, minimal INTEGERs, BOOLEAN only 0x00/0xff, BIT STRING
// padding bits zero, OID arcs below 2^31. General ASN.1 libraries (asn1js under
// @peculiar/x509) decode BER and accept what Go refuses (indefinite and non-minimal lengths,
// long-form tags), so kube's accept/reject cannot be had from them; this file is the small
// subset of cryptobyte that certificate parsing needs, as a cursor over one buffer.

/**
 * Which Go the rules follow. kube-apiserver 1.33 is built with Go 1.24 (`go124: true`, what the
 * server uses); Debian's golang-go 1.19, the Go a test machine has, lacks these rules of 1.24:
 * OID subidentifiers must be minimal (no leading 0x80), a zone offset hour above 24 is out of
 * range, negative serial numbers are refused, subject/authority key identifier and authority info
 * access extensions may not be critical, certificate policies are read as raw OIDs (any arc
 * size, minimal, no duplicates), and policy mappings, policy constraints and inhibitAnyPolicy are
 * parsed. The differential test runs with the rules of the Go it compares against;
 * go124-rules.test.ts pins each 1.24 rule.
 */
export interface GoRules {
  go124: boolean;
}

export const GO_1_24: GoRules = { go124: true };

export interface Tlv {
  tag: number;
  /** Offset of the tag byte. */
  start: number;
  /** Offset of the contents. */
  body: number;
  /** Offset just past the contents. */
  end: number;
}

/** A window [pos, end) of a DER buffer that reads forward, as cryptobyte.String does. */
export class Der {
  constructor(
    readonly b: Uint8Array,
    public pos: number,
    readonly end: number,
  ) {}

  static of(b: Uint8Array): Der {
    return new Der(b, 0, b.length);
  }

  get empty(): boolean {
    return this.pos >= this.end;
  }

  get length(): number {
    return this.end - this.pos;
  }

  peek(tag: number): boolean {
    return this.pos < this.end && this.b[this.pos] === tag;
  }

  /** ReadAnyASN1Element: the next element with its header; undefined (nothing consumed) when malformed. */
  readAny(): Tlv | undefined {
    const b = this.b;
    const p = this.pos;
    const avail = this.end - p;
    if (avail < 2) return undefined;
    const tag = b[p]!;
    const lenByte = b[p + 1]!;
    if ((tag & 0x1f) === 0x1f) return undefined; // high tag numbers are not supported
    let header = 2;
    let len = lenByte;
    if (lenByte & 0x80) {
      const n = lenByte & 0x7f;
      if (n === 0 || n > 4 || avail < 2 + n) return undefined; // indefinite or too long
      len = 0;
      for (let i = 0; i < n; i++) len = len * 256 + b[p + 2 + i]!;
      if (len < 128) return undefined; // should have used the short form
      if (b[p + 2] === 0) return undefined; // leading zero length byte
      header = 2 + n;
    }
    if (header + len > avail) return undefined;
    this.pos = p + header + len;
    return { tag, start: p, body: p + header, end: p + header + len };
  }

  /** ReadASN1Element with an expected tag. */
  readElement(tag: number): Tlv | undefined {
    const save = this.pos;
    const t = this.readAny();
    if (!t || t.tag !== tag) {
      // cryptobyte consumes the element even on a tag mismatch, but every caller fails then.
      this.pos = save;
      return undefined;
    }
    return t;
  }

  /** ReadASN1: the contents of the next element, which must have `tag`. */
  read(tag: number): Der | undefined {
    const t = this.readElement(tag);
    return t && new Der(this.b, t.body, t.end);
  }

  /** ReadAnyASN1: contents and tag of the next element. */
  readAnyContents(): { tag: number; der: Der } | undefined {
    const t = this.readAny();
    return t && { tag: t.tag, der: new Der(this.b, t.body, t.end) };
  }

  /** SkipOptionalASN1. */
  skipOptional(tag: number): boolean {
    return !this.peek(tag) || this.read(tag) !== undefined;
  }

  bytes(): Uint8Array {
    return this.b.subarray(this.pos, this.end);
  }

  /** ReadASN1Boolean. */
  readBoolean(): boolean | undefined {
    const c = this.read(0x01);
    if (!c || c.length !== 1) return undefined;
    const v = c.b[c.pos];
    return v === 0xff ? true : v === 0 ? false : undefined;
  }

  /** The contents of a minimally encoded INTEGER (checkASN1Integer). */
  readIntegerBytes(tag = 0x02): Uint8Array | undefined {
    const c = this.read(tag);
    if (!c || !checkInteger(c.b, c.pos, c.end)) return undefined;
    return c.bytes();
  }

  /** An INTEGER into a big.Int: its sign (-1, 0, 1). */
  readBigIntSign(): -1 | 0 | 1 | undefined {
    const v = this.readIntegerBytes();
    if (!v) return undefined;
    if (v[0]! & 0x80) return -1;
    return v.some((x) => x !== 0) ? 1 : 0;
  }

  /** An INTEGER into an int64 (asn1Signed: at most 8 bytes). */
  readInt64(tag = 0x02): bigint | undefined {
    const v = this.readIntegerBytes(tag);
    if (!v || v.length > 8) return undefined;
    return signed(v);
  }

  /** ReadASN1ObjectIdentifier: the arcs, or undefined. */
  readOid(rules: GoRules): number[] | undefined {
    const c = this.read(0x06);
    return c && parseOidContents(c.b, c.pos, c.end, rules);
  }

  /** ReadASN1BitString: the bytes and the bit length. */
  readBitString(): { bytes: Uint8Array; bitLength: number } | undefined {
    const c = this.read(0x03);
    if (!c || c.length === 0) return undefined;
    const padding = c.b[c.pos]!;
    const bytes = c.b.subarray(c.pos + 1, c.end);
    if (padding > 7 || (bytes.length === 0 && padding !== 0)) return undefined;
    if (bytes.length > 0 && (bytes[bytes.length - 1]! & ((1 << padding) - 1)) !== 0) return undefined;
    return { bytes, bitLength: bytes.length * 8 - padding };
  }
}

function checkInteger(b: Uint8Array, start: number, end: number): boolean {
  const n = end - start;
  if (n === 0) return false;
  if (n === 1) return true;
  const a = b[start]!;
  const c = b[start + 1]!;
  return !((a === 0 && (c & 0x80) === 0) || (a === 0xff && (c & 0x80) === 0x80));
}

function signed(v: Uint8Array): bigint {
  let x = 0n;
  for (const byte of v) x = (x << 8n) | BigInt(byte);
  if (v[0]! & 0x80) x -= 1n << BigInt(v.length * 8);
  return x;
}

/** cryptobyte's readBase128Int loop over OID contents; arcs of 31 bits at most. */
export function parseOidContents(b: Uint8Array, start: number, end: number, rules: GoRules): number[] | undefined {
  if (end <= start) return undefined;
  const arcs: number[] = [];
  let p = start;
  while (p < end) {
    let ret = 0;
    let done = false;
    for (let i = 0; p < end; i++) {
      if (i === 5 || ret >= 1 << 24) return undefined;
      const byte = b[p++]!;
      if (rules.go124 && i === 0 && byte === 0x80) return undefined;
      ret = ret * 128 + (byte & 0x7f);
      if ((byte & 0x80) === 0) {
        done = true;
        break;
      }
    }
    if (!done) return undefined; // truncated
    if (arcs.length === 0) {
      if (ret < 80) arcs.push(Math.floor(ret / 40), ret % 40);
      else arcs.push(2, ret - 80);
    } else arcs.push(ret);
  }
  return arcs;
}

/** asn1.BitString.RightAlign: the bits shifted so that the padding is at the front. */
export function rightAlign(bytes: Uint8Array, bitLength: number): Uint8Array {
  const shift = 8 - (bitLength % 8);
  if (shift === 8 || bytes.length === 0) return bytes;
  const a = new Uint8Array(bytes.length);
  a[0] = bytes[0]! >> shift;
  for (let i = 1; i < bytes.length; i++) a[i] = ((bytes[i - 1]! << (8 - shift)) | (bytes[i]! >> shift)) & 0xff;
  return a;
}
