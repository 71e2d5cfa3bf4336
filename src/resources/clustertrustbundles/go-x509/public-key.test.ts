// The public keys ParseCertificate parses, as Go's parsePublicKey judges them: real keys of each
// type Node makes, then each check it makes broken on its own (parameters, integer signs and
// sizes, point form and range, key lengths). Every verdict here was compared with Go's own
// x509.ParseCertificate on a certificate carrying the key.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { NULL, bits, cat, int, oid, seq, tlv } from '../../../../test/differential/x509/der-builder.js';
import { buildCertificate, EXT } from '../../../../test/differential/x509/corpus.js';
import { parseGoCertificate } from './certificate.js';
import { curveForTest, KEY_DSA, KEY_ECDSA, KEY_ED25519, KEY_RSA, publicKeyValid, validPoint } from './public-key.js';

const generate = generateKeyPairSync as unknown as (type: string, options: object) => { publicKey: KeyObject };
const spki = (type: string, options: object = {}): Buffer => generate(type, options).publicKey.export({ type: 'spki', format: 'der' });
const arcs = (dotted: string): number[] => dotted.split('.').map(Number);
const GO = { go124: true };

// RSA and DSA keys made once by Node's generateKeyPairSync (RSA 1024 bits; DSA 1024/160): making
// them takes up to a second, and mutation testing runs this file once per mutant.
const RSA_SPKI = Buffer.from([
    'MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQC4UL4O1wvVLdBech1gH2mr0Te850VZTZDDsu/HLAH4Ep66yZHHHoBCmrSQ81AR',
    'zbIL+1TiSmUJ8jtcGwmlvINIjIxmieOrqOC7K6+EPP17PaY6ejKTW67if32cO0FNKllL83CCdfksQSbWpA0AaLKyK+AIPwx725+r',
    'VhBtc2QVEwIDAQAB',
  ].join(''), 'base64');
const DSA_SPKI = Buffer.from([
    'MIIBtjCCASsGByqGSM44BAEwggEeAoGBAINT2rG0APOFswhKzvK8xAZS6Es7LKizsOMjOlCws9npcJgvbmAzNg0eOd9OMfCr0hte',
    'XSdqlTwYvuL7kCcZhrT+qs2Zz/caUmYI8qzUOE9pCgF/3NsB4LkTivqTqpnzapuUSnqI4hRiOwV38mCQf3JCkllqRbW8YU7hJyhu',
    'lIgbAhUA4xKdpxYPCbaz258a2ibeocoQavsCgYATJPoiLoqiqtnCthmoH9yiffhsXzmBYyrgnGX1LxjsHiXJAq183jYI6Diosm3u',
    '4LJEz8/SqZ0WE6rjevnkCTiSiusm0pjuDDpCbIk2NSG/6T11mBSqFt6oRDt3WLI7eIu8MAiz4NMFzkAxAviMdGibq8i1aeHgqzQr',
    'I0DJr5sf7wOBhAACgYAI4cmb3V5xhotv9LI1C8OopNxQncXmZREhZhVKhGLAlF/ROSBC/jXd9jLS4DVWdu1/lwVn94MIHwFKqErn',
    'qKdaG/romdR92lCHUvTU7qIVzGmWXXqwZ7arnZC/5JMNAf2BQuxE+GSgRrnX3Eb++r4M9nGYt7q42x4kHc6dB3CMcA==',
  ].join(''), 'base64');

/** A SubjectPublicKeyInfo of `algorithm` with `params` (omitted when undefined) and the key bits. */
const keyInfo = (algorithm: string, params: Buffer | undefined, key: Buffer, unusedBits = 0): Buffer =>
  seq(seq(oid(algorithm), ...(params ? [params] : [])), bits(key, unusedBits));
/** ParseCertificate of a CA certificate with this key succeeds. */
const accepts = (spkiDer: Buffer): boolean => parseGoCertificate(buildCertificate({ key: spkiDer, extensions: [EXT.basicCA()] })).ok;

const rsaKey = (n: bigint | Buffer, e: bigint | Buffer) => seq(typeof n === 'bigint' ? int(n) : n, typeof e === 'bigint' ? int(e) : e);
const N = 0xc0ffee_0000_0000_0000_0001n;

describe('RSA', () => {
  test('a real key, with NULL parameters', () => {
    assert.equal(accepts(RSA_SPKI), true);
    assert.equal(accepts(keyInfo(KEY_RSA, NULL, rsaKey(N, 65537n))), true);
  });

  test('the parameters must be exactly NULL', () => {
    assert.equal(accepts(keyInfo(KEY_RSA, undefined, rsaKey(N, 3n))), false);
    assert.equal(accepts(keyInfo(KEY_RSA, tlv(0x04), rsaKey(N, 3n))), false);
    assert.equal(accepts(keyInfo(KEY_RSA, seq(), rsaKey(N, 3n))), false);
    assert.equal(accepts(keyInfo(KEY_RSA, tlv(0x05, Buffer.from([0])), rsaKey(N, 3n))), false);
    assert.equal(publicKeyValid(arcs(KEY_RSA), Buffer.from([0x05, 0x01]), { bytes: rsaKey(N, 3n), bitLength: 0 }, GO), false);
  });

  test('modulus and exponent must be positive; the exponent must fit an int64', () => {
    assert.equal(accepts(keyInfo(KEY_RSA, NULL, rsaKey(1n, 1n))), true);
    assert.equal(accepts(keyInfo(KEY_RSA, NULL, rsaKey(N, 2n ** 63n - 1n))), true);
    assert.equal(accepts(keyInfo(KEY_RSA, NULL, rsaKey(0n, 3n))), false);
    assert.equal(accepts(keyInfo(KEY_RSA, NULL, rsaKey(-N, 3n))), false);
    assert.equal(accepts(keyInfo(KEY_RSA, NULL, rsaKey(N, 0n))), false);
    assert.equal(accepts(keyInfo(KEY_RSA, NULL, rsaKey(N, -3n))), false);
    assert.equal(accepts(keyInfo(KEY_RSA, NULL, rsaKey(N, 2n ** 63n))), false);
  });

  test('the key must be a SEQUENCE of two minimal INTEGERs; anything after them is ignored', () => {
    assert.equal(accepts(keyInfo(KEY_RSA, NULL, seq(int(N)))), false);
    assert.equal(accepts(keyInfo(KEY_RSA, NULL, cat(int(N), int(3)))), false);
    assert.equal(accepts(keyInfo(KEY_RSA, NULL, rsaKey(tlv(0x02, Buffer.from([0, 1])), 3n))), false);
    assert.equal(accepts(keyInfo(KEY_RSA, NULL, rsaKey(N, tlv(0x02, Buffer.from([0, 3]))))), false);
    assert.equal(accepts(keyInfo(KEY_RSA, NULL, seq(int(N), int(3), int(7)))), true);
    assert.equal(accepts(keyInfo(KEY_RSA, NULL, cat(rsaKey(N, 3n), Buffer.from([1, 2, 3])))), true);
  });

  test('the key’s bits are right-aligned before they are read', () => {
    // A key with one unused bit: the bits are the DER shifted left by one, and right-aligning
    // them gives the DER back. Unshifted, the same DER right-aligns into something else.
    const key = rsaKey(N, 4n);
    const shifted = Buffer.from(key.map((b, i) => ((b << 1) | ((key[i + 1] ?? 0) >> 7)) & 0xff));
    assert.equal(accepts(keyInfo(KEY_RSA, NULL, shifted, 1)), true);
    assert.equal(accepts(keyInfo(KEY_RSA, NULL, key, 1)), false);
  });
});

describe('ECDSA', () => {
  const curves = [
    ['secp224r1', '1.3.132.0.33', 28],
    ['prime256v1', '1.2.840.10045.3.1.7', 32],
    ['secp384r1', '1.3.132.0.34', 48],
    ['secp521r1', '1.3.132.0.35', 66],
  ] as const;

  test('a real key of each NIST curve, only under its own curve', () => {
    for (const [name, curveOid, size] of curves) {
      const der = spki('ec', { namedCurve: name });
      const point = der.subarray(der.length - (1 + 2 * size));
      assert.equal(accepts(der), true, name);
      for (const [other, otherOid] of curves) {
        assert.equal(accepts(keyInfo(KEY_ECDSA, oid(otherOid), point)), other === name, `${name} point as ${other}`);
      }
      assert.equal(accepts(keyInfo(KEY_ECDSA, oid(curveOid), cat(point, Buffer.from([0])))), false, `${name} with a byte more`);
      assert.equal(accepts(keyInfo(KEY_ECDSA, oid(curveOid), point.subarray(0, point.length - 1))), false, `${name} with a byte less`);
    }
  });

  test('other curves and parameters that are not a curve OID are refused', () => {
    const point = spki('ec', { namedCurve: 'prime256v1' }).subarray(-65);
    assert.equal(accepts(spki('ec', { namedCurve: 'secp256k1' })), false);
    assert.equal(accepts(keyInfo(KEY_ECDSA, NULL, point)), false);
    assert.equal(accepts(keyInfo(KEY_ECDSA, undefined, point)), false);
    assert.equal(accepts(keyInfo(KEY_ECDSA, tlv(0x06), point)), false);
    assert.equal(accepts(keyInfo(KEY_ECDSA, cat(oid('1.2.840.10045.3.1.7'), NULL), point)), true, 'bytes after the curve OID are ignored');
  });

  test('points: uncompressed only, coordinates below p, on the curve', () => {
    const c = curveForTest('1.2.840.10045.3.1.7')!;
    const point = Buffer.from(spki('ec', { namedCurve: 'prime256v1' }).subarray(-65));
    assert.equal(validPoint(c, point), true);
    const compressed = cat(Buffer.from([2 + (point[64]! & 1)]), point.subarray(1, 33));
    assert.equal(validPoint(c, compressed), false);
    for (const prefix of [0x00, 0x02, 0x03, 0x06, 0x07]) assert.equal(validPoint(c, cat(Buffer.from([prefix]), point.subarray(1))), false, `prefix ${prefix}`);
    assert.equal(validPoint(c, Buffer.from([0])), false, 'the point at infinity');
    const off = Buffer.from(point);
    off[1] = off[1]! ^ 0x40;
    assert.equal(validPoint(c, off), false);
  });

  const be = (v: bigint, size: number): Buffer => Buffer.from(v.toString(16).padStart(size * 2, '0'), 'hex');
  const modPow = (b: bigint, e: bigint, m: bigint): bigint => {
    let r = 1n;
    for (b %= m; e > 0n; e >>= 1n, b = (b * b) % m) if (e & 1n) r = (r * b) % m;
    return r;
  };

  test('a coordinate of p or more is refused even when it is on the curve modulo p', () => {
    // x = 0 is on P-256 and P-521 (b is a square and p ≡ 3 mod 4, so y = b^((p+1)/4)).
    for (const [curveOid, size] of [['1.2.840.10045.3.1.7', 32], ['1.3.132.0.35', 66]] as const) {
      const c = curveForTest(curveOid)!;
      const y = modPow(c.b, (c.p + 1n) / 4n, c.p);
      assert.equal((y * y) % c.p, c.b);
      assert.equal(validPoint(c, cat(Buffer.from([4]), be(0n, size), be(y, size))), true, curveOid);
      assert.equal(validPoint(c, cat(Buffer.from([4]), be(c.p, size), be(y, size))), false, `${curveOid}: x = p`);
      assert.equal(validPoint(c, cat(Buffer.from([4]), be(c.p - 1n, size), be(y, size))), false, `${curveOid}: x = p − 1 is another point`);
    }
    // P-521's 66 bytes hold y + p as well.
    const c = curveForTest('1.3.132.0.35')!;
    const y = modPow(c.b, (c.p + 1n) / 4n, c.p);
    assert.equal(validPoint(c, cat(Buffer.from([4]), be(0n, 66), be(y + c.p, 66))), false, 'y + p');
    assert.equal(validPoint(c, cat(Buffer.from([4]), be(0n, 66), be(c.p - y, 66))), true, '−y');
  });
});

describe('Ed25519', () => {
  test('32 bytes and no parameters', () => {
    assert.equal(accepts(spki('ed25519')), true);
    assert.equal(accepts(keyInfo(KEY_ED25519, undefined, Buffer.alloc(32))), true);
    assert.equal(accepts(keyInfo(KEY_ED25519, undefined, Buffer.alloc(31))), false);
    assert.equal(accepts(keyInfo(KEY_ED25519, undefined, Buffer.alloc(33))), false);
    assert.equal(accepts(keyInfo(KEY_ED25519, NULL, Buffer.alloc(32))), false);
  });
});

describe('DSA', () => {
  const dsa = (y: Buffer, params: Buffer | undefined) => keyInfo(KEY_DSA, params, y);
  const pqg = (p: bigint, q: bigint, g: bigint) => seq(int(p), int(q), int(g));

  test('a real key', () => {
    assert.equal(accepts(DSA_SPKI), true);
    assert.equal(accepts(dsa(int(5), pqg(23n, 11n, 4n))), true);
  });

  test('y, p, q and g must all be positive INTEGERs', () => {
    for (const [y, p, q, g] of [[0n, 23n, 11n, 4n], [5n, 0n, 11n, 4n], [5n, 23n, 0n, 4n], [5n, 23n, 11n, 0n], [-5n, 23n, 11n, 4n], [5n, -23n, 11n, 4n], [5n, 23n, -11n, 4n], [5n, 23n, 11n, -4n]] as const) {
      assert.equal(accepts(dsa(int(y), pqg(p, q, g))), false, `${y} ${p} ${q} ${g}`);
    }
  });

  test('the parameters must be a SEQUENCE of three INTEGERs; the key an INTEGER', () => {
    assert.equal(accepts(dsa(int(5), undefined)), false);
    assert.equal(accepts(dsa(int(5), NULL)), false);
    assert.equal(accepts(dsa(int(5), seq(int(23), int(11)))), false);
    assert.equal(accepts(dsa(int(5), seq(int(23)))), false);
    assert.equal(accepts(dsa(int(5), seq())), false);
    assert.equal(accepts(dsa(int(5), seq(int(23), int(11), tlv(0x02, Buffer.from([0, 4]))))), false);
    assert.equal(accepts(dsa(int(5), seq(int(23), int(11), int(4), int(9)))), true, 'a fourth parameter is ignored');
    assert.equal(accepts(dsa(tlv(0x04, Buffer.from([5])), pqg(23n, 11n, 4n))), false);
    assert.equal(accepts(dsa(tlv(0x02, Buffer.from([0, 5])), pqg(23n, 11n, 4n))), false);
  });
});

describe('other algorithms', () => {
  test('any other key algorithm is accepted without being parsed', () => {
    assert.equal(accepts(spki('x25519')), true);
    assert.equal(accepts(spki('ed448')), true);
    assert.equal(accepts(keyInfo('1.2.3.4', cat(NULL, NULL), Buffer.from('not a key'))), true);
    assert.equal(publicKeyValid(arcs('1.2.840.113549.1.1.2'), new Uint8Array(0), { bytes: new Uint8Array(0), bitLength: 0 }, GO), true);
  });

  test('the key’s algorithm is matched by its whole OID', () => {
    const point = spki('ec', { namedCurve: 'prime256v1' }).subarray(-65);
    assert.equal(publicKeyValid(arcs(KEY_ECDSA), oid('1.2.840.10045.3.1.7'), { bytes: point, bitLength: 520 }, GO), true);
    assert.equal(publicKeyValid(arcs(KEY_ECDSA), oid('1.2.840.10045.3.1.7'), { bytes: point.subarray(1), bitLength: 512 }, GO), false);
    assert.equal(publicKeyValid(arcs(`${KEY_ECDSA}.1`), NULL, { bytes: point.subarray(1), bitLength: 512 }, GO), true);
  });
});
