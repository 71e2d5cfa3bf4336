// The certificates of the differential test: well-formed ones built field by field (every key
// type Go parses, plus key types it does not; names in each string type; with and without each
// extension Go decodes; UTCTime and GeneralizedTime) and their mutations: every byte changed,
// truncations, extensions, odd headers on every element, odd times, odd integers and OIDs.

import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { NULL, allNodes, bits, bool, cat, int, octets, oid, parseTree, seq, set, str, tlv, utf8, writeTree, type HeaderStyle } from './der-builder.js';

const ECDSA_SHA256 = seq(oid('1.2.840.10045.4.3.2'));
const SHA256_RSA = seq(oid('1.2.840.113549.1.1.11'), NULL);

// generateKeyPairSync's overloads are per key type; one loose signature serves every type here.
const generate = generateKeyPairSync as unknown as (type: string, options: object) => { publicKey: KeyObject };
const spki = (type: string, options: object = {}): Buffer => generate(type, options).publicKey.export({ type: 'spki', format: 'der' });

/** A P-256 SubjectPublicKeyInfo. */
export const p256Key = (): Buffer => spki('ec', { namedCurve: 'prime256v1' });

/** One SubjectPublicKeyInfo per key type (made once: DSA and RSA generation is slow). */
export function keyInfos(): Record<string, Buffer> {
  return {
    rsa: spki('rsa', { modulusLength: 1024 }),
    p224: spki('ec', { namedCurve: 'secp224r1' }),
    p256: spki('ec', { namedCurve: 'prime256v1' }),
    p384: spki('ec', { namedCurve: 'secp384r1' }),
    p521: spki('ec', { namedCurve: 'secp521r1' }),
    ed25519: spki('ed25519'),
    dsa: spki('dsa', { modulusLength: 1024, divisorLength: 160 }),
    x25519: spki('x25519'), // unknown to ParseCertificate: accepted unparsed
    ed448: spki('ed448'),
    secp256k1: spki('ec', { namedCurve: 'secp256k1' }), // ECDSA on a curve Go refuses
  };
}

const name = (...attrs: [string, Buffer][]): Buffer => seq(...attrs.map(([type, value]) => set(seq(oid(type), value))));
const ext = (id: string, value: Buffer, critical = false): Buffer => seq(oid(id), ...(critical ? [bool(true)] : []), octets(value));

export const EXT = {
  basicCA: (pathLen?: number) => ext('2.5.29.19', seq(bool(true), ...(pathLen === undefined ? [] : [int(pathLen)])), true),
  basicLeaf: () => ext('2.5.29.19', seq()),
  keyUsage: () => ext('2.5.29.15', bits(Buffer.from([0x06]), 1), true),
  skid: () => ext('2.5.29.14', octets(Buffer.alloc(20, 7))),
  akid: () => ext('2.5.29.35', seq(tlv(0x80, Buffer.alloc(20, 9)))),
  eku: () => ext('2.5.29.37', seq(oid('1.3.6.1.5.5.7.3.1'), oid('1.3.6.1.5.5.7.3.2'))),
  san: () =>
    ext(
      '2.5.29.17',
      seq(
        str(0x82, 'ca.example.com'),
        str(0x81, 'pki@example.com'),
        tlv(0x87, Buffer.from([10, 0, 0, 1])),
        tlv(0x87, Buffer.alloc(16, 1)),
        str(0x86, 'spiffe://example.org/ns/a'),
        str(0x86, 'https://user:pw@example.com:8443/p?q=1#f'),
      ),
    ),
  nameConstraints: () =>
    ext(
      '2.5.29.30',
      seq(
        tlv(0xa0, seq(str(0x82, '.example.com')), seq(tlv(0x87, Buffer.from([10, 0, 0, 0, 255, 0, 0, 0]))), seq(str(0x81, 'a@example.com')), seq(str(0x86, '.example.org'))),
        tlv(0xa1, seq(str(0x82, 'bad.example.com')), seq(str(0x81, '.mail.example.com'))),
      ),
      true,
    ),
  crl: () => ext('2.5.29.31', seq(seq(tlv(0xa0, tlv(0xa0, str(0x86, 'http://crl.example.com/ca.crl')))))),
  aia: () => ext('1.3.6.1.5.5.7.1.1', seq(seq(oid('1.3.6.1.5.5.7.48.1'), str(0x86, 'http://ocsp.example.com')), seq(oid('1.3.6.1.5.5.7.48.2'), str(0x86, 'http://ca.example.com/ca.crt')))),
  policies: () => ext('2.5.29.32', seq(seq(oid('2.5.29.32.0')), seq(oid('1.3.6.1.4.1.11129.2.5.1')))),
  policyMappings: () => ext('2.5.29.33', seq(seq(oid('1.2.3.4'), oid('1.2.3.5'))), true),
  policyConstraints: () => ext('2.5.29.36', seq(tlv(0x80, Buffer.from([0])), tlv(0x81, Buffer.from([1]))), true),
  inhibitAny: () => ext('2.5.29.54', int(0), true),
  unknownCritical: () => ext('1.2.3.4.5.6', octets(Buffer.from('x')), true),
};

export interface CertSpec {
  key: Buffer;
  extensions?: Buffer[];
  version?: number;
  serial?: bigint;
  notBefore?: Buffer;
  notAfter?: Buffer;
  subject?: Buffer;
  sigAlg?: Buffer;
}

export const utcTime = (s: string): Buffer => str(0x17, s);
export const generalizedTime = (s: string): Buffer => str(0x18, s);

/** A certificate assembled from parts, with a fixed fake signature. */
export function buildCertificate(spec: CertSpec): Buffer {
  const sigAlg = spec.sigAlg ?? ECDSA_SHA256;
  const version = spec.version ?? 3;
  const issuer = name(['2.5.4.6', str(0x13, 'DE')], ['2.5.4.10', utf8('Example Ünïcode')], ['2.5.4.3', str(0x13, 'Example Root CA')]);
  const tbs = seq(
    ...(version === 1 ? [] : [tlv(0xa0, int(version - 1))]),
    int(spec.serial ?? 0x1234567890abcdefn),
    sigAlg,
    issuer,
    seq(spec.notBefore ?? utcTime('250101000000Z'), spec.notAfter ?? generalizedTime('20550101000000Z')),
    spec.subject ?? issuer,
    spec.key,
    ...(version === 3 && spec.extensions?.length ? [tlv(0xa3, seq(...spec.extensions))] : []),
  );
  return seq(tbs, sigAlg, bits(Buffer.alloc(64, 0x5a)));
}

/** The well-formed starting points. */
export function baseCertificates(keys: Record<string, Buffer>): Buffer[] {
  const allExt = [EXT.basicCA(2), EXT.keyUsage(), EXT.skid(), EXT.akid(), EXT.eku(), EXT.san(), EXT.nameConstraints(), EXT.crl(), EXT.aia(), EXT.policies(), EXT.unknownCritical()];
  const stringsSubject = name(
    ['2.5.4.3', str(0x14, 'T61 Ä\xe9')],
    ['2.5.4.10', tlv(0x1e, Buffer.from('00420004d0', 'hex'))], // BMPString "BMP"
    ['1.2.840.113549.1.9.1', str(0x16, 'ia5@example.com')],
    ['2.5.4.5', str(0x12, '12 34')],
  );
  return [
    buildCertificate({ key: keys.p256!, extensions: [EXT.basicCA()] }),
    buildCertificate({ key: keys.rsa!, sigAlg: SHA256_RSA, extensions: allExt }),
    buildCertificate({ key: keys.p224!, extensions: [EXT.basicCA(0), EXT.keyUsage()], subject: stringsSubject }),
    buildCertificate({ key: keys.p384!, extensions: [EXT.basicCA(), EXT.policyMappings(), EXT.policyConstraints(), EXT.inhibitAny()] }),
    buildCertificate({ key: keys.p521!, extensions: [EXT.basicCA(), EXT.san()], notBefore: generalizedTime('19991231235959Z'), notAfter: utcTime('491231235959Z') }),
    buildCertificate({ key: keys.ed25519!, extensions: [EXT.basicCA(), EXT.nameConstraints()], notBefore: utcTime('2401010000Z'), notAfter: utcTime('491231235959+0100') }),
    buildCertificate({ key: keys.dsa!, extensions: [EXT.basicCA(), EXT.crl(), EXT.aia()] }),
    buildCertificate({ key: keys.x25519!, extensions: [EXT.basicCA(), EXT.eku(), EXT.policies()] }),
    buildCertificate({ key: keys.ed448!, extensions: [EXT.basicLeaf(), EXT.skid(), EXT.akid()] }),
    buildCertificate({ key: keys.p256!, version: 1 }),
    buildCertificate({ key: keys.p256!, version: 2 }),
    buildCertificate({ key: keys.p256!, extensions: [] }),
  ];
}

/** Each byte changed to a few values (xor 0x01, xor 0x80, 0x00, 0xff, +1). */
export function* byteMutations(der: Buffer, stride = 1): Generator<Buffer> {
  for (let i = 0; i < der.length; i += stride) {
    const seen = new Set<number>([der[i]!]);
    for (const v of [der[i]! ^ 0x01, der[i]! ^ 0x80, 0x00, 0xff, (der[i]! + 1) & 0xff]) {
      if (seen.has(v)) continue;
      seen.add(v);
      const m = Buffer.from(der);
      m[i] = v;
      yield m;
    }
  }
}

/** Truncated at every length, a byte inserted at every position, bytes appended. */
export function* lengthMutations(der: Buffer, stride = 1): Generator<Buffer> {
  for (let n = 0; n < der.length; n += stride) yield der.subarray(0, n);
  for (let i = 0; i <= der.length; i += stride) yield cat(der.subarray(0, i), Buffer.from([0]), der.subarray(i));
  yield cat(der, Buffer.from([0]));
  yield cat(der, Buffer.from([0, 0]));
  yield cat(der, der);
}

/** Every element's header encoded in each lenient BER way; every element's tag replaced. */
export function* structureMutations(der: Buffer): Generator<Buffer> {
  const tree = parseTree(der);
  const nodes = allNodes(tree);
  const styles: HeaderStyle[] = ['long-form', 'leading-zero', 'indefinite', 'high-tag', 'five-byte'];
  for (const node of nodes) {
    for (const style of styles) yield writeTree(tree, node, style);
    const tag = node.tag;
    for (const t of [0x02, 0x04, 0x05, 0x06, 0x0c, 0x13, 0x16, 0x17, 0x18, 0x1e, 0x30, 0x31, 0x80, 0xa0, tag ^ 0x20]) {
      if (t === tag) continue;
      node.tag = t;
      yield writeTree(tree);
      node.tag = tag;
    }
  }
}

/** Validity texts around every rule of Go's time parsing. */
export function oddTimes(): Buffer[] {
  const utc = [
    '250101000000Z', '2501010000Z', '250101000000+0100', '2501010000-0130', '250101000000+0000', '250101000000-0000',
    '250101000000+2400', '250101000000+2500', '250101000000+9959', '250101000000+0160', '250101000000+01', '250101000000',
    '250101000060Z', '250101006000Z', '250101240000Z', '250132000000Z', '250229000000Z', '240229000000Z', '000229000000Z',
    '250431000000Z', '251301000000Z', '250001000000Z', '250100000000Z', '250101000000.5Z', '25010100000Z', '2501010000000Z',
    '250101000000z', '250101000000Z ', ' 250101000000Z', '+50101000000Z', '2501010000+5Z', '25010100000+Z', '2501010a0000Z',
    '500101000000Z', '491231235959Z', '690229000000Z', '680229000000Z', '', 'Z', '250101000000+0100Z',
  ];
  const gen = [
    '20250101000000Z', '20250101000000.5Z', '202501010000Z', '20250101000000+0100', '20250101000000+0000', '20250101000000+3000',
    '20000229000000Z', '19000229000000Z', '21000229000000Z', '24000229000000Z', '00000101000000Z', '99991231235959Z',
    '20250101000060Z', '2025010100000Z', '020250101000000Z', '20250101000000', '2025-01-01000000Z', '20250101000000,5Z',
  ];
  return [...utc.map((s) => str(0x17, s)), ...gen.map((s) => str(0x18, s)), int(5), str(0x13, '250101000000Z')];
}

export function* timeMutations(key: Buffer): Generator<Buffer> {
  for (const t of oddTimes()) {
    yield buildCertificate({ key, extensions: [EXT.basicCA()], notBefore: t });
    yield buildCertificate({ key, extensions: [EXT.basicCA()], notAfter: t });
  }
}

/** Serial numbers, versions, basic constraints and OIDs at their edges. */
export function* fieldMutations(keys: Record<string, Buffer>): Generator<Buffer> {
  const key = keys.p256!;
  for (const serial of [0n, 1n, -1n, 127n, 128n, -128n, -129n, 2n ** 159n, -(2n ** 159n), 2n ** 1024n]) yield buildCertificate({ key, serial, extensions: [EXT.basicCA()] });
  for (const version of [1, 2, 3]) for (const extensions of [[EXT.basicCA()], []]) yield buildCertificate({ key, version, extensions });
  for (const v of [-1, 0, 3, 4, 255]) {
    const der = buildCertificate({ key, extensions: [EXT.basicCA()] });
    const tbsStart = der.indexOf(Buffer.from([0xa0, 0x03, 0x02, 0x01, 0x02]));
    const m = Buffer.from(der);
    m[tbsStart + 4] = v & 0xff;
    yield m;
  }
  const bc = (...c: Buffer[]) => ext('2.5.29.19', seq(...c), true);
  for (const e of [
    bc(bool(true), int(-1)), bc(bool(true), int(2n ** 63n - 1n)), bc(bool(true), int(2n ** 63n)), bc(bool(false)), bc(int(0)), bc(bool(true), bool(true)),
    ext('2.5.29.19', seq(bool(true)), false), ext('2.5.29.19', cat(seq(bool(true)), Buffer.from([1, 2]))), ext('2.5.29.19', int(1)),
    ext('2.5.29.19', seq(tlv(0x01, Buffer.from([1])))), ext('2.5.29.19', seq(tlv(0x01, Buffer.from([0xff, 0xff])))),
  ])
    yield buildCertificate({ key, extensions: [e] });
  // Duplicate extensions, critical key identifiers, policy edge cases, SAN and name constraint texts.
  yield buildCertificate({ key, extensions: [EXT.basicCA(), EXT.basicCA()] });
  yield buildCertificate({ key, extensions: [EXT.basicCA(), EXT.skid(), ext('2.5.29.14', octets(Buffer.alloc(4)))] });
  for (const critical of [ext('2.5.29.14', octets(Buffer.alloc(4)), true), ext('2.5.29.35', seq(), true), ext('1.3.6.1.5.5.7.1.1', seq(), true)]) yield buildCertificate({ key, extensions: [EXT.basicCA(), critical] });
  const policy = (...oids: Buffer[]) => ext('2.5.29.32', seq(...oids.map((o) => seq(o))));
  for (const p of [
    policy(oid('1.2.3'), oid('1.2.3')), policy(oid('1.2.4294967296')), policy(tlv(0x06, Buffer.from([0x2a, 0x80, 0x01]))), policy(tlv(0x06, Buffer.from([0x2a, 0x81]))), policy(tlv(0x06, Buffer.alloc(0))),
  ])
    yield buildCertificate({ key, extensions: [EXT.basicCA(), p] });
  const san = (...names: Buffer[]) => ext('2.5.29.17', seq(...names));
  for (const uri of ['http://[::1]:80/', 'http://[::1', 'http://host:port/', 'http://a b/', 'http://%41/', 'http://%zz/', 'http://h/%', '//h/p', 'a:b', ':x', '*', 'x/y:z', 'http://h.', 'http://.h', 'http://a..b', 'mailto:x@y', 'http://u@h@h2/', 'http://[fe80::1%25eth0]/', 'http://[fe80::1%eth0]/', 'http://h/#%', 'http://h\x01/', 'http://h/#\x01', 'http://\xe9/'])
    yield buildCertificate({ key, extensions: [EXT.basicCA(), san(str(0x86, uri))] });
  for (const n of [str(0x82, 'd\xe9'), str(0x81, 'a\x80@b'), tlv(0x87, Buffer.alloc(5)), tlv(0x87, Buffer.alloc(0)), tlv(0xa0, seq()), str(0x88, 'x'), san()]) yield buildCertificate({ key, extensions: [EXT.basicCA(), san(n)] });
  const nc = (permitted: Buffer[], excluded?: Buffer[]) => ext('2.5.29.30', seq(...(permitted.length ? [tlv(0xa0, ...permitted.map((p) => seq(p)))] : []), ...(excluded ? [tlv(0xa1, ...excluded.map((p) => seq(p)))] : [])), true);
  for (const c of [
    nc([]), nc([], []), nc([str(0x82, '')]), nc([str(0x82, 'a..b')]), nc([str(0x82, '.a')]), nc([str(0x82, '..a')]), nc([tlv(0x87, Buffer.from([10, 0, 0, 0, 255, 0, 255, 0]))]),
    nc([tlv(0x87, Buffer.alloc(4))]), nc([str(0x81, '"q u"@example.com')]), nc([str(0x81, 'a..b@c')]), nc([str(0x81, '@c')]), nc([str(0x81, 'a@')]), nc([str(0x81, 'a\\@b@c')]),
    nc([str(0x86, '10.0.0.1')]), nc([str(0x86, '::1')]), nc([str(0x86, 'fe80::1%eth0')]), nc([str(0x86, '.example.com')]), nc([str(0x83, 'x')]),
  ])
    yield buildCertificate({ key, extensions: [EXT.basicCA(), c] });
  // Names: each string type with bytes it forbids.
  for (const v of [str(0x13, 'a_b'), str(0x13, 'a*&b'), tlv(0x0c, Buffer.from([0xc3])), tlv(0x1e, Buffer.from([0, 0x41, 0])), tlv(0x1e, Buffer.from([0xd8, 0x00])), tlv(0x1e, Buffer.from([0xff, 0xfe])), tlv(0x1e, Buffer.from([0, 0x41, 0, 0])), str(0x16, 'a\x80'), str(0x12, '12a'), str(0x14, '\xff'), int(1), tlv(0x03, Buffer.from([0, 1])), tlv(0x1c, Buffer.from('abcd'))])
    yield buildCertificate({ key, extensions: [EXT.basicCA()], subject: name(['2.5.4.3', v]) });
  // Key algorithm parameters and points.
  const p256 = keys.p256!;
  const ecKeyWith = (params: Buffer, point: Buffer) => seq(seq(oid('1.2.840.10045.2.1'), params), bits(point));
  const point = p256.subarray(p256.length - 65);
  const offCurve = Buffer.from(point);
  offCurve[64] = offCurve[64]! ^ 1;
  for (const k of [
    ecKeyWith(oid('1.2.840.10045.3.1.7'), point), ecKeyWith(oid('1.2.840.10045.3.1.7'), offCurve), ecKeyWith(oid('1.2.840.10045.3.1.7'), cat(Buffer.from([2]), point.subarray(1, 33))),
    ecKeyWith(oid('1.3.132.0.34'), point), ecKeyWith(NULL, point), seq(seq(oid('1.2.840.10045.2.1')), bits(point)), seq(seq(oid('1.3.101.112'), NULL), bits(Buffer.alloc(32))),
    seq(seq(oid('1.3.101.112')), bits(Buffer.alloc(31))), seq(seq(oid('1.2.840.113549.1.1.1')), bits(seq(int(12345), int(3)))), seq(seq(oid('1.2.840.113549.1.1.1'), NULL), bits(seq(int(-5), int(3)))),
    seq(seq(oid('1.2.840.113549.1.1.1'), NULL), bits(seq(int(12345), int(0)))), seq(seq(oid('1.2.840.113549.1.1.1'), NULL), bits(seq(int(12345), int(2n ** 64n)))), seq(seq(oid('1.2.840.113549.1.1.1'), NULL), bits(seq(int(12345), int(3)), 1)),
    seq(seq(oid('1.2.840.10040.4.1'), seq(int(1), int(1), int(0))), bits(int(5))), seq(seq(oid('1.2.840.10040.4.1'), seq(int(1), int(1), int(1))), bits(int(5))), seq(seq(oid('1.2.3.4'), NULL, NULL), bits(Buffer.alloc(3))),
  ])
    yield buildCertificate({ key: k, extensions: [EXT.basicCA()] });
}
