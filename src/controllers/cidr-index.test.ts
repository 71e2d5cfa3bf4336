// The CIDR index answers what the status controller used to scan every ServiceCIDR for: each
// answer is checked against that scan (net-prefix's overlaps and containment) over random ranges.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CidrIndex } from './cidr-index.js';
import { containsPrefix, overlaps, parseAddr, parsePrefix, prefixContainsIP } from './net-prefix.js';

const sorted = (s: Iterable<string>): string[] => [...s].sort();

describe('CidrIndex', () => {
  test('containing, overlapping and containingAddress equal a scan of every range, through sets, updates and deletes', () => {
    let seed = 7;
    const rand = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const cidrOf = (): string => {
      if (rand(5) === 0) return `fd00:${rand(4).toString(16)}::/${[32, 48, 64][rand(3)]}`;
      const bits = [8, 16, 20, 24, 28, 30][rand(6)]!;
      const p = parsePrefix(`10.${rand(4)}.${rand(8)}.${rand(4) * 64}/${bits}`)!;
      const v = Number(p.value);
      return `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}/${bits}`;
    };
    const index = new CidrIndex();
    const truth = new Map<string, string[]>();
    for (let step = 0; step < 600; step++) {
      const name = `sc${rand(120)}`;
      if (rand(6) === 0) {
        index.delete(name);
        truth.delete(name);
      } else {
        const cidrs = rand(4) === 0 ? [cidrOf(), cidrOf()] : [cidrOf()];
        index.set(name, cidrs);
        truth.set(name, cidrs);
      }
    }
    assert.equal(index.size, truth.size);
    const scan = (test: (p: NonNullable<ReturnType<typeof parsePrefix>>) => boolean): string[] =>
      sorted([...truth].filter(([, cidrs]) => cidrs.some((c) => test(parsePrefix(c)!))).map(([n]) => n));
    for (let i = 0; i < 300; i++) {
      const q = parsePrefix(cidrOf())!;
      assert.deepEqual(sorted(index.containing(q)), scan((p) => containsPrefix(p, q)), `containing ${JSON.stringify(q, (_, v) => (typeof v === 'bigint' ? v.toString(16) : v))}`);
      assert.deepEqual(sorted(index.overlapping(q)), scan((p) => overlaps(p, q)));
      const ip = parseAddr(`10.${rand(4)}.${rand(8)}.${rand(256)}`)!;
      assert.deepEqual(sorted(index.containingAddress(ip)), scan((p) => prefixContainsIP(p, ip)));
    }
  });

  test('the network and IPv4 broadcast addresses are not contained (kube PrefixContainsIP)', () => {
    const index = new CidrIndex();
    index.set('a', ['10.0.0.0/24']);
    index.set('b', ['10.0.0.0/16']);
    assert.deepEqual(sorted(index.containingAddress(parseAddr('10.0.0.0')!)), []);
    assert.deepEqual(sorted(index.containingAddress(parseAddr('10.0.0.255')!)), ['b']);
    assert.deepEqual(sorted(index.containingAddress(parseAddr('10.0.0.7')!)), ['a', 'b']);
    index.set('a', ['10.1.0.0/24']);
    assert.deepEqual(sorted(index.containingAddress(parseAddr('10.0.0.7')!)), ['b']);
    index.delete('b');
    assert.deepEqual(sorted(index.containingAddress(parseAddr('10.0.0.7')!)), []);
  });
});
