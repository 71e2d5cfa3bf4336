// ParseCertificate's walk over a certificate, field by field in Go's order, each field broken on
// its own in a certificate otherwise well formed: the version and what it enables, the serial,
// both signature AlgorithmIdentifiers, names, validity, key, unique IDs, the extensions'
// envelope and the signature, and what bytes may follow what. Verdicts and the CA bit were
// compared with Go's own x509.ParseCertificate (negative serials with Go 1.24's rule).

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { NULL, bits, bool, cat, int, octets, oid, seq, set, str, tlv } from '../../../../test/differential/x509/der-builder.js';
import { parseGoCertificate } from './certificate.js';

const SIG = seq(oid('1.2.840.10045.4.3.2'));
const NAME = seq(set(seq(oid('2.5.4.3'), str(0x13, 'Example CA'))));
const VALIDITY = seq(str(0x17, '250101000000Z'), str(0x18, '20550101000000Z'));
/** Ed25519: 32 bytes Go takes without looking at them. */
const KEY = seq(seq(oid('1.3.101.112')), bits(Buffer.alloc(32, 1)));
const BC_CA = seq(oid('2.5.29.19'), bool(true), octets(seq(bool(true))));
const SKID = seq(oid('2.5.29.14'), octets(octets(Buffer.alloc(4, 7))));

interface Parts {
  /** The [0] version element; null leaves it out (version 1). */
  version?: Buffer | null;
  serial?: Buffer;
  sigAI?: Buffer;
  issuer?: Buffer;
  validity?: Buffer;
  subject?: Buffer;
  spki?: Buffer;
  /** Everything after the key inside tbsCertificate. */
  after?: Buffer[];
  outerSigAI?: Buffer;
  /** The signature BIT STRING and whatever follows it inside the Certificate SEQUENCE. */
  tail?: Buffer[];
}

const v = (n: bigint | number) => tlv(0xa0, int(n));
const exts = (...e: Buffer[]) => tlv(0xa3, seq(...e));

function build(p: Parts = {}): Buffer {
  const tbs = seq(
    ...(p.version === null ? [] : [p.version ?? v(2)]),
    p.serial ?? int(0x1234),
    p.sigAI ?? SIG,
    p.issuer ?? NAME,
    p.validity ?? VALIDITY,
    p.subject ?? NAME,
    p.spki ?? KEY,
    ...(p.after ?? [exts(BC_CA)]),
  );
  return seq(tbs, p.outerSigAI ?? p.sigAI ?? SIG, ...(p.tail ?? [bits(Buffer.alloc(8, 0x5a))]));
}

const CA = { ok: true, isCA: true };
const NOT_CA = { ok: true, isCA: false };
const FAIL = { ok: false };
const parse = (der: Buffer) => parseGoCertificate(der);

describe('the Certificate envelope', () => {
  test('a well-formed CA certificate', () => {
    assert.deepEqual(parse(build()), CA);
  });

  test('the certificate must fill the input; bytes after the signature inside it are ignored', () => {
    assert.deepEqual(parse(cat(build(), Buffer.from([0]))), FAIL);
    assert.deepEqual(parse(build({ tail: [bits(Buffer.alloc(8)), NULL, Buffer.from('anything')] })), CA);
    assert.deepEqual(parse(Buffer.alloc(0)), FAIL);
    assert.deepEqual(parse(build().subarray(0, 10)), FAIL);
  });

  test('the certificate and its tbsCertificate are SEQUENCEs', () => {
    const der = build();
    assert.deepEqual(parse(cat(Buffer.from([0x31]), der.subarray(1))), FAIL);
    const tbsTagAt = der[1]! & 0x80 ? 2 + (der[1]! & 0x7f) : 2;
    const other = Buffer.from(der);
    other[tbsTagAt] = 0x31;
    assert.deepEqual(parse(other), FAIL);
    assert.deepEqual(parse(seq()), FAIL);
  });

  test('the signature must be a well-formed BIT STRING', () => {
    assert.deepEqual(parse(build({ tail: [] })), FAIL);
    assert.deepEqual(parse(build({ tail: [octets(Buffer.alloc(8))] })), FAIL);
    assert.deepEqual(parse(build({ tail: [tlv(0x03, Buffer.from([1, 0xff]))] })), FAIL);
    assert.deepEqual(parse(build({ tail: [bits(Buffer.alloc(0))] })), CA);
  });
});

describe('version', () => {
  test('an absent or explicit 0 version is version 1: nothing after the key is read', () => {
    for (const version of [null, v(0)]) {
      assert.deepEqual(parse(build({ version })), NOT_CA);
      assert.deepEqual(parse(build({ version, after: [Buffer.from([0x81, 0x05, 0x00])] })), NOT_CA, 'a malformed unique ID is not read');
      assert.deepEqual(parse(build({ version, after: [exts(seq(oid('2.5.29.19'), octets(NULL)))] })), NOT_CA, 'malformed extensions are not read');
    }
  });

  test('version 2 reads the unique IDs but no extensions', () => {
    assert.deepEqual(parse(build({ version: v(1) })), NOT_CA);
    assert.deepEqual(parse(build({ version: v(1), after: [tlv(0x81, Buffer.from([0, 1])), tlv(0x82, Buffer.from([0, 2])), exts(BC_CA)] })), NOT_CA);
    assert.deepEqual(parse(build({ version: v(1), after: [Buffer.from([0x81, 0x05, 0x00])] })), FAIL);
    assert.deepEqual(parse(build({ version: v(1), after: [tlv(0x81, Buffer.from([0])), Buffer.from([0x82, 0x05, 0x00])] })), FAIL);
    assert.deepEqual(parse(build({ version: v(1), after: [tlv(0xa3, NULL)] })), NOT_CA);
  });

  test('version 3 reads unique IDs, then extensions', () => {
    assert.deepEqual(parse(build({ after: [tlv(0x81, Buffer.from([0, 1])), tlv(0x82, Buffer.from([0, 2])), exts(BC_CA)] })), CA);
    assert.deepEqual(parse(build({ after: [tlv(0x82, Buffer.from([0, 2])), exts(BC_CA)] })), CA);
    assert.deepEqual(parse(build({ after: [Buffer.from([0x82, 0x05, 0x00])] })), FAIL);
    assert.deepEqual(parse(build({ after: [] })), NOT_CA);
  });

  test('versions beyond 3, negative, malformed or followed by more are refused', () => {
    for (const version of [v(3), v(4), v(-1), v(2n ** 63n), tlv(0xa0, tlv(0x02, Buffer.from([0, 2]))), tlv(0xa0, int(2), NULL), tlv(0xa0, NULL), tlv(0xa0), tlv(0xa0, Buffer.from([0x02, 0x05, 0x02]))]) {
      assert.deepEqual(parse(build({ version })), FAIL, version.toString('hex'));
    }
    assert.deepEqual(parse(build({ version: tlv(0x80, int(2)) })), FAIL, 'an implicit [0] is no version, and no serial');
  });
});

describe('serial number', () => {
  test('any non-negative INTEGER, of any size', () => {
    for (const serial of [int(0), int(1), int(127), int(128), int(2n ** 1024n)]) assert.deepEqual(parse(build({ serial })), CA);
  });

  test('negative (Go 1.24), non-minimal or missing serials are refused', () => {
    for (const serial of [int(-1), int(-(2n ** 200n)), tlv(0x02, Buffer.from([0, 1])), tlv(0x02), NULL, Buffer.alloc(0)]) {
      assert.deepEqual(parse(build({ serial })), FAIL, serial.toString('hex'));
    }
  });
});

describe('signature algorithm', () => {
  test('an OID with any one parameter element; what follows it is ignored', () => {
    for (const sigAI of [seq(oid('1.2.840.113549.1.1.11'), NULL), seq(oid('1.2.3'), int(5)), seq(oid('1.2.3'), NULL, NULL, Buffer.from([0xff]))]) {
      assert.deepEqual(parse(build({ sigAI })), CA, sigAI.toString('hex'));
    }
  });

  test('the inner and outer AlgorithmIdentifiers must be byte-identical', () => {
    assert.deepEqual(parse(build({ sigAI: seq(oid('1.2.840.113549.1.1.11'), NULL), outerSigAI: seq(oid('1.2.840.113549.1.1.11')) })), FAIL);
    assert.deepEqual(parse(build({ outerSigAI: seq(oid('1.2.840.10045.4.3.3')) })), FAIL);
    assert.deepEqual(parse(build({ outerSigAI: NULL })), FAIL);
  });

  test('without an OID, or with malformed parameters, it is refused', () => {
    for (const sigAI of [seq(), seq(NULL), seq(tlv(0x06, Buffer.from([0x2a, 0x86]))), seq(oid('1.2.3'), Buffer.from([0x05, 0x05])), NULL]) {
      assert.deepEqual(parse(build({ sigAI, outerSigAI: sigAI })), FAIL, sigAI.toString('hex'));
    }
  });
});

describe('issuer and subject names', () => {
  const atv = (value: Buffer, type = oid('2.5.4.3')) => seq(type, value);
  const good = [seq(), seq(set()), seq(set(atv(str(0x13, 'a')), atv(str(0x0c, 'b'))), set(atv(str(0x16, 'c@d')))), seq(set(atv(str(0x13, 'a'), oid('1.2.3.4.5'))))];
  const bad = [
    set(set(atv(str(0x13, 'a')))),
    seq(seq(atv(str(0x13, 'a')))),
    seq(set(set(oid('2.5.4.3'), str(0x13, 'a')))),
    seq(set(seq(str(0x13, 'a')))),
    seq(set(seq(oid('2.5.4.3')))),
    seq(set(atv(str(0x13, 'a_b')))),
    seq(set(atv(int(1)))),
    seq(set(atv(str(0x13, 'a'))), NULL),
    seq(set(atv(str(0x13, 'a')), NULL)),
    seq(set(seq(tlv(0x06), str(0x13, 'a')))),
  ];

  test('SEQUENCE OF SET OF SEQUENCE { OID, string }, in the issuer', () => {
    for (const issuer of good) assert.deepEqual(parse(build({ issuer })), CA, issuer.toString('hex'));
    for (const issuer of bad) assert.deepEqual(parse(build({ issuer })), FAIL, issuer.toString('hex'));
  });

  test('and in the subject', () => {
    for (const subject of good) assert.deepEqual(parse(build({ subject })), CA, subject.toString('hex'));
    for (const subject of bad) assert.deepEqual(parse(build({ subject })), FAIL, subject.toString('hex'));
  });

  test('an attribute value may be followed by more inside its SEQUENCE', () => {
    assert.deepEqual(parse(build({ subject: seq(set(seq(oid('2.5.4.3'), str(0x13, 'a'), NULL))) })), CA);
  });
});

describe('validity', () => {
  test('two times Go accepts; anything after them is ignored', () => {
    assert.deepEqual(parse(build({ validity: seq(str(0x17, '250101000000Z'), str(0x17, '350101000000Z'), NULL) })), CA);
  });

  test('a missing, extra-wrapped or bad time is refused', () => {
    for (const validity of [
      seq(str(0x17, '250101000000Z')),
      seq(),
      seq(str(0x17, '250101000000Z'), str(0x17, '351301000000Z')),
      seq(str(0x17, '251301000000Z'), str(0x17, '350101000000Z')),
      seq(str(0x13, '250101000000Z'), str(0x17, '350101000000Z')),
      set(str(0x17, '250101000000Z'), str(0x17, '350101000000Z')),
    ]) {
      assert.deepEqual(parse(build({ validity })), FAIL, validity.toString('hex'));
    }
  });
});

describe('subject public key info', () => {
  test('SEQUENCE { AlgorithmIdentifier, BIT STRING }, then the key itself is checked', () => {
    assert.deepEqual(parse(build({ spki: seq(seq(oid('1.2.3.4'), NULL), bits(Buffer.alloc(3))) })), CA);
    for (const spki of [
      seq(seq(oid('1.3.101.112')), bits(Buffer.alloc(31, 1))),
      seq(seq(oid('1.3.101.112'))),
      seq(seq(oid('1.3.101.112')), octets(Buffer.alloc(32, 1))),
      seq(seq(oid('1.3.101.112')), tlv(0x03, Buffer.from([1, 1]))),
      seq(bits(Buffer.alloc(32, 1))),
      seq(seq(NULL), bits(Buffer.alloc(32, 1))),
      seq(seq(oid('1.3.101.112'), Buffer.from([0x05, 0x03])), bits(Buffer.alloc(32, 1))),
      set(seq(oid('1.3.101.112')), bits(Buffer.alloc(32, 1))),
    ]) {
      assert.deepEqual(parse(build({ spki })), FAIL, spki.toString('hex'));
    }
  });
});

describe('the extensions envelope', () => {
  test('[3] { SEQUENCE OF Extension }; an empty list is fine, anything after the list or the [3] is ignored', () => {
    assert.deepEqual(parse(build({ after: [exts()] })), NOT_CA);
    assert.deepEqual(parse(build({ after: [tlv(0xa3, seq(BC_CA), NULL)] })), CA);
    assert.deepEqual(parse(build({ after: [exts(BC_CA), NULL, Buffer.from('more')] })), CA);
    assert.deepEqual(parse(build({ after: [NULL, exts(BC_CA)] })), NOT_CA, 'not a [3] where extensions go: no extensions');
  });

  test('a malformed envelope or extension is refused', () => {
    for (const after of [
      [tlv(0xa3)],
      [tlv(0xa3, set(BC_CA))],
      [Buffer.from([0xa3, 0x05, 0x30, 0x00])],
      [exts(NULL)],
      [exts(seq(bool(true), octets(seq())))],
      [exts(seq(oid('1.2.3'), tlv(0x01, Buffer.from([1])), octets(seq())))],
      [exts(seq(oid('1.2.3'), bool(true)))],
      [exts(seq(oid('1.2.3'), seq()))],
      [exts(seq(tlv(0x06, Buffer.from([0x2a, 0x86])), octets(seq())))],
    ]) {
      assert.deepEqual(parse(build({ after })), FAIL, Buffer.concat(after).toString('hex'));
    }
  });

  test('critical may be given as false; bytes after the value are ignored', () => {
    assert.deepEqual(parse(build({ after: [exts(seq(oid('2.5.29.19'), bool(false), octets(seq(bool(true)))))] })), CA);
    assert.deepEqual(parse(build({ after: [exts(seq(oid('2.5.29.19'), octets(seq(bool(true))), NULL))] })), CA);
  });

  test('an extension may appear only once', () => {
    assert.deepEqual(parse(build({ after: [exts(BC_CA, SKID)] })), CA);
    assert.deepEqual(parse(build({ after: [exts(SKID, BC_CA, SKID)] })), FAIL);
    assert.deepEqual(parse(build({ after: [exts(BC_CA, seq(oid('2.5.29.19'), octets(seq())))] })), FAIL);
    const unknown = (critical: boolean) => seq(oid('1.2.3.4'), ...(critical ? [bool(true)] : []), octets(Buffer.from('x')));
    assert.deepEqual(parse(build({ after: [exts(unknown(true), BC_CA, unknown(false))] })), FAIL);
    assert.deepEqual(parse(build({ after: [exts(unknown(true), BC_CA, seq(oid('1.2.3.4.0'), octets()))] })), CA);
  });
});
