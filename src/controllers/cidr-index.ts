// The ServiceCIDRs by their ranges, as kube's controller keeps them in a prefix tree: which ranges
// contain an address, contain a range, or overlap one. Every question the status controller asks
// per event or per sync is answered from here by a look-up per prefix length (at most 33 or 129),
// not by a scan of every ServiceCIDR: at 100,000 objects a scan per added object was
// O(objects²), minutes of CPU before the first sync.

import { mask, parsePrefix, prefixContainsIP, type Addr, type Prefix } from './net-prefix.js';

type Family = 4 | 6;

/** One family's prefixes: by length, then by network address, the names holding that range. */
type ByLength = Map<number, Map<bigint, Set<string>>>;

export class CidrIndex {
  private readonly families = new Map<Family, ByLength>([
    [4, new Map()],
    [6, new Map()],
  ]);
  private readonly prefixesOf = new Map<string, Prefix[]>();

  /** Records `name`'s ranges (replacing what it held before); unparsable CIDRs are left out. */
  set(name: string, cidrs: readonly string[] | undefined): void {
    const prefixes = (cidrs ?? []).map(parsePrefix).filter((p): p is Prefix => p !== undefined);
    const old = this.prefixesOf.get(name);
    if (old && sameRanges(old, prefixes)) return;
    this.delete(name);
    if (!prefixes.length) return;
    this.prefixesOf.set(name, prefixes);
    for (const p of prefixes) {
      const byLength = this.families.get(p.family)!;
      let byValue = byLength.get(p.bits);
      if (!byValue) byLength.set(p.bits, (byValue = new Map()));
      let names = byValue.get(p.value);
      if (!names) byValue.set(p.value, (names = new Set()));
      names.add(name);
    }
  }

  delete(name: string): void {
    const old = this.prefixesOf.get(name);
    if (!old) return;
    this.prefixesOf.delete(name);
    for (const p of old) {
      const byLength = this.families.get(p.family)!;
      const byValue = byLength.get(p.bits);
      const names = byValue?.get(p.value);
      if (!names) continue;
      names.delete(name);
      if (names.size) continue;
      byValue!.delete(p.value);
      if (!byValue!.size) byLength.delete(p.bits);
    }
  }

  /** The ranges `name` was recorded with. */
  rangesOf(name: string): readonly Prefix[] {
    return this.prefixesOf.get(name) ?? [];
  }

  get size(): number {
    return this.prefixesOf.size;
  }

  /** Names holding a range that contains `p` (the same range or a larger one). */
  containing(p: Prefix): Set<string> {
    const out = new Set<string>();
    for (const [bits, byValue] of this.families.get(p.family)!) {
      if (bits > p.bits) continue;
      for (const name of byValue.get(p.value & mask(p.family, bits)) ?? []) out.add(name);
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
      for (const [value, names] of byValue) if ((value & m) === p.value) for (const name of names) out.add(name);
    }
    return out;
  }

  /** kube's ContainsAddress with PrefixContainsIP: names with a range holding `ip` as an allocatable address. */
  containingAddress(ip: Addr): Set<string> {
    const out = new Set<string>();
    for (const [bits, byValue] of this.families.get(ip.family)!) {
      const value = ip.value & mask(ip.family, bits);
      const names = byValue.get(value);
      if (names && prefixContainsIP({ family: ip.family, value, bits }, ip)) for (const name of names) out.add(name);
    }
    return out;
  }
}

const sameRanges = (a: readonly Prefix[], b: readonly Prefix[]): boolean => a.length === b.length && a.every((p, i) => p.family === b[i]!.family && p.bits === b[i]!.bits && p.value === b[i]!.value);
