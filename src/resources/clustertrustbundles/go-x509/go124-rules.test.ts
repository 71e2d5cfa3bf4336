// The rules of Go 1.24 (kube-apiserver 1.33's Go) that Debian's Go 1.19 lacks, each pinned
// with a certificate on which the two differ: the differential test can only check the rules
// of the Go it runs against, so these are checked here. Also the curve constants.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { NULL, bits, bool, int, octets, oid, seq, set, str, tlv } from '../../../../test/differential/x509/der-builder.js';
import { buildCertificate, EXT, generalizedTime, p256Key, utcTime } from '../../../../test/differential/x509/corpus.js';
import { parseGoCertificate } from './certificate.js';
import type { GoRules } from './der.js';
import { curveForTest, validPoint } from './public-key.js';

const GO_1_19: GoRules = { go124: false };
const key = p256Key();
const ext = (id: Buffer, value: Buffer, critical = false) => seq(id, ...(critical ? [bool(true)] : []), octets(value));
const cert = (extensions: Buffer[], extra: Partial<Parameters<typeof buildCertificate>[0]> = {}) => buildCertificate({ key, extensions: [EXT.basicCA(), ...extensions], ...extra });

/** [Go 1.19 accepts, Go 1.24 accepts] */
const verdicts = (der: Buffer): [boolean, boolean] => [parseGoCertificate(der, GO_1_19).ok, parseGoCertificate(der).ok];

describe('Go 1.24 rules beyond Go 1.19', () => {
  test('OID subidentifiers must be minimal (no leading 0x80)', () => {
    assert.deepEqual(verdicts(cert([ext(tlv(0x06, Buffer.from([0x2a, 0x80, 0x03])), octets(Buffer.from('x')))])), [true, false]);
    assert.deepEqual(verdicts(cert([ext(oid('1.2.3'), octets(Buffer.from('x')))])), [true, true]);
  });

  test('a zone offset hour above 24 is out of range (24 itself is allowed)', () => {
    assert.deepEqual(verdicts(cert([], { notBefore: utcTime('250101000000+2500') })), [true, false]);
    assert.deepEqual(verdicts(cert([], { notAfter: generalizedTime('20550101000000+9900') })), [true, false]);
    assert.deepEqual(verdicts(cert([], { notBefore: utcTime('250101000000+2400') })), [true, true]);
  });

  test('negative serial numbers are refused', () => {
    assert.deepEqual(verdicts(cert([], { serial: -1n })), [true, false]);
    assert.deepEqual(verdicts(cert([], { serial: 0n })), [true, true]);
  });

  test('not rules of Go 1.24 (only of later Go): negative path lengths and BMP surrogates are accepted', () => {
    const bc = (n: number) => ext(oid('2.5.29.19'), seq(bool(true), int(n)), true);
    assert.deepEqual(verdicts(buildCertificate({ key, extensions: [bc(-1)] })), [true, true]);
    const subject = (v: Buffer) => seq(set(seq(oid('2.5.4.3'), v)));
    assert.deepEqual(verdicts(cert([], { subject: subject(tlv(0x1e, Buffer.from([0xd8, 0x00]))) })), [true, true]);
    assert.deepEqual(verdicts(cert([], { subject: subject(tlv(0x1e, Buffer.from([0x00, 0x41, 0]))) })), [false, false]);
  });

  test('key identifiers and authority info access may not be critical', () => {
    assert.deepEqual(verdicts(cert([ext(oid('2.5.29.14'), octets(Buffer.alloc(4)), true)])), [true, false]);
    assert.deepEqual(verdicts(cert([ext(oid('2.5.29.35'), seq(), true)])), [true, false]);
    assert.deepEqual(verdicts(cert([ext(oid('1.3.6.1.5.5.7.1.1'), seq(), true)])), [true, false]);
    assert.deepEqual(verdicts(cert([ext(oid('2.5.29.14'), octets(Buffer.alloc(4)))])), [true, true]);
  });

  test('certificate policies: raw OIDs of any arc size, minimal, without duplicates', () => {
    const policies = (...oids: Buffer[]) => ext(oid('2.5.29.32'), seq(...oids.map((o) => seq(o))));
    assert.deepEqual(verdicts(cert([policies(oid('1.2.3'), oid('1.2.3'))])), [true, false]);
    assert.deepEqual(verdicts(cert([policies(oid('1.2.4294967296'))])), [false, true]);
    assert.deepEqual(verdicts(cert([policies(tlv(0x06, Buffer.from([0x2a, 0x80, 0x01])))])), [true, false]);
  });

  test('policy mappings, policy constraints and inhibitAnyPolicy are parsed', () => {
    assert.deepEqual(verdicts(cert([ext(oid('2.5.29.33'), seq(seq(oid('1.2.3'))))])), [true, false]);
    assert.deepEqual(verdicts(cert([ext(oid('2.5.29.36'), seq(tlv(0x80, Buffer.from([0, 1]))))])), [true, false]);
    assert.deepEqual(verdicts(cert([ext(oid('2.5.29.54'), str(0x04, 'x'))])), [true, false]);
    assert.deepEqual(verdicts(cert([EXT.policyMappings(), EXT.policyConstraints(), EXT.inhibitAny()])), [true, true]);
  });
});

describe('public keys', () => {
  test('the curve constants hold for real keys of every NIST curve Go parses', () => {
    for (const [curve, oidText] of [
      ['secp224r1', '1.3.132.0.33'],
      ['prime256v1', '1.2.840.10045.3.1.7'],
      ['secp384r1', '1.3.132.0.34'],
      ['secp521r1', '1.3.132.0.35'],
    ] as const) {
      const c = curveForTest(oidText)!;
      const spki = generateKeyPairSync('ec', { namedCurve: curve }).publicKey.export({ type: 'spki', format: 'der' });
      const point = spki.subarray(spki.length - (1 + 2 * c.bytes));
      assert.equal(validPoint(c, point), true, curve);
      const off = Buffer.from(point);
      off[off.length - 1] = off[off.length - 1]! ^ 1;
      assert.equal(validPoint(c, off), false, curve);
    }
  });

  test('an unknown key algorithm is accepted unparsed; a known one with bad parameters is not', () => {
    const withKey = (k: Buffer) => parseGoCertificate(buildCertificate({ key: k, extensions: [EXT.basicCA()] })).ok;
    assert.equal(withKey(seq(seq(oid('1.2.3.4'), NULL), bits(Buffer.from('anything')))), true);
    assert.equal(withKey(seq(seq(oid('1.3.101.112'), NULL), bits(Buffer.alloc(32)))), false);
    assert.equal(withKey(seq(seq(oid('1.3.101.112')), bits(Buffer.alloc(32)))), true);
  });
});
