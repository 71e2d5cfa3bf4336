// processExtensions as far as it can fail, one extension at a time in a certificate otherwise
// well formed: each extension Go decodes, well formed and broken in each way Go checks, which
// extensions may not be critical, which OIDs count as Go's (all four arcs of 2.5.29.x), and the
// CA bit from basic constraints. Verdicts were compared with Go's own x509.ParseCertificate
// (the policy extensions and the criticality rules with Go 1.24's, which Go 1.19 lacks).

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { NULL, bits, bool, cat, int, octets, oid, seq, str, tlv } from '../../../../test/differential/x509/der-builder.js';
import { buildCertificate } from '../../../../test/differential/x509/corpus.js';
import { parseGoCertificate } from './certificate.js';
import { Der, type GoRules } from './der.js';
import { processExtensions } from './extensions.js';

const KEY = seq(seq(oid('1.3.101.112')), bits(Buffer.alloc(32, 1)));
const BC_CA = seq(oid('2.5.29.19'), bool(true), octets(seq(bool(true))));

const ext = (id: string, value: Buffer, critical = false): Buffer => seq(oid(id), ...(critical ? [bool(true)] : []), octets(value));
/** ParseCertificate of a certificate with these extensions: ok and the CA bit, or not ok. */
const parse = (...extensions: Buffer[]) => parseGoCertificate(buildCertificate({ key: KEY, extensions }));
/** Accepted, next to a CA basic constraints extension. */
const accepts = (e: Buffer): boolean => parse(BC_CA, e).ok;

const CA = { ok: true, isCA: true };
const NOT_CA = { ok: true, isCA: false };
const FAIL = { ok: false };

describe('basic constraints', () => {
  const bc = (value: Buffer, critical = true) => ext('2.5.29.19', value, critical);

  test('the CA bit, with or without a path length', () => {
    assert.deepEqual(parse(bc(seq(bool(true)))), CA);
    assert.deepEqual(parse(bc(seq(bool(true), int(0)))), CA);
    assert.deepEqual(parse(bc(seq(bool(true), int(2n ** 63n - 1n)))), CA);
    assert.deepEqual(parse(bc(seq(bool(true), int(-1)))), CA, 'a negative path length is read as an int');
    assert.deepEqual(parse(bc(seq(bool(true)), false)), CA);
    assert.deepEqual(parse(bc(seq())), NOT_CA);
    assert.deepEqual(parse(bc(seq(bool(false)))), NOT_CA);
    assert.deepEqual(parse(bc(seq(int(3)))), NOT_CA);
    assert.deepEqual(parse(), NOT_CA);
  });

  test('what is neither BOOLEAN nor INTEGER, and what follows, is ignored', () => {
    assert.deepEqual(parse(bc(seq(bool(true), bool(true)))), CA);
    assert.deepEqual(parse(bc(seq(bool(true), int(1), NULL))), CA);
    assert.deepEqual(parse(bc(seq(NULL, bool(true)))), NOT_CA);
    assert.deepEqual(parse(bc(cat(seq(bool(true)), Buffer.from([1, 2])))), CA);
  });

  test('a malformed value is refused', () => {
    for (const value of [int(1), seq(tlv(0x01, Buffer.from([1]))), seq(tlv(0x01, Buffer.from([0xff, 0xff]))), seq(bool(true), int(2n ** 63n)), seq(bool(true), tlv(0x02, Buffer.from([0, 1]))), Buffer.alloc(0)]) {
      assert.deepEqual(parse(bc(value)), FAIL, value.toString('hex'));
    }
  });

  test('the CA bit of the certificate is the basic constraints’ wherever they are', () => {
    assert.deepEqual(parse(ext('2.5.29.15', bits(Buffer.from([6]), 1)), bc(seq(bool(true))), ext('1.2.3', seq())), CA);
  });
});

describe('the extensions Go decodes, well formed', () => {
  test('each is accepted', () => {
    for (const e of [
      ext('2.5.29.15', bits(Buffer.from([0x06]), 1), true),
      ext('2.5.29.14', octets(Buffer.alloc(20, 7))),
      ext('2.5.29.35', seq(tlv(0x80, Buffer.alloc(20, 9)))),
      ext('2.5.29.35', seq()),
      ext('2.5.29.35', seq(tlv(0x81, seq()), tlv(0x82, Buffer.from([1])))),
      ext('2.5.29.37', seq(oid('1.3.6.1.5.5.7.3.1'), oid('1.3.6.1.5.5.7.3.2'))),
      ext('2.5.29.37', seq()),
      ext('2.5.29.31', seq(seq(tlv(0xa0, tlv(0xa0, str(0x86, 'http://crl.example.com/ca.crl')))))),
      ext('2.5.29.31', seq(seq(tlv(0xa0, tlv(0xa0, str(0x86, 'a'), tlv(0xa4, seq()), str(0x86, 'b')))), seq(), seq(tlv(0xa1, NULL)))),
      ext('1.3.6.1.5.5.7.1.1', seq(seq(oid('1.3.6.1.5.5.7.48.1'), str(0x86, 'http://ocsp.example.com')), seq(oid('1.3.6.1.5.5.7.48.2')), seq(oid('1.3.6.1.5.5.7.48.2'), str(0x82, 'x')))),
      ext('2.5.29.32', seq(seq(oid('2.5.29.32.0')), seq(oid('1.3.6.1.4.1.11129.2.5.1'), seq()))),
      ext('2.5.29.33', seq(seq(oid('1.2.3.4'), oid('1.2.3.5'))), true),
      ext('2.5.29.33', seq()),
      ext('2.5.29.36', seq(tlv(0x80, Buffer.from([0])), tlv(0x81, Buffer.from([1]))), true),
      ext('2.5.29.36', seq()),
      ext('2.5.29.36', seq(tlv(0x81, Buffer.from([5])))),
      ext('2.5.29.54', int(0), true),
      ext('2.5.29.54', int(-1)),
    ]) {
      assert.equal(accepts(e), true, e.toString('hex'));
    }
  });
});

describe('malformed values of the extensions Go decodes are refused', () => {
  const cases: [string, Buffer][] = [
    ['key usage: not a BIT STRING', ext('2.5.29.15', octets(Buffer.from([6])))],
    ['key usage: padding bits set', ext('2.5.29.15', tlv(0x03, Buffer.from([1, 0x07])))],
    ['subject key id: not an OCTET STRING', ext('2.5.29.14', seq())],
    ['authority key id: not a SEQUENCE', ext('2.5.29.35', octets(Buffer.alloc(4)))],
    ['authority key id: a malformed [0]', ext('2.5.29.35', seq(Buffer.from([0x80, 0x05, 0x00])))],
    ['extended key usage: not a SEQUENCE', ext('2.5.29.37', oid('1.2.3'))],
    ['extended key usage: not an OID', ext('2.5.29.37', seq(oid('1.2.3'), NULL))],
    ['extended key usage: a truncated OID', ext('2.5.29.37', seq(tlv(0x06, Buffer.from([0x2a, 0x86]))))],
    ['CRL distribution points: not a SEQUENCE', ext('2.5.29.31', set0())],
    ['CRL distribution points: a point that is not a SEQUENCE', ext('2.5.29.31', seq(NULL))],
    ['CRL distribution points: a [0] name without its inner [0]', ext('2.5.29.31', seq(seq(tlv(0xa0, str(0x86, 'x')))))],
    ['CRL distribution points: a malformed URI', ext('2.5.29.31', seq(seq(tlv(0xa0, tlv(0xa0, Buffer.from([0x86, 0x05, 0x61]))))))],
    ['CRL distribution points: a malformed name', ext('2.5.29.31', seq(seq(Buffer.from([0xa0, 0x05, 0x00]))))],
    ['authority info access: not a SEQUENCE', ext('1.3.6.1.5.5.7.1.1', NULL)],
    ['authority info access: an entry that is not a SEQUENCE', ext('1.3.6.1.5.5.7.1.1', seq(oid('1.2.3')))],
    ['authority info access: no method OID', ext('1.3.6.1.5.5.7.1.1', seq(seq(str(0x86, 'http://x'))))],
    ['authority info access: a malformed URI', ext('1.3.6.1.5.5.7.1.1', seq(seq(oid('1.2.3'), Buffer.from([0x86, 0x05, 0x61]))))],
    ['certificate policies: not a SEQUENCE', ext('2.5.29.32', NULL)],
    ['certificate policies: a policy that is not a SEQUENCE', ext('2.5.29.32', seq(oid('1.2.3')))],
    ['certificate policies: no policy OID', ext('2.5.29.32', seq(seq(NULL)))],
    ['certificate policies: an empty OID', ext('2.5.29.32', seq(seq(tlv(0x06))))],
    ['certificate policies: an OID ending mid-subidentifier', ext('2.5.29.32', seq(seq(tlv(0x06, Buffer.from([0x2a, 0x81])))))],
    ['certificate policies: a non-minimal first subidentifier', ext('2.5.29.32', seq(seq(tlv(0x06, Buffer.from([0x80, 0x2a])))))],
    ['certificate policies: a non-minimal later subidentifier', ext('2.5.29.32', seq(seq(tlv(0x06, Buffer.from([0x2a, 0x03, 0x80, 0x01])))))],
    ['certificate policies: a duplicate', ext('2.5.29.32', seq(seq(oid('1.2.3')), seq(oid('1.2.4')), seq(oid('1.2.3'))))],
    ['policy mappings: not a SEQUENCE', ext('2.5.29.33', NULL)],
    ['policy mappings: a mapping that is not a SEQUENCE', ext('2.5.29.33', seq(oid('1.2.3')))],
    ['policy mappings: one OID', ext('2.5.29.33', seq(seq(oid('1.2.3'))))],
    ['policy mappings: no OIDs', ext('2.5.29.33', seq(seq()))],
    ['policy mappings: a second OID that is not one', ext('2.5.29.33', seq(seq(oid('1.2.3'), NULL)))],
    ['policy constraints: not a SEQUENCE', ext('2.5.29.36', NULL)],
    ['policy constraints: a [0] beyond int64', ext('2.5.29.36', seq(tlv(0x80, Buffer.from([0, 0x80, 0, 0, 0, 0, 0, 0, 0]))))],
    ['policy constraints: a non-minimal [0]', ext('2.5.29.36', seq(tlv(0x80, Buffer.from([0, 1]))))],
    ['policy constraints: a non-minimal [1]', ext('2.5.29.36', seq(tlv(0x81, Buffer.from([0, 1]))))],
    ['policy constraints: an empty [1] after a good [0]', ext('2.5.29.36', seq(tlv(0x80, Buffer.from([1])), tlv(0x81)))],
    ['inhibit anyPolicy: not an INTEGER', ext('2.5.29.54', str(0x04, 'x'))],
    ['inhibit anyPolicy: beyond int64', ext('2.5.29.54', int(2n ** 64n))],
  ];
  for (const [what, e] of cases) {
    test(what, () => {
      assert.equal(accepts(e), false);
    });
  }
});

function set0(): Buffer {
  return tlv(0x31, seq());
}

describe('subject alternative names', () => {
  const san = (...names: Buffer[]) => ext('2.5.29.17', seq(...names));

  test('names of each kind Go checks', () => {
    assert.equal(accepts(san()), true);
    assert.equal(accepts(san(str(0x82, 'ca.example.com'), str(0x81, 'pki@example.com'), tlv(0x87, Buffer.from([10, 0, 0, 1])), tlv(0x87, Buffer.alloc(16, 1)), str(0x86, 'spiffe://example.org/ns/a'))), true);
    assert.equal(accepts(san(str(0x82, 'not a domain..'), str(0x81, 'not a mailbox'))), true, 'DNS names and emails are only IA5 checked');
    assert.equal(accepts(san(tlv(0xa0, seq(oid('1.2.3'), tlv(0xa0, NULL))), tlv(0xa4, seq()), str(0x88, 'x'), str(0x83, '\xff'), str(0x01, '\xff'))), true, 'other kinds are not checked');
  });

  test('non-IA5 DNS names, emails and URIs, and IP addresses of other lengths are refused', () => {
    for (const name of [str(0x82, 'd\xe9'), str(0x81, 'a\x80@b'), str(0x86, 'http://\xe9/'), tlv(0x87, Buffer.alloc(5)), tlv(0x87, Buffer.alloc(0)), tlv(0x87, Buffer.alloc(3)), tlv(0x87, Buffer.alloc(15)), tlv(0x87, Buffer.alloc(17))]) {
      assert.equal(accepts(san(name)), false, name.toString('hex'));
    }
  });

  test('a URI must parse, and a host it has must be a domain', () => {
    for (const [uri, ok] of [
      ['https://user:pw@example.com:8443/p?q=1#f', true],
      ['urn:uuid:1234', true],
      ['mailto:x@y', true],
      ['http://[::1]:80/', true],
      ['http://h.', false],
      ['http://a..b/', false],
      ['http://.h/', true],
      ['http://%zz/', false],
      ['http://a b/', false],
      [':x', false],
      ['http://h:port/', false],
    ] as const) {
      assert.equal(accepts(san(str(0x86, uri))), ok, uri);
    }
  });

  test('the extension must be a SEQUENCE of well-formed elements', () => {
    assert.equal(accepts(ext('2.5.29.17', NULL)), false);
    assert.equal(accepts(ext('2.5.29.17', seq(Buffer.from([0x82, 0x05, 0x61])))), false);
    assert.equal(accepts(ext('2.5.29.17', Buffer.alloc(0))), false);
  });
});

describe('name constraints', () => {
  const nc = (content: Buffer[]) => ext('2.5.29.30', seq(...content), true);
  const permitted = (...subtrees: Buffer[]) => tlv(0xa0, ...subtrees.map((s) => seq(s)));
  const excluded = (...subtrees: Buffer[]) => tlv(0xa1, ...subtrees.map((s) => seq(s)));

  test('permitted and excluded subtrees of each kind', () => {
    assert.equal(accepts(nc([permitted(str(0x82, '.example.com'), tlv(0x87, Buffer.from([10, 0, 0, 0, 255, 0, 0, 0])), str(0x81, 'a@example.com'), str(0x86, '.example.org')), excluded(str(0x82, 'bad.example.com'), str(0x81, '.mail.example.com'))])), true);
    assert.equal(accepts(nc([permitted(str(0x82, 'example.com'))])), true);
    assert.equal(accepts(nc([excluded(str(0x82, 'example.com'))])), true);
    assert.equal(accepts(nc([permitted(tlv(0xa4, seq()), str(0x83, '\xff'), str(0x88, 'x'))])), true, 'other kinds are not checked');
    assert.equal(accepts(nc([permitted(str(0x82, ''))])), true, 'an empty DNS constraint');
    assert.equal(accepts(nc([permitted(tlv(0x87, cat(Buffer.alloc(16), Buffer.alloc(16, 0xff))))])), true, 'an IPv6 constraint');
  });

  test('the envelope: a SEQUENCE holding [0] and/or [1], at least one non-empty, and nothing else', () => {
    for (const value of [seq(), seq(tlv(0xa0)), seq(tlv(0xa0), tlv(0xa1)), seq(tlv(0xa1)), NULL, seq(NULL), seq(permitted(str(0x82, 'a')), NULL), seq(excluded(str(0x82, 'a')), permitted(str(0x82, 'a'))), cat(seq(permitted(str(0x82, 'a'))), NULL)]) {
      assert.equal(accepts(ext('2.5.29.30', value)), false, value.toString('hex'));
    }
    assert.equal(accepts(nc([tlv(0xa0), excluded(str(0x82, 'a'))])), true, 'an empty permitted beside a non-empty excluded');
    assert.equal(accepts(nc([permitted(str(0x82, 'a')), tlv(0xa1)])), true);
    assert.equal(accepts(nc([Buffer.from([0xa0, 0x05, 0x30])])), false, 'a malformed [0]');
    assert.equal(accepts(nc([permitted(str(0x82, 'a')), Buffer.from([0xa1, 0x05, 0x30])])), false, 'a malformed [1]');
  });

  test('each subtree is a SEQUENCE holding a name', () => {
    assert.equal(accepts(nc([tlv(0xa0, str(0x82, 'a'))])), false);
    assert.equal(accepts(nc([tlv(0xa0, seq())])), false);
    assert.equal(accepts(nc([tlv(0xa1, seq(Buffer.from([0x82, 0x05, 0x61])))])), false);
    assert.equal(accepts(nc([excluded(str(0x82, 'a')), tlv(0xa1)])), false, 'a [1] twice');
  });

  test('DNS constraints: IA5 domains, one leading dot allowed', () => {
    for (const [name, ok] of [['a.b', true], ['.a.b', true], ['..a', true], ['a.', false], ['a..b', false], ['.', true], ['a b', false], ['d\xe9', false]] as const) {
      assert.equal(accepts(nc([permitted(str(0x82, name))])), ok, name);
      assert.equal(accepts(nc([excluded(str(0x82, name))])), ok, `excluded ${name}`);
    }
  });

  test('IP constraints: an address and a contiguous mask, of 8 or 32 bytes', () => {
    const ip = (...b: number[]) => accepts(nc([permitted(tlv(0x87, Buffer.from(b)))]));
    for (const m of [0x00, 0x80, 0xc0, 0xe0, 0xf0, 0xf8, 0xfc, 0xfe]) {
      assert.equal(ip(10, 0, 0, 0, 255, m, 0, 0), true, `mask ff ${m.toString(16)} 00 00`);
      assert.equal(ip(10, 0, 0, 0, 255, m, 0, 1), false, `mask ff ${m.toString(16)} 00 01`);
      assert.equal(ip(10, 0, 0, 0, m, 0, 0, 0), true);
    }
    assert.equal(ip(10, 0, 0, 0, 255, 255, 255, 255), true);
    assert.equal(ip(10, 0, 0, 0, 255, 0, 255, 0), false);
    assert.equal(ip(10, 0, 0, 0, 0x7f, 0, 0, 0), false);
    assert.equal(ip(10, 0, 0, 0, 0xff, 0x01, 0, 0), false);
    assert.equal(ip(10, 0, 0, 0), false);
    assert.equal(ip(10, 0, 0, 0, 255, 255, 255, 255, 0), false);
    assert.equal(ip(...new Array<number>(16).fill(0), ...new Array<number>(15).fill(255), 0x0f), false);
  });

  test('email constraints: a mailbox when it has @, else a domain with one leading dot allowed', () => {
    for (const [name, ok] of [['a@example.com', true], ['"q u"@example.com', true], ['example.com', true], ['.example.com', true], ['', true], ['a..b@c', false], ['@c', false], ['a@', true], ['a.', false], ['..a', true], ['a@b.', false], ['\xe9@b', false]] as const) {
      assert.equal(accepts(nc([permitted(str(0x81, name))])), ok, name);
    }
  });

  test('URI constraints: IA5 domains that are not IP addresses', () => {
    for (const [name, ok] of [['.example.com', true], ['example.com', true], ['10.0.0.1', false], ['::1', false], ['fe80::1%eth0', true], ['a..b', false], ['a.', false], ['\xe9.com', false], ['', true]] as const) {
      assert.equal(accepts(nc([permitted(str(0x86, name))])), ok, name);
    }
  });
});

describe('which extensions are Go’s', () => {
  const bad = Buffer.from('not DER');

  test('an unknown extension is accepted whatever it holds, critical or not', () => {
    for (const id of ['1.2.3.4', '2.5.29.99', '2.5.29.19.1', '2.5.28.19', '2.4.29.19', '1.5.29.19', '2.5.29', '1.3.6.1.5.5.7.1.2', '1.3.6.1.5.5.7.1.1.1', '2.5.29.16']) {
      assert.deepEqual(parse(BC_CA, ext(id, bad, true)), CA, id);
    }
  });

  test('each extension Go decodes refuses a value that is not DER', () => {
    for (const id of ['2.5.29.15', '2.5.29.19', '2.5.29.17', '2.5.29.30', '2.5.29.31', '2.5.29.35', '2.5.29.37', '2.5.29.14', '2.5.29.32', '2.5.29.33', '2.5.29.36', '2.5.29.54', '1.3.6.1.5.5.7.1.1']) {
      assert.equal(accepts(ext(id, bad)), false, id);
    }
  });

  test('key identifiers and authority info access may not be critical; other decoded extensions may', () => {
    assert.equal(accepts(ext('2.5.29.14', octets(Buffer.alloc(4)), true)), false);
    assert.equal(accepts(ext('2.5.29.35', seq(), true)), false);
    assert.equal(accepts(ext('1.3.6.1.5.5.7.1.1', seq(), true)), false);
    for (const e of [ext('2.5.29.37', seq(), true), ext('2.5.29.32', seq(), true), ext('2.5.29.31', seq(), true), ext('2.5.29.17', seq(), true), ext('2.5.29.54', int(1), true)]) {
      assert.equal(accepts(e), true, e.toString('hex'));
    }
  });
});

describe('Go 1.19’s rules, for the differential test', () => {
  const GO_1_19: GoRules = { go124: false };
  const run = (id: string, value: Buffer, critical = false) => {
    const v = Der.of(octets(value)).read(0x04)!;
    return processExtensions([{ id: id.split('.').map(Number), critical, value: v }], GO_1_19).ok;
  };

  test('Go 1.19 reads policies as OIDs and skips the policy extensions', () => {
    assert.equal(run('2.5.29.32', seq(seq(oid('1.2.3')), seq(oid('1.2.3')))), true);
    assert.equal(run('2.5.29.32', seq(seq(tlv(0x06, Buffer.from([0x2a, 0x80, 0x03]))))), true);
    assert.equal(run('2.5.29.32', seq(seq(tlv(0x06, Buffer.from([0x2a, 0x86]))))), false);
    assert.equal(run('2.5.29.32', seq(seq(oid('1.2.4294967296')))), false);
    assert.equal(run('2.5.29.33', NULL), true);
    assert.equal(run('2.5.29.36', NULL), true);
    assert.equal(run('2.5.29.54', NULL), true);
    assert.equal(run('2.5.29.14', octets(Buffer.alloc(1)), true), true);
    assert.equal(run('2.5.29.35', seq(), true), true);
    assert.equal(run('1.3.6.1.5.5.7.1.1', seq(), true), true);
    assert.equal(run('1.3.6.1.5.5.7.1.1', NULL), false);
  });
});
