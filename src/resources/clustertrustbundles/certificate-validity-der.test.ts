// The validity reader on DER built by hand: long-form lengths, the tags it insists on, and times
// that are not exactly DER's forms. Each answers undefined (the caller falls back to a full
// parse) rather than a wrong window.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readValidity } from './certificate-validity.js';

const len = (n: number): number[] => (n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff]);
const tlv = (tag: number, body: number[]): number[] => [tag, ...len(body.length), ...body];
const text = (s: string): number[] => [...Buffer.from(s, 'latin1')];
const utc = (s: string) => tlv(0x17, text(s));
const gen = (s: string) => tlv(0x18, text(s));

/** Certificate → tbsCertificate → serial, signature, issuer, validity (and a subject after it). */
function cert(validity: number[], opts: { outerTag?: number; tbsTag?: number; version?: boolean } = {}): Buffer {
  const tbs = [...(opts.version ? tlv(0xa0, tlv(0x02, [2])) : []), ...tlv(0x02, [1]), ...tlv(0x30, []), ...tlv(0x30, []), ...validity, ...tlv(0x30, [])];
  return Buffer.from(tlv(opts.outerTag ?? 0x30, [...tlv(opts.tbsTag ?? 0x30, tbs), ...tlv(0x30, [])]));
}
const window = (notBefore: number[], notAfter: number[]) => tlv(0x30, [...notBefore, ...notAfter]);

describe('readValidity on hand-built DER', () => {
  test('UTCTime and GeneralizedTime windows, with and without a version', () => {
    const v = readValidity(cert(window(utc('491231235959Z'), gen('20991231000000Z')), { version: true }));
    assert.deepEqual(v, { notBefore: new Date('2049-12-31T23:59:59Z'), notAfter: new Date('2099-12-31T00:00:00Z') });
    assert.deepEqual(readValidity(cert(window(utc('500101000000Z'), utc('991231235959Z'))))?.notBefore, new Date('1950-01-01T00:00:00Z'));
  });

  test('long-form lengths of one or two bytes are read', () => {
    const padded = [...window(utc('200101000000Z'), utc('300101000000Z'))];
    // A subject of 300 bytes makes the tbsCertificate and the certificate long-form.
    const tbs = [...tlv(0x02, [1]), ...tlv(0x30, []), ...tlv(0x30, []), ...padded, ...tlv(0x30, new Array(300).fill(0))];
    const der = Buffer.from(tlv(0x30, [...tlv(0x30, tbs), ...tlv(0x30, [])]));
    assert.equal(der[1], 0x82);
    assert.deepEqual(readValidity(der)?.notAfter, new Date('2030-01-01T00:00:00Z'));
  });

  test('a long-form length of zero bytes, of more than four, or running past the end is refused', () => {
    const good = cert(window(utc('200101000000Z'), utc('300101000000Z')));
    assert.ok(readValidity(good));
    assert.equal(readValidity(Buffer.from([0x30, 0x80, ...good.subarray(2)])), undefined);
    assert.equal(readValidity(Buffer.from([0x30, 0x85, 0, 0, 0, 0, good.length - 2, ...good.subarray(2)])), undefined);
    assert.equal(readValidity(Buffer.from([0x30, 0x84, 0, 0])), undefined);
    assert.equal(readValidity(Buffer.from([0x30, 0x81])), undefined);
    assert.equal(readValidity(Buffer.from([0x30])), undefined);
  });

  test('the certificate and its tbsCertificate must be SEQUENCEs', () => {
    const validity = window(utc('200101000000Z'), utc('300101000000Z'));
    assert.equal(readValidity(cert(validity, { outerTag: 0x31 })), undefined);
    assert.equal(readValidity(cert(validity, { tbsTag: 0x31 })), undefined);
  });

  test('a validity of other than two times is refused', () => {
    assert.equal(readValidity(cert(tlv(0x30, [...utc('200101000000Z'), ...utc('300101000000Z'), ...utc('310101000000Z')]))), undefined);
    assert.equal(readValidity(cert(tlv(0x30, utc('200101000000Z')))), undefined);
  });

  test('times with anything before or after DER form, or under another tag, are refused', () => {
    const ok = utc('300101000000Z');
    for (const bad of [utc('x200101000000Z'), utc('200101000000Zx'), gen('x20200101000000Z'), gen('20200101000000Zx'), utc('20200101000000Z'), gen('200101000000Z'), tlv(0x04, text('20200101000000Z')), tlv(0x04, text('200101000000Z'))]) {
      assert.equal(readValidity(cert(window(bad, ok))), undefined, Buffer.from(bad).toString('latin1'));
    }
  });
});
