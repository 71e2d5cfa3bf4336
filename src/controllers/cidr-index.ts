// The ServiceCIDRs by their ranges, as kube's controller keeps them in a prefix tree: which ranges
// contain an address, contain a range, or overlap one. Every question the status controller asks
// per event or per sync is answered from here by a look-up per prefix length (at most 33 or 129),
// not by a scan of every ServiceCIDR: at 100,000 objects a scan per added object was
// O(objects²), minutes of CPU before the first sync.

import { mask, parsePrefix, prefixContainsIP, type Addr, type Prefix } from './net-prefix.js';

type Family = 4 | 6;

/**
 * One family's prefixes: by length, then by network address, the name holding that range (a set
 * only when several do: 100,000 objects are 100,000 entries, not 100,000 sets).
 */
type Holders = string | Set<string>;
type ByLength = Map<number, Map<bigint, Holders>>;

function* each(holders: Holders | undefined): Iterable<string> {
  if (holders === undefined) return;
  if (typeof holders === 'string') yield holders;
  else yield* holders;
}

export class CidrIndex {
  private readonly families = new Map<Family, ByLength>([
    [4, new Map()],
    [6, new Map()],
  ]);
  /** Each name's CIDRs as given (the caller's array, kept as is: parsed again only to remove them). */
  private readonly cidrsOf = new Map<string, readonly string[]>();

  /** Records `name`'s ranges (replacing what it held before); unparsable CIDRs are left out. */
  set(name: string, cidrs: readonly string[] | undefined): void {
    const old = this.cidrsOf.get(name);
    if (old && cidrs && (old === cidrs || (old.length === cidrs.length && old.every((c, i) => c === cidrs[i])))) return;
    this.delete(name);
    const prefixes = parseAll(cidrs);
    if (!prefixes.length) return;
    this.cidrsOf.set(name, cidrs!);
    for (const p of prefixes) {
      const byLength = this.families.get(p.family)!;
      let byValue = byLength.get(p.bits);
      if (!byValue) byLength.set(p.bits, (byValue = new Map()));
      const holders = byValue.get(p.value);
      if (holders === undefined) byValue.set(p.value, name);
      else if (typeof holders === 'string') {
        if (holders !== name) byValue.set(p.value, new Set([holders, name]));
      } else holders.add(name);
    }
  }

  delete(name: string): void {
    const old = this.cidrsOf.get(name);
    if (!old) return;
    this.cidrsOf.delete(name);
    for (const p of parseAll(old)) {
      const byLength = this.families.get(p.family)!;
      const byValue = byLength.get(p.bits);
      const holders = byValue?.get(p.value);
      if (holders === undefined) continue;
      if (typeof holders === 'string') {
        if (holders === name) byValue!.delete(p.value);
      } else {
        holders.delete(name);
        if (holders.size === 1) byValue!.set(p.value, holders.values().next().value!);
      }
      if (!byValue!.size) byLength.delete(p.bits);
    }
  }

  /** The ranges `name` was recorded with. */
  rangesOf(name: string): readonly Prefix[] {
    return parseAll(this.cidrsOf.get(name));
  }

  get size(): number {
    return this.cidrsOf.size;
  }

  /** Names holding a range that contains `p` (the same range or a larger one). */
  containing(p: Prefix): Set<string> {
    const out = new Set<string>();
    for (const [bits, byValue] of this.families.get(p.family)!) {
      if (bits > p.bits) continue;
      for (const name of each(byValue.get(p.value & mask(p.family, bits)))) out.add(name);
    }
    return out;
  }

  /** kube's overlappingServiceCIDRs: names holding a range that contains `p` or lies inside it. */
  overlapping(p: Prefix): Set<string> {
    const out = this.containing(p);
    for (const [bits, byValue] of this.families.get(p.family)!) {
      if (bits <= p.bits) continue;
      // Longer ranges inside p: scanned only at the lengths that exist (a large range added
      // beside many small ones walks its descendants, as a tree walk would).
      const m = mask(p.family, p.bits);
      for (const [value, holders] of byValue) if ((value & m) === p.value) for (const name of each(holders)) out.add(name);
    }
    return out;
  }

  /** kube's ContainsAddress with PrefixContainsIP: names with a range holding `ip` as an allocatable address. */
  containingAddress(ip: Addr): Set<string> {
    const out = new Set<string>();
    for (const [bits, byValue] of this.families.get(ip.family)!) {
      const value = ip.value & mask(ip.family, bits);
      const holders = byValue.get(value);
      if (holders !== undefined && prefixContainsIP({ family: ip.family, value, bits }, ip)) for (const name of each(holders)) out.add(name);
    }
    return out;
  }
}

const parseAll = (cidrs: readonly string[] | undefined): Prefix[] => (cidrs ?? []).map(parsePrefix).filter((p): p is Prefix => p !== undefined);
