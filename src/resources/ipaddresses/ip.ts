// IP address text as apimachinery's IsValidIP judges it (1.33): parsed sloppily first, as
// k8s.io/utils/net ParseIPSloppy does (Go 1.16's net.ParseIP: decimal fields of any length, hex
// groups of any length, no zones), then strictly, as net/netip does (no leading zeros, groups of
// at most four digits, no IPv4-mapped IPv6), then the text must be the address's canonical form.

import { formatIP } from '../servicecidrs/cidr.js';

/** A field of decimal digits (any number of them, as Go's dtoi), or undefined. */
function decimal(text: string): number | undefined {
  if (!/^\d+$/.test(text)) return undefined;
  const n = Number(text.replace(/^0+(?=\d)/, '').slice(0, 9));
  return text.replace(/^0+/, '').length > 3 ? undefined : n;
}

interface Parsed {
  bytes: Uint8Array;
  /** A field or group only netip refuses: a decimal field with leading zeros, a group of more than four digits. */
  sloppyOnly: boolean;
}

function parseIPv4(text: string): Parsed | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const bytes = new Uint8Array(4);
  let sloppyOnly = false;
  for (let i = 0; i < 4; i++) {
    const n = decimal(parts[i]!);
    if (n === undefined || n > 255) return undefined;
    if (parts[i]!.length > 1 && parts[i]![0] === '0') sloppyOnly = true;
    bytes[i] = n;
  }
  return { bytes, sloppyOnly };
}

function parseIPv6(text: string): Parsed | undefined {
  let sloppyOnly = false;
  let hex = text;
  const groupsFromV4: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    // An IPv4 tail stands for the last two groups.
    const v4 = parseIPv4(text.slice(lastColon + 1));
    if (!v4) return undefined;
    sloppyOnly ||= v4.sloppyOnly;
    const b = v4.bytes;
    groupsFromV4.push((b[0]! << 8) | b[1]!, (b[2]! << 8) | b[3]!);
    hex = text.slice(0, lastColon + 1);
    // `::1.2.3.4` leaves `::`, `a::1.2.3.4` leaves `a::`, `a:b:c:d:e:f:1.2.3.4` leaves `a:…:f:`.
    if (hex.endsWith(':') && !hex.endsWith('::')) hex = hex.slice(0, -1);
  }
  const halves = hex.split('::');
  if (halves.length > 2) return undefined;
  const groupsOf = (s: string): number[] | undefined => {
    if (s === '') return [];
    const out: number[] = [];
    for (const g of s.split(':')) {
      if (!/^[0-9a-fA-F]+$/.test(g)) return undefined;
      const significant = g.replace(/^0+(?=[0-9a-fA-F])/, '');
      if (significant.length > 4) return undefined;
      if (g.length > 4) sloppyOnly = true;
      out.push(parseInt(significant, 16));
    }
    return out;
  };
  const left = groupsOf(halves[0]!);
  const right = halves.length === 2 ? groupsOf(halves[1]!) : [];
  if (!left || !right) return undefined;
  right.push(...groupsFromV4);
  let groups: number[];
  if (halves.length === 2) {
    const missing = 8 - left.length - right.length;
    if (missing < 1) return undefined;
    groups = [...left, ...new Array<number>(missing).fill(0), ...right];
  } else {
    groups = [...left, ...right];
  }
  if (groups.length !== 8) return undefined;
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    bytes[2 * i] = g >> 8;
    bytes[2 * i + 1] = g & 0xff;
  });
  return { bytes, sloppyOnly };
}

/** The address (4 or 16 bytes) of a text ParseIPSloppy accepts, with whether netip would refuse it. */
export function parseIPSloppy(text: string): Parsed | undefined {
  if (text.includes('%')) return undefined;
  return text.includes(':') ? parseIPv6(text) : parseIPv4(text);
}

const isV4Mapped = (b: Uint8Array): boolean => b.length === 16 && b.subarray(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;

/** apimachinery's IsValidIP: the messages for a text that is not an IP address in canonical form. */
export function ipProblems(text: string): string[] {
  const ip = parseIPSloppy(text);
  if (!ip) return ['must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'];
  if (ip.sloppyOnly) return ['must not have leading 0s'];
  if (isV4Mapped(ip.bytes)) return ['must not be an IPv4-mapped IPv6 address'];
  const canonical = formatIP(ip.bytes);
  if (canonical !== text) return [`must be in canonical form (${JSON.stringify(canonical)})`];
  return [];
}
