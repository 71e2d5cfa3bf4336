// The DER reader against cryptobyte's acceptance rules, one rule at a time on hand-made bytes:
// headers (short and long form, minimal lengths, high tags), INTEGER minimality and range,
// BOOLEAN values, BIT STRING padding and OID subidentifiers, each at both sides of its edge.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Der, parseOidContents, rightAlign, type GoRules } from './der.js';

const GO_1_19: GoRules = { go124: false };
const GO_1_24: GoRules = { go124: true };
const der = (...bytes: number[]): Der => Der.of(Uint8Array.from(bytes));
const hex = (b: Uint8Array | undefined): string | undefined => b && Buffer.from(b).toString('hex');

describe('element headers (ReadAnyASN1Element)', () => {
  test('a short-form element is read with its offsets, and the cursor moves past it', () => {
    const d = der(0x04, 0x02, 0xaa, 0xbb, 0x05, 0x00);
    assert.deepEqual(d.readAny(), { tag: 0x04, start: 0, body: 2, end: 4 });
    assert.equal(d.pos, 4);
    assert.deepEqual(d.readAny(), { tag: 0x05, start: 4, body: 6, end: 6 });
    assert.equal(d.empty, true);
    assert.equal(d.readAny(), undefined);
  });

  test('fewer than two bytes is no element', () => {
    assert.equal(der(0x05).readAny(), undefined);
    assert.equal(der().readAny(), undefined);
  });

  test('a window ends where it says, not where its buffer does', () => {
    const d = new Der(Uint8Array.from([0x05, 0x00, 0x05, 0x00]), 0, 1);
    assert.equal(d.readAny(), undefined);
    assert.equal(d.length, 1);
    assert.equal(d.peek(0x05), true);
    const past = new Der(Uint8Array.from([0x05, 0x00, 0x05, 0x00]), 2, 2);
    assert.equal(past.peek(0x05), false);
    assert.equal(past.empty, true);
  });

  test('a high tag number (low five bits all set) is refused; 0x1e is an ordinary tag', () => {
    assert.equal(der(0x1f, 0x01, 0x00).readAny(), undefined);
    assert.equal(der(0x3f, 0x00).readAny(), undefined);
    assert.deepEqual(der(0x1e, 0x00).readAny(), { tag: 0x1e, start: 0, body: 2, end: 2 });
  });

  test('long form: one to four length bytes, minimal, at least 128', () => {
    const body = (n: number) => new Array<number>(n).fill(0x41);
    assert.deepEqual(der(0x04, 0x81, 0x80, ...body(128)).readAny(), { tag: 0x04, start: 0, body: 3, end: 131 });
    assert.deepEqual(der(0x04, 0x82, 0x01, 0x00, ...body(256)).readAny(), { tag: 0x04, start: 0, body: 4, end: 260 });
    assert.equal(der(0x04, 0x81, 0x7f, ...body(127)).readAny(), undefined, 'should have used the short form');
    assert.equal(der(0x04, 0x82, 0x00, 0x80, ...body(128)).readAny(), undefined, 'leading zero length byte');
    assert.equal(der(0x04, 0x80, 0x00, 0x00).readAny(), undefined, 'indefinite length');
    assert.equal(der(0x04, 0x85, 0x00, 0x00, 0x00, 0x00, 0x80, ...body(128)).readAny(), undefined, 'five length bytes');
  });

  test('a four-byte length is read', () => {
    const big = new Uint8Array(6 + 0x1000000);
    big.set([0x04, 0x84, 0x01, 0x00, 0x00, 0x00]);
    assert.deepEqual(Der.of(big).readAny(), { tag: 0x04, start: 0, body: 6, end: big.length });
    assert.equal(Der.of(big.subarray(0, big.length - 1)).readAny(), undefined);
  });

  test('length bytes or contents running past the end are refused, and nothing is consumed', () => {
    for (const d of [der(0x04, 0x81), der(0x04, 0x82, 0x01), der(0x04, 0x03, 0x00, 0x00), der(0x04, 0x81, 0x80, 0x00)]) {
      assert.equal(d.readAny(), undefined);
      assert.equal(d.pos, 0);
    }
  });
});

describe('reading by tag', () => {
  test('readElement with the wrong tag consumes nothing', () => {
    const d = der(0x04, 0x01, 0x00);
    assert.equal(d.readElement(0x05), undefined);
    assert.equal(d.pos, 0);
    assert.deepEqual(d.readElement(0x04), { tag: 0x04, start: 0, body: 2, end: 3 });
  });

  test('read gives the contents as a window', () => {
    const d = der(0x30, 0x03, 0x02, 0x01, 0x07, 0xff);
    const inner = d.read(0x30)!;
    assert.deepEqual([inner.pos, inner.end, hex(inner.bytes())], [2, 5, '020107']);
    assert.equal(d.pos, 5);
    assert.equal(d.read(0x30), undefined);
  });

  test('readAnyContents gives any tag with its contents', () => {
    const r = der(0x86, 0x02, 0x61, 0x62).readAnyContents()!;
    assert.deepEqual([r.tag, hex(r.der.bytes())], [0x86, '6162']);
    assert.equal(der(0x86, 0x03, 0x61).readAnyContents(), undefined);
  });

  test('skipOptional: absent is fine, present must be well formed', () => {
    const d = der(0x81, 0x01, 0x00, 0x02, 0x01, 0x05);
    assert.equal(d.skipOptional(0x82), true);
    assert.equal(d.pos, 0);
    assert.equal(d.skipOptional(0x81), true);
    assert.equal(d.pos, 3);
    assert.equal(der(0x81, 0x05, 0x00).skipOptional(0x81), false);
  });
});

describe('BOOLEAN', () => {
  test('only 0xff and 0x00, of exactly one byte', () => {
    assert.equal(der(0x01, 0x01, 0xff).readBoolean(), true);
    assert.equal(der(0x01, 0x01, 0x00).readBoolean(), false);
    assert.equal(der(0x01, 0x01, 0x01).readBoolean(), undefined);
    assert.equal(der(0x01, 0x01, 0xfe).readBoolean(), undefined);
    assert.equal(der(0x01, 0x02, 0xff, 0xff).readBoolean(), undefined);
    assert.equal(der(0x01, 0x00).readBoolean(), undefined);
    assert.equal(der(0x02, 0x01, 0xff).readBoolean(), undefined);
  });
});

describe('INTEGER', () => {
  test('minimal encodings only; empty contents are refused', () => {
    assert.equal(hex(der(0x02, 0x01, 0x00).readIntegerBytes()), '00');
    assert.equal(hex(der(0x02, 0x01, 0xff).readIntegerBytes()), 'ff');
    assert.equal(hex(der(0x02, 0x02, 0x00, 0x80).readIntegerBytes()), '0080');
    assert.equal(hex(der(0x02, 0x02, 0xff, 0x7f).readIntegerBytes()), 'ff7f');
    assert.equal(hex(der(0x02, 0x02, 0x01, 0x00).readIntegerBytes()), '0100');
    assert.equal(der(0x02, 0x02, 0x00, 0x7f).readIntegerBytes(), undefined, 'leading zero');
    assert.equal(der(0x02, 0x02, 0xff, 0x80).readIntegerBytes(), undefined, 'leading 0xff');
    assert.equal(der(0x02, 0x00).readIntegerBytes(), undefined);
    assert.equal(der(0x04, 0x01, 0x00).readIntegerBytes(), undefined, 'wrong tag');
    assert.equal(hex(der(0x80, 0x01, 0x05).readIntegerBytes(0x80)), '05', 'implicit tag');
  });

  test('the sign of a big integer', () => {
    assert.equal(der(0x02, 0x01, 0x00).readBigIntSign(), 0);
    assert.equal(der(0x02, 0x01, 0x01).readBigIntSign(), 1);
    assert.equal(der(0x02, 0x02, 0x00, 0x80).readBigIntSign(), 1);
    assert.equal(der(0x02, 0x01, 0x80).readBigIntSign(), -1);
    assert.equal(der(0x02, 0x01, 0xff).readBigIntSign(), -1);
    assert.equal(der(0x02, 0x02, 0x00, 0x00).readBigIntSign(), undefined);
  });

  test('int64: at most eight bytes, two’s complement', () => {
    assert.equal(der(0x02, 0x01, 0x05).readInt64(), 5n);
    assert.equal(der(0x02, 0x01, 0xff).readInt64(), -1n);
    assert.equal(der(0x02, 0x02, 0xff, 0x7f).readInt64(), -129n);
    assert.equal(der(0x02, 0x02, 0x01, 0x00).readInt64(), 256n);
    assert.equal(der(0x02, 0x08, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff).readInt64(), 2n ** 63n - 1n);
    assert.equal(der(0x02, 0x08, 0x80, 0, 0, 0, 0, 0, 0, 0).readInt64(), -(2n ** 63n));
    assert.equal(der(0x02, 0x09, 0x00, 0x80, 0, 0, 0, 0, 0, 0, 0).readInt64(), undefined, '2^63 does not fit');
    assert.equal(der(0x81, 0x01, 0x03).readInt64(0x81), 3n);
    assert.equal(der(0x02, 0x01, 0x03).readInt64(0x81), undefined);
  });
});

describe('OBJECT IDENTIFIER', () => {
  const arcs = (rules: GoRules, ...contents: number[]) => der(0x06, contents.length, ...contents).readOid(rules);

  test('the first subidentifier holds two arcs', () => {
    assert.deepEqual(arcs(GO_1_24, 0x2a, 0x86, 0x48), [1, 2, 840]);
    assert.deepEqual(arcs(GO_1_24, 0x00), [0, 0]);
    assert.deepEqual(arcs(GO_1_24, 39), [0, 39]);
    assert.deepEqual(arcs(GO_1_24, 40), [1, 0]);
    assert.deepEqual(arcs(GO_1_24, 79), [1, 39]);
    assert.deepEqual(arcs(GO_1_24, 80), [2, 0]);
    assert.deepEqual(arcs(GO_1_24, 0x81, 0x00), [2, 48]);
    assert.deepEqual(arcs(GO_1_24, 0x55, 0x1d, 0x13), [2, 5, 29, 19]);
  });

  test('arcs of up to 31 bits, in at most five bytes', () => {
    assert.deepEqual(arcs(GO_1_24, 0x2a, 0x87, 0xff, 0xff, 0xff, 0x7f), [1, 2, 2 ** 31 - 1]);
    assert.equal(arcs(GO_1_24, 0x2a, 0x88, 0x80, 0x80, 0x80, 0x00), undefined, '2^31');
    assert.deepEqual(arcs(GO_1_24, 0x2a, 0x8f, 0xff, 0xff, 0x7f), [1, 2, 2 ** 25 - 1]);
    assert.equal(arcs(GO_1_19, 0x2a, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01), undefined, 'six bytes');
    assert.deepEqual(arcs(GO_1_19, 0x2a, 0x80, 0x80, 0x80, 0x80, 0x01), [1, 2, 1], 'five bytes; Go 1.19 takes leading 0x80 bytes');
  });

  test('a truncated or empty OID is refused', () => {
    assert.equal(arcs(GO_1_24, 0x2a, 0x86), undefined);
    assert.equal(arcs(GO_1_24), undefined);
    assert.equal(der(0x04, 0x01, 0x2a).readOid(GO_1_24), undefined);
  });

  test('from Go 1.24, no subidentifier starts with 0x80', () => {
    assert.equal(arcs(GO_1_24, 0x2a, 0x80, 0x03), undefined);
    assert.equal(arcs(GO_1_24, 0x80, 0x2a), undefined);
    assert.deepEqual(arcs(GO_1_19, 0x2a, 0x80, 0x03), [1, 2, 3]);
    assert.deepEqual(arcs(GO_1_24, 0x2a, 0x81, 0x80, 0x03), [1, 2, 16387], 'a 0x80 inside is fine');
  });

  test('parseOidContents reads only its range', () => {
    const b = Uint8Array.from([0xff, 0x2a, 0x03, 0xff]);
    assert.deepEqual(parseOidContents(b, 1, 3, GO_1_24), [1, 2, 3]);
    assert.equal(parseOidContents(b, 2, 2, GO_1_24), undefined);
  });
});

describe('BIT STRING', () => {
  test('padding bits are counted and must be zero', () => {
    const r = der(0x03, 0x03, 0x04, 0xff, 0xf0).readBitString()!;
    assert.deepEqual([hex(r.bytes), r.bitLength], ['fff0', 12]);
    assert.deepEqual(der(0x03, 0x01, 0x00).readBitString(), { bytes: new Uint8Array(0), bitLength: 0 });
    assert.equal(der(0x03, 0x02, 0x07, 0x80).readBitString()!.bitLength, 1);
    assert.equal(der(0x03, 0x02, 0x01, 0x01).readBitString(), undefined, 'a padding bit set');
    assert.equal(der(0x03, 0x02, 0x04, 0x08).readBitString(), undefined, 'the highest padding bit set');
    assert.equal(der(0x03, 0x02, 0x08, 0x00).readBitString(), undefined, 'eight padding bits');
    assert.equal(der(0x03, 0x01, 0x01).readBitString(), undefined, 'padding with no bits');
    assert.equal(der(0x03, 0x00).readBitString(), undefined, 'no padding byte');
    assert.equal(der(0x04, 0x01, 0x00).readBitString(), undefined, 'wrong tag');
  });

  test('rightAlign moves the padding to the front', () => {
    assert.equal(hex(rightAlign(Uint8Array.from([0xff, 0xf0]), 12)), '0fff');
    assert.equal(hex(rightAlign(Uint8Array.from([0xab, 0xcd]), 16)), 'abcd');
    assert.equal(hex(rightAlign(Uint8Array.from([0x80]), 1)), '01');
    assert.equal(hex(rightAlign(Uint8Array.from([0b1010_1100, 0b1100_0000]), 10)), '02b3');
    assert.equal(hex(rightAlign(new Uint8Array(0), 0)), '');
  });
});
