import { test } from 'node:test';
import assert from 'node:assert/strict';
import { containsPrefix, overlaps, parseAddr, parsePrefix, prefixContainsIP } from './net-prefix.js';

const p = (t: string) => parsePrefix(t)!;
const a = (t: string) => parseAddr(t)!;

test('parsing canonical addresses and prefixes', () => {
  assert.equal(a('10.0.0.1').value, 0x0a000001n);
  assert.equal(a('::1').value, 1n);
  assert.equal(a('::ffff:1.2.3.4').value, 0xffff01020304n);
  assert.equal(a('2001:db8::1').value, (0x20010db8n << 96n) | 1n);
  assert.equal(parseAddr('10.0.0'), undefined);
  assert.equal(parseAddr('1:2:3:4:5:6:7:8:9'), undefined);
  assert.deepEqual(p('10.1.2.3/8'), { family: 4, value: 0x0a000000n, bits: 8 });
});

test('overlap and containment (kube ContainsPrefix, PrefixContainsIP)', () => {
  assert.ok(overlaps(p('10.0.0.0/8'), p('10.1.0.0/16')));
  assert.ok(!overlaps(p('10.0.0.0/16'), p('10.1.0.0/16')));
  assert.ok(!overlaps(p('10.0.0.0/8'), p('fd00::/8')));
  assert.ok(containsPrefix(p('10.0.0.0/8'), p('10.1.0.0/16')));
  assert.ok(containsPrefix(p('10.1.0.0/16'), p('10.1.0.0/16')));
  assert.ok(!containsPrefix(p('10.1.0.0/16'), p('10.0.0.0/8')));
  assert.ok(prefixContainsIP(p('10.0.0.0/24'), a('10.0.0.1')));
  assert.ok(!prefixContainsIP(p('10.0.0.0/24'), a('10.0.0.0')), 'network address');
  assert.ok(!prefixContainsIP(p('10.0.0.0/24'), a('10.0.0.255')), 'IPv4 broadcast');
  assert.ok(!prefixContainsIP(p('10.0.0.0/24'), a('10.0.1.1')));
  assert.ok(prefixContainsIP(p('fd00::/64'), a('fd00::ffff:ffff:ffff:ffff')), 'IPv6 has no broadcast');
  assert.ok(!prefixContainsIP(p('fd00::/64'), a('fd00::')));
  assert.ok(!prefixContainsIP(p('10.0.0.0/24'), a('::ffff:10.0.0.1')));
});
