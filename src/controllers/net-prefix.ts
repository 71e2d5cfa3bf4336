// The little of net/netip the ServiceCIDR controller needs, for the canonical addresses and
// prefixes the API has already validated: parse, overlap, containment, and kube's
// PrefixContainsIP (the network address, and an IPv4 prefix's broadcast address, are not
// allocatable, so not contained).

export interface Addr {
  family: 4 | 6;
  /** The address as a number (32 or 128 bits). */
  value: bigint;
}

export interface Prefix {
  family: 4 | 6;
  /** The network address (host bits zero). */
  value: bigint;
  bits: number;
}

const width = (family: 4 | 6): number => (family === 4 ? 32 : 128);

/** An IPv4 dotted quad or an IPv6 address (`::`, an IPv4 tail) as a number; undefined when it is neither. */
export function parseAddr(text: string): Addr | undefined {
  if (!text.includes(':')) {
    const parts = text.split('.');
    if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return undefined;
    return { family: 4, value: parts.reduce((v, p) => (v << 8n) | BigInt(p), 0n) };
  }
  let hex = text;
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    // An IPv4 tail stands for the last two groups.
    const v4 = parseAddr(tail);
    if (!v4 || v4.family !== 4) return undefined;
    hex = `${text.slice(0, lastColon + 1)}${(v4.value >> 16n).toString(16)}:${(v4.value & 0xffffn).toString(16)}`;
  }
  const halves = hex.split('::');
  if (halves.length > 2) return undefined;
  const parse = (s: string): number[] => (s === '' ? [] : s.split(':').map((g) => (/^[0-9a-fA-F]{1,4}$/.test(g) ? parseInt(g, 16) : Number.NaN)));
  const left = parse(halves[0]!);
  const right = halves.length === 2 ? parse(halves[1]!) : [];
  if ([...left, ...right].some(Number.isNaN)) return undefined;
  const missing = 8 - left.length - right.length;
  if (halves.length === 2 && missing < 1) return undefined;
  const groups = halves.length === 2 ? [...left, ...new Array<number>(missing).fill(0), ...right] : left;
  if (groups.length !== 8) return undefined;
  const value = groups.reduce((v, g) => (v << 16n) | BigInt(g), 0n);
  return { family: 6, value };
}

/** `address/bits`, masked; undefined when it is not a prefix. */
export function parsePrefix(text: string): Prefix | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const addr = parseAddr(text.slice(0, slash));
  const bitsText = text.slice(slash + 1);
  if (!addr || !/^\d{1,3}$/.test(bitsText)) return undefined;
  const bits = Number(bitsText);
  if (bits > width(addr.family)) return undefined;
  return { family: addr.family, value: addr.value & mask(addr.family, bits), bits };
}

const masks = new Map<4 | 6, bigint[]>(
  ([4, 6] as const).map((family) => {
    const w = BigInt(width(family));
    return [family, Array.from({ length: width(family) + 1 }, (_, bits) => ((1n << w) - 1n) ^ ((1n << (w - BigInt(bits))) - 1n))];
  }),
);

/** The network mask of a prefix length (precomputed: the CIDR index asks for one per look-up). */
export const mask = (family: 4 | 6, bits: number): bigint => masks.get(family)![bits]!;

/** netip.Prefix.Overlaps: same family, and one contains the other's network. */
export function overlaps(a: Prefix, b: Prefix): boolean {
  if (a.family !== b.family) return false;
  const bits = Math.min(a.bits, b.bits);
  const m = mask(a.family, bits);
  return (a.value & m) === (b.value & m);
}

/** kube's ContainsPrefix test for one CIDR: `p` overlaps `of` and is at least as large. */
export const containsPrefix = (p: Prefix, of: Prefix): boolean => overlaps(p, of) && p.bits <= of.bits;

/** kube's PrefixContainsIP: inside the prefix, and neither its network address nor (IPv4) its broadcast address. */
export function prefixContainsIP(p: Prefix, ip: Addr): boolean {
  if (p.family !== ip.family) return false;
  if (ip.value === p.value) return false;
  const m = mask(p.family, p.bits);
  if (p.family === 4 && ip.value === (p.value | (~m & 0xffffffffn))) return false;
  return (ip.value & m) === p.value;
}
