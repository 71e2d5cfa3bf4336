// Go's net/netip parsing and printing of addresses and prefixes, with its error texts, as the
// Kubernetes ip and cidr CEL libraries use them (`ParseAddr("1.2.3"): IPv4 address too short`).

export interface Addr {
  /** 4 bytes for IPv4, 16 for IPv6 (an IPv4-mapped IPv6 address stays 16). */
  readonly bytes: Uint8Array;
  readonly zone: string;
}

export interface Prefix {
  readonly addr: Addr;
  readonly bits: number;
}

/** Go's strconv.Quote for the ASCII text these messages quote. */
const q = (s: string): string => JSON.stringify(s);

class AddrError extends Error {
  constructor(input: string, msg: string, at = '') {
    super(`ParseAddr(${q(input)}): ${msg}${at ? ` (at ${q(at)})` : ''}`);
  }
}

function parseIPv4Fields(input: string, s: string, out: Uint8Array, at: number): void {
  let val = 0;
  let pos = 0;
  let digits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c >= '0' && c <= '9') {
      if (digits === 1 && val === 0) throw new AddrError(input, 'IPv4 field has octet with leading zero');
      val = val * 10 + (c.charCodeAt(0) - 48);
      digits++;
      if (val > 255) throw new AddrError(input, 'IPv4 field has value >255');
    } else if (c === '.') {
      if (i === 0 || i === s.length - 1 || s[i - 1] === '.') throw new AddrError(input, 'IPv4 field must have at least one digit', s.slice(i));
      if (pos === 3) throw new AddrError(input, 'IPv4 address too long');
      out[at + pos++] = val;
      val = 0;
      digits = 0;
    } else {
      throw new AddrError(input, 'unexpected character', s.slice(i));
    }
  }
  if (pos < 3) throw new AddrError(input, 'IPv4 address too short');
  out[at + 3] = val;
}

function parseIPv6(input: string): Addr {
  let s = input;
  let zone = '';
  const pct = s.indexOf('%');
  if (pct >= 0) {
    zone = s.slice(pct + 1);
    s = s.slice(0, pct);
    if (zone === '') throw new AddrError(input, 'zone must be a non-empty string');
  }
  const ip = new Uint8Array(16);
  let ellipsis = -1;
  if (s.startsWith('::')) {
    ellipsis = 0;
    s = s.slice(2);
    if (s === '') return { bytes: ip, zone };
  }
  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    for (; off < s.length; off++) {
      const d = parseInt(s[off]!, 16);
      if (Number.isNaN(d) || !/[0-9a-fA-F]/.test(s[off]!)) break;
      if (off > 3) throw new AddrError(input, 'each group must have 4 or less digits', s);
      acc = acc * 16 + d;
      if (acc > 0xffff) throw new AddrError(input, 'IPv6 field has value >=2^16', s);
    }
    if (off === 0) throw new AddrError(input, 'each colon-separated field must have at least one digit', s);
    if (off < s.length && s[off] === '.') {
      if (ellipsis < 0 && i !== 12) throw new AddrError(input, 'embedded IPv4 address must replace the final 2 fields of the address', s);
      if (i + 4 > 16) throw new AddrError(input, 'too many hex fields to fit an embedded IPv4 at the end of the address', s);
      parseIPv4Fields(input, s, ip, i);
      s = '';
      i += 4;
      break;
    }
    ip[i] = acc >> 8;
    ip[i + 1] = acc & 0xff;
    i += 2;
    s = s.slice(off);
    if (s === '') break;
    if (s[0] !== ':') throw new AddrError(input, 'unexpected character, want colon', s);
    if (s.length === 1) throw new AddrError(input, 'colon must be followed by more characters', s);
    s = s.slice(1);
    if (s[0] === ':') {
      if (ellipsis >= 0) throw new AddrError(input, 'multiple :: in address', s);
      ellipsis = i;
      s = s.slice(1);
      if (s === '') break;
    }
  }
  if (s !== '') throw new AddrError(input, 'trailing garbage after address', s);
  if (i < 16) {
    if (ellipsis < 0) throw new AddrError(input, 'address string too short');
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) ip[j + n] = ip[j]!;
    ip.fill(0, ellipsis, ellipsis + n);
  } else if (ellipsis >= 0) {
    throw new AddrError(input, 'the :: must expand to at least one field of zeros', s);
  }
  return { bytes: ip, zone };
}

/** netip.ParseAddr; throws an Error carrying Go's message. */
export function parseAddr(s: string): Addr {
  for (const c of s) {
    if (c === '.') {
      const b = new Uint8Array(4);
      parseIPv4Fields(s, s, b, 0);
      return { bytes: b, zone: '' };
    }
    if (c === ':') return parseIPv6(s);
    if (c === '%') throw new AddrError(s, 'missing IPv6 address');
  }
  throw new AddrError(s, 'unable to parse IP');
}

/** netip.ParsePrefix; throws an Error carrying Go's message. */
export function parsePrefix(s: string): Prefix {
  const fail = (msg: string): Error => new Error(`netip.ParsePrefix(${q(s)}): ${msg}`);
  const slash = s.lastIndexOf('/');
  if (slash < 0) throw fail("no '/'");
  let addr: Addr;
  try {
    addr = parseAddr(s.slice(0, slash));
  } catch (err) {
    throw fail((err as Error).message);
  }
  if (addr.bytes.length === 16 && addr.zone) throw fail('IPv6 zones cannot be present in a prefix');
  const bitsText = s.slice(slash + 1);
  if ((bitsText.length > 1 && (bitsText[0]! < '1' || bitsText[0]! > '9')) || !/^\d+$/.test(bitsText)) throw fail(`bad bits after slash: ${q(bitsText)}`);
  const bits = Number(bitsText);
  if (bits > addr.bytes.length * 8) throw fail('prefix length out of range');
  return { addr, bits };
}

export const is4 = (a: Addr): boolean => a.bytes.length === 4;

export const is4In6 = (a: Addr): boolean => a.bytes.length === 16 && a.bytes.subarray(0, 10).every((x) => x === 0) && a.bytes[10] === 0xff && a.bytes[11] === 0xff;

const unmap = (a: Addr): Addr => (is4In6(a) ? { bytes: a.bytes.slice(12), zone: '' } : a);

/** Addr.String(): dotted IPv4, RFC 5952 IPv6 (mapped IPv4 as ::ffff:a.b.c.d), zone after %. */
export function formatAddr(a: Addr): string {
  if (is4(a)) return Array.from(a.bytes).join('.');
  const zone = a.zone ? `%${a.zone}` : '';
  if (is4In6(a)) return `::ffff:${Array.from(a.bytes.slice(12)).join('.')}${zone}`;
  const groups = Array.from({ length: 8 }, (_, i) => (a.bytes[2 * i]! << 8) | a.bytes[2 * i + 1]!);
  let best = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) [best, bestLen] = [i, j - i];
    i = j;
  }
  const hex = (g: number): string => g.toString(16);
  if (best < 0) return groups.map(hex).join(':') + zone;
  return `${groups.slice(0, best).map(hex).join(':')}::${groups.slice(best + bestLen).map(hex).join(':')}${zone}`;
}

export const formatPrefix = (p: Prefix): string => `${formatAddr(p.addr)}/${p.bits}`;

export function masked(p: Prefix): Prefix {
  const b = Uint8Array.from(p.addr.bytes);
  for (let bit = p.bits; bit < b.length * 8; bit++) b[bit >> 3]! &= ~(0x80 >> (bit & 7));
  return { addr: { bytes: b, zone: '' }, bits: p.bits };
}

export const sameAddr = (a: Addr, b: Addr): boolean => a.bytes.length === b.bytes.length && a.zone === b.zone && a.bytes.every((x, i) => x === b.bytes[i]);

/** Prefix.Contains: same family (and zone), equal in the first `bits` bits. */
export function prefixContains(p: Prefix, a: Addr): boolean {
  if (a.bytes.length !== p.addr.bytes.length || a.zone) return false;
  return sameAddr(masked(p).addr, masked({ addr: a, bits: p.bits }).addr);
}

export const isUnspecified = (a: Addr): boolean => a.bytes.every((x) => x === 0);

export function isLoopback(a: Addr): boolean {
  const u = unmap(a);
  if (is4(u)) return u.bytes[0] === 127;
  return u.bytes.subarray(0, 15).every((x) => x === 0) && u.bytes[15] === 1;
}

export function isMulticast(a: Addr): boolean {
  const u = unmap(a);
  return is4(u) ? (u.bytes[0]! & 0xf0) === 0xe0 : u.bytes[0] === 0xff;
}

export function isLinkLocalUnicast(a: Addr): boolean {
  const u = unmap(a);
  return is4(u) ? u.bytes[0] === 169 && u.bytes[1] === 254 : u.bytes[0] === 0xfe && (u.bytes[1]! & 0xc0) === 0x80;
}

export function isLinkLocalMulticast(a: Addr): boolean {
  const u = unmap(a);
  return is4(u) ? u.bytes[0] === 224 && u.bytes[1] === 0 && u.bytes[2] === 0 : u.bytes[0] === 0xff && (u.bytes[1]! & 0x0f) === 0x02;
}

export function isGlobalUnicast(a: Addr): boolean {
  const u = unmap(a);
  if (is4(u) && (isUnspecified(u) || u.bytes.every((x) => x === 255))) return false;
  return !isUnspecified(u) && !isLoopback(u) && !isMulticast(u) && !isLinkLocalUnicast(u);
}
