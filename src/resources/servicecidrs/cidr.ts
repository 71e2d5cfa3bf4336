// CIDR parsing for ServiceCIDR, reproducing apimachinery's IsValidCIDR (newest, always strict):
// sloppy parsing (as Go's ParseCIDRSloppy) decides whether the text is a CIDR at all, then
// the strict rules decide which message applies.

export interface ParsedCIDR {
  family: 4 | 6;
  /** 4 or 16 bytes. */
  ip: Uint8Array;
  prefix: number;
  /** Leading zeros in an IPv4 octet or in the prefix length. */
  leadingZeros: boolean;
  /** An IPv6 text form of an IPv4 address (::ffff:a.b.c.d). */
  ipv4Mapped: boolean;
}

function parseIPv4(text: string): { bytes: Uint8Array; leadingZeros: boolean } | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const bytes = new Uint8Array(4);
  let leadingZeros = false;
  for (let i = 0; i < 4; i++) {
    const p = parts[i]!;
    if (!/^\d{1,3}$/.test(p)) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    if (p.length > 1 && p[0] === '0') leadingZeros = true;
    bytes[i] = n;
  }
  return { bytes, leadingZeros };
}

function parseIPv6(text: string): Uint8Array | undefined {
  // Stryker disable next-line ConditionalExpression: equivalent, a zone's "%" fails the group and IPv4 checks below anyway; this says why early
  if (text.includes('%')) return undefined; // zones are never valid here
  let hexText = text;
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    // An embedded IPv4 tail (::ffff:1.2.3.4) stands for the last two groups.
    const v4 = parseIPv4(tail);
    if (!v4 || v4.leadingZeros) return undefined;
    const [a, b, c, d] = v4.bytes as unknown as [number, number, number, number];
    hexText = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = hexText.split('::');
  if (halves.length > 2) return undefined;
  const parseGroups = (s: string): number[] | undefined => {
    if (s === '') return [];
    const out: number[] = [];
    for (const g of s.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const left = parseGroups(halves[0]!);
  const right = halves.length === 2 ? parseGroups(halves[1]!) : [];
  if (!left || !right) return undefined;
  let groups = left;
  if (halves.length === 2) {
    const missing = 8 - left.length - right.length;
    if (missing < 1) return undefined;
    groups = [...left, ...new Array<number>(missing).fill(0), ...right];
  }
  if (groups.length !== 8) return undefined;
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    bytes[2 * i] = g >> 8;
    bytes[2 * i + 1] = g & 0xff;
  });
  return bytes;
}

const isV4Mapped = (b: Uint8Array): boolean => b.length === 16 && b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;

/** Parses `ip/prefix` leniently; undefined when it is not a CIDR even sloppily. */
export function parseCIDRSloppy(text: string): ParsedCIDR | undefined {
  const slash = text.indexOf('/');
  // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator: equivalent, a text without exactly one slash fails the prefix's digits check below anyway
  if (slash < 0 || text.indexOf('/', slash + 1) >= 0) return undefined;
  const ipText = text.slice(0, slash);
  const prefixText = text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  const prefixLeadingZero = prefixText.length > 1 && prefixText[0] === '0';
  if (ipText.includes(':')) {
    const ip = parseIPv6(ipText);
    if (!ip || prefix > 128) return undefined;
    if (isV4Mapped(ip)) {
      // Go treats a mapped address as IPv4 with the prefix shifted by 96; below /96 the mask
      // reaches into the ::ffff, so it stays a 16-byte network (Go: ::ffff:0.0.0.0/95 is ::fffe:0:0/95).
      if (prefix < 96) return { family: 6, ip, prefix, leadingZeros: prefixLeadingZero, ipv4Mapped: true };
      return { family: 4, ip: ip.slice(12), prefix: prefix - 96, leadingZeros: prefixLeadingZero, ipv4Mapped: true };
    }
    return { family: 6, ip, prefix, leadingZeros: prefixLeadingZero, ipv4Mapped: false };
  }
  const v4 = parseIPv4(ipText);
  if (!v4 || prefix > 32) return undefined;
  return { family: 4, ip: v4.bytes, prefix, leadingZeros: v4.leadingZeros || prefixLeadingZero, ipv4Mapped: false };
}

export function maskedNetwork(c: ParsedCIDR): Uint8Array {
  const out = Uint8Array.from(c.ip);
  // Stryker disable next-line EqualityOperator: equivalent, one bit past the end writes outside the typed array, which ignores it
  for (let bit = c.prefix; bit < out.length * 8; bit++) out[bit >> 3]! &= ~(0x80 >> (bit & 7));
  return out;
}

/** RFC 5952 text: lower case, no leading zeros, the longest run (≥ 2) of zero groups as `::`. */
export function formatIP(bytes: Uint8Array): string {
  if (bytes.length === 4) return Array.from(bytes).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => (bytes[2 * i]! << 8) | bytes[2 * i + 1]!);
  // Stryker disable next-line UnaryOperator: equivalent, bestStart is read only once a run of two has set it
  let bestStart = -1;
  let bestLen = 0;
  // Stryker disable next-line EqualityOperator: equivalent, groups[8] is undefined, not a zero group, and only moves i past the end
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, groups[8] is undefined, which ends the run as the bound does
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) [bestStart, bestLen] = [i, j - i];
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestLen < 2) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

// Stryker disable next-line ConditionalExpression: equivalent, a network and its address always have the same length here
const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/** apimachinery IsValidCIDR (strict): at most one message. */
export function cidrProblem(text: string): string | undefined {
  const c = parseCIDRSloppy(text);
  if (!c) return 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)';
  if (c.leadingZeros) return 'must not have leading 0s in IP or prefix length';
  if (c.ipv4Mapped) return 'must not have an IPv4-mapped IPv6 address';
  const network = maskedNetwork(c);
  if (!sameBytes(network, c.ip)) return 'must not have bits set beyond the prefix length';
  const canonical = `${formatIP(network)}/${c.prefix}`;
  if (canonical !== text) return `must be in canonical form (${JSON.stringify(canonical)})`;
  return undefined;
}
