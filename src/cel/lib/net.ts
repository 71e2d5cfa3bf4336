// Kubernetes' ip and cidr libraries: net.IP and net.CIDR values parsed as Go's netip parses them
// (zones and IPv4-mapped IPv6 refused), their accessors, containment, and Kubernetes' messages.

import { fn, method, type Overload } from '../functions.js';
import { T } from '../types.js';
import { CelError, Opaque, type CelResult } from '../values.js';
import { STRING_TRAVERSAL_FACTOR, traversal } from './cost.js';
import * as netip from './netip.js';

export const IP_TYPE = 'net.IP';
export const CIDR_TYPE = 'net.CIDR';

export class IPValue extends Opaque {
  readonly typeName = IP_TYPE;
  constructor(readonly addr: netip.Addr) {
    super();
  }
  equals(other: Opaque): boolean {
    return other instanceof IPValue && netip.sameAddr(this.addr, other.addr);
  }
  override size(): number {
    return this.addr.bytes.length;
  }
}

export class CIDRValue extends Opaque {
  readonly typeName = CIDR_TYPE;
  constructor(readonly prefix: netip.Prefix) {
    super();
  }
  equals(other: Opaque): boolean {
    return other instanceof CIDRValue && netip.sameAddr(this.prefix.addr, other.prefix.addr) && this.prefix.bits === other.prefix.bits;
  }
  override size(): number {
    return Math.ceil(this.prefix.bits / 8);
  }
}

function parseIP(raw: string): netip.Addr | CelError {
  let addr: netip.Addr;
  try {
    addr = netip.parseAddr(raw);
  } catch (err) {
    return new CelError(`IP Address ${JSON.stringify(raw)} parse error during conversion from string: ${(err as Error).message}`);
  }
  if (addr.zone) return new CelError(`IP address ${JSON.stringify(raw)} with zone value is not allowed`);
  if (netip.is4In6(addr)) return new CelError(`IPv4-mapped IPv6 address ${JSON.stringify(raw)} is not allowed`);
  return addr;
}

function parseCIDR(raw: string): netip.Prefix | CelError {
  let p: netip.Prefix;
  try {
    p = netip.parsePrefix(raw);
  } catch (err) {
    return new CelError(`network address parse error during conversion from string: ${(err as Error).message}`);
  }
  if (netip.is4In6(p.addr)) return new CelError(`IPv4-mapped IPv6 address ${JSON.stringify(raw)} is not allowed`);
  return p;
}

const toIP = (s: string): CelResult => {
  const a = parseIP(s);
  return a instanceof CelError ? a : new IPValue(a);
};

/** cidr(s): Kubernetes wraps the parse error once more, so the prefix appears twice. */
const toCIDR = (s: string): CelResult => {
  const p = parseCIDR(s);
  return p instanceof CelError ? new CelError(`network address parse error during conversion from string: ${p.message}`) : new CIDRValue(p);
};

function containsCIDR(c: CIDRValue, other: CelResult): CelResult {
  if (other instanceof CelError) return other;
  const o = (other as CIDRValue).prefix;
  const p = c.prefix;
  if (o.addr.bytes.length !== p.addr.bytes.length) return false;
  const sameNetwork = netip.sameAddr(netip.masked(p).addr, netip.masked({ addr: o.addr, bits: p.bits }).addr);
  return sameNetwork && p.bits <= o.bits;
}

const byteCompare = (c: CIDRValue): number => Math.ceil((c.size() + c.size()) * STRING_TRAVERSAL_FACTOR);

export const netOverloads: Overload[] = [
  fn('string_to_ip', 'ip', [T.string], T.opaque(IP_TYPE), toIP, (args) => traversal(args[0]!)),
  fn('is_ip', 'isIP', [T.string], T.bool, (s: string) => !(parseIP(s) instanceof CelError), (args) => traversal(args[0]!)),
  fn('ip_is_canonical', 'ip.isCanonical', [T.string], T.bool, (s: string) => {
    const a = parseIP(s);
    return a instanceof CelError ? a : netip.formatAddr(a) === s;
  }, (args) => Math.ceil((args[0] as string).length * 2 * STRING_TRAVERSAL_FACTOR)),
  method('ip_family', 'family', [T.opaque(IP_TYPE)], T.int, (ip: IPValue) => (netip.is4(ip.addr) ? 4n : 6n)),
  method('ip_is_unspecified', 'isUnspecified', [T.opaque(IP_TYPE)], T.bool, (ip: IPValue) => netip.isUnspecified(ip.addr)),
  method('ip_is_loopback', 'isLoopback', [T.opaque(IP_TYPE)], T.bool, (ip: IPValue) => netip.isLoopback(ip.addr)),
  method('ip_is_link_local_multicast', 'isLinkLocalMulticast', [T.opaque(IP_TYPE)], T.bool, (ip: IPValue) => netip.isLinkLocalMulticast(ip.addr)),
  method('ip_is_link_local_unicast', 'isLinkLocalUnicast', [T.opaque(IP_TYPE)], T.bool, (ip: IPValue) => netip.isLinkLocalUnicast(ip.addr)),
  method('ip_is_global_unicast', 'isGlobalUnicast', [T.opaque(IP_TYPE)], T.bool, (ip: IPValue) => netip.isGlobalUnicast(ip.addr)),
  fn('ip_to_string', 'string', [T.opaque(IP_TYPE)], T.string, (ip: IPValue) => netip.formatAddr(ip.addr)),
  fn('string_to_cidr', 'cidr', [T.string], T.opaque(CIDR_TYPE), toCIDR, (args) => traversal(args[0]!)),
  fn('is_cidr', 'isCIDR', [T.string], T.bool, (s: string) => !(parseCIDR(s) instanceof CelError), (args) => traversal(args[0]!)),
  method('cidr_contains_ip_string', 'containsIP', [T.opaque(CIDR_TYPE), T.string], T.bool, (c: CIDRValue, s: string) => {
    const ip = toIP(s);
    return ip instanceof CelError ? ip : netip.prefixContains(c.prefix, (ip as IPValue).addr);
  }, (args) => byteCompare(args[0] as CIDRValue) + traversal(args[1]!)),
  method('cidr_contains_ip_ip', 'containsIP', [T.opaque(CIDR_TYPE), T.opaque(IP_TYPE)], T.bool, (c: CIDRValue, ip: IPValue) => netip.prefixContains(c.prefix, ip.addr), (args) => byteCompare(args[0] as CIDRValue)),
  method('cidr_contains_cidr_string', 'containsCIDR', [T.opaque(CIDR_TYPE), T.string], T.bool, (c: CIDRValue, s: string) => containsCIDR(c, toCIDR(s)), (args) => byteCompare(args[0] as CIDRValue) + traversal(args[0]!) + 1 + traversal(args[1]!)),
  method('cidr_contains_cidr', 'containsCIDR', [T.opaque(CIDR_TYPE), T.opaque(CIDR_TYPE)], T.bool, containsCIDR, (args) => byteCompare(args[0] as CIDRValue) + traversal(args[0]!) + 1),
  method('cidr_ip', 'ip', [T.opaque(CIDR_TYPE)], T.opaque(IP_TYPE), (c: CIDRValue) => new IPValue(c.prefix.addr)),
  method('cidr_prefix_length', 'prefixLength', [T.opaque(CIDR_TYPE)], T.int, (c: CIDRValue) => BigInt(c.prefix.bits)),
  method('cidr_masked', 'masked', [T.opaque(CIDR_TYPE)], T.opaque(CIDR_TYPE), (c: CIDRValue) => new CIDRValue(netip.masked(c.prefix))),
  fn('cidr_to_string', 'string', [T.opaque(CIDR_TYPE)], T.string, (c: CIDRValue) => netip.formatPrefix(c.prefix)),
];
