// What Go's CIDR parser (k8s.io/utils/net ParseCIDRSloppy, under apimachinery's IsValidCIDR)
// refuses or reads differently, case by case: each text here is one a looser parser would take.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cidrProblem, formatIP, maskedNetwork, parseCIDRSloppy } from './cidr.js';

const NOT_A_CIDR = 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)';

describe('not CIDRs at all', () => {
  const cases = [
    '10.0.0.0.5/32', // five octets
    '10.0.0/24', // three
    '10.0.0.1a/32', // an octet with more than digits
    '10.0.0.a1/32',
    '10.0.0.0/2a', // a prefix with more than digits
    '10.0.0.0/a2',
    '10.0.0.0/', // no prefix
    'fd00::/129', // past 128 bits
    '1::2::3/128', // two "::"
    'fd00:12345::/64', // a group of five digits
    'fd00:g::/64',
    '1:2:3:4:5:6:7/128', // seven groups without "::"
    '1:2:3:4:5:6:7:8:9/128', // nine
    '::ffff:10.0.0.256/120', // an embedded IPv4 tail that is no address
    '::ffff:010.0.0.0/104', // an embedded IPv4 tail with a leading zero
  ];
  for (const text of cases) test(text, () => assert.equal(cidrProblem(text), NOT_A_CIDR));
});

describe('IPv6 addresses with an IPv4 tail that are not IPv4-mapped', () => {
  // Only ::ffff:a.b.c.d is mapped: every other prefix before the tail is a plain IPv6 address.
  const cases: [string, string][] = [
    ['::feff:10.0.0.0/104', '::feff:a00:0/104'],
    ['::fffe:10.0.0.0/104', '::fffe:a00:0/104'],
    ['1::ffff:10.0.0.0/104', '1::ffff:a00:0/104'],
    ['::1:ffff:10.0.0.0/104', '::1:ffff:a00:0/104'],
  ];
  for (const [text, canonical] of cases) {
    test(text, () => assert.equal(cidrProblem(text), `must be in canonical form (${JSON.stringify(canonical)})`));
  }

  test('a mapped address below /96 still parses (Go: ::fffe:0:0/95), and is refused as mapped', () => {
    assert.equal(cidrProblem('::ffff:0.0.0.0/95'), 'must not have an IPv4-mapped IPv6 address');
    assert.equal(cidrProblem('::ffff:0.0.0.0/0'), 'must not have an IPv4-mapped IPv6 address');
    const parsed = parseCIDRSloppy('::ffff:0.0.0.0/95')!;
    assert.equal(parsed.family, 6);
    assert.equal(formatIP(maskedNetwork(parsed)), '::fffe:0:0');
  });

  test('a mapped address reads as IPv4: its last four bytes and the prefix less 96', () => {
    const parsed = parseCIDRSloppy('::ffff:10.1.0.0/112')!;
    assert.equal(parsed.family, 4);
    assert.deepEqual([...parsed.ip], [10, 1, 0, 0]);
    assert.equal(parsed.prefix, 16);
    assert.equal(parsed.ipv4Mapped, true);
  });
});

describe('masking and formatting', () => {
  test('the network clears exactly the bits past the prefix', () => {
    const net = (text: string) => formatIP(maskedNetwork(parseCIDRSloppy(text)!));
    assert.equal(net('10.255.255.255/9'), '10.128.0.0');
    assert.equal(net('10.255.255.255/32'), '10.255.255.255');
    assert.equal(net('10.255.255.255/0'), '0.0.0.0');
    assert.equal(net('fd00:ffff:ffff::ffff/17'), 'fd00:8000::');
    assert.equal(net('fd00::ffff/128'), 'fd00::ffff');
    assert.equal(cidrProblem('10.0.0.1/31'), 'must not have bits set beyond the prefix length');
    assert.equal(cidrProblem('10.0.0.0/31'), undefined);
  });

  test('RFC 5952: a run at the start or the end, all zeros, no zeros', () => {
    const ip = (...groups: number[]) => formatIP(Uint8Array.from(groups.flatMap((g) => [g >> 8, g & 0xff])));
    assert.equal(ip(0, 0, 0, 1, 2, 3, 4, 5), '::1:2:3:4:5');
    assert.equal(ip(1, 2, 3, 4, 5, 0, 0, 0), '1:2:3:4:5::');
    assert.equal(ip(0, 0, 0, 0, 0, 0, 0, 0), '::');
    assert.equal(ip(1, 2, 3, 4, 5, 6, 7, 8), '1:2:3:4:5:6:7:8');
    assert.equal(ip(1, 0, 0, 2, 0, 0, 0, 3), '1:0:0:2::3');
    assert.equal(ip(0xabcd, 0, 0, 0, 0, 0, 0, 0), 'abcd::');
  });
});
