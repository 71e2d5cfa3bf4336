import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorText, type FieldError } from '../../apimachinery/field-error.js';
import { makeCACert, makeLeafCert, toPEM, type TestCert } from '../../../test/fixtures/certs.js';
import { pemDecodeAll } from './pem-decode.js';
import { parseGoCertificate } from './go-x509/certificate.js';
import { validateClusterTrustBundle, validateClusterTrustBundleUpdate, validateSignerName, validateTrustBundle } from './validation.js';
import type { ClusterTrustBundle } from './types.js';

const texts = (errs: FieldError[]) => errs.map(fieldErrorText);
const bundleErr = (detail: string) => `spec.trustBundle: Invalid value: "<value omitted>": ${detail}`;

let ca1: TestCert;
let ca2: TestCert;
let leaf: TestCert;
before(async () => {
  [ca1, ca2, leaf] = await Promise.all([makeCACert({ commonName: 'one' }), makeCACert({ commonName: 'two' }), makeLeafCert()]);
});

const ctb = (name: string, trustBundle: string, signerName?: string): ClusterTrustBundle => ({
  apiVersion: 'certificates.platform.io/v1beta1',
  kind: 'ClusterTrustBundle',
  metadata: { name },
  spec: signerName ? { signerName, trustBundle } : { trustBundle },
});

describe('Go pem.Decode semantics', () => {
  const body = () => ca1.der.toString('base64');

  test('BEGIN only at the start of input or of a line', () => {
    assert.equal(pemDecodeAll(`junk\n-----BEGIN CERTIFICATE-----\n${body()}\n-----END CERTIFICATE-----\n`).length, 1);
    assert.equal(pemDecodeAll(`  -----BEGIN CERTIFICATE-----\n${body()}\n-----END CERTIFICATE-----\n`).length, 0);
  });

  test('CRLF line endings and trailing spaces on the END line are accepted', () => {
    const blocks = pemDecodeAll(`-----BEGIN CERTIFICATE-----\r\n${body()}\r\n-----END CERTIFICATE-----  \r\n`);
    assert.equal(blocks.length, 1);
    assert.deepEqual(blocks[0]!.bytes, ca1.der);
  });

  test('headers are parsed; running out of input while reading headers stops decoding', () => {
    const withHeaders = pemDecodeAll(`-----BEGIN CERTIFICATE-----\nProc-Type: 4,ENCRYPTED\n\n${body()}\n-----END CERTIFICATE-----\n`);
    assert.deepEqual(withHeaders[0]!.headers, { 'Proc-Type': '4,ENCRYPTED' });
    const good = toPEM(ca1.der);
    assert.equal(pemDecodeAll(`${good}-----BEGIN CERTIFICATE-----\nKey: value`).length, 1);
    // A header-only candidate fails to decode (its body would be the next BEGIN line) and is skipped.
    assert.equal(pemDecodeAll(`-----BEGIN CERTIFICATE-----\nKey: value\n${good}`).length, 1);
    // Lines with colons are all headers: the input runs out inside the headers and decoding stops.
    assert.equal(pemDecodeAll(`-----BEGIN CERTIFICATE-----\nKey: value\nMore: headers`).length, 0);
  });

  test('malformed candidates are skipped: bad base64, mismatched END type, junk after END', () => {
    const good = toPEM(ca2.der);
    for (const bad of [
      `-----BEGIN CERTIFICATE-----\n${body()}!\n-----END CERTIFICATE-----\n`,
      `-----BEGIN CERTIFICATE-----\n${body()}\n-----END OTHER-----\n`,
      `-----BEGIN CERTIFICATE-----\n${body()}\n-----END CERTIFICATE----- x\n`,
      `-----BEGIN CERTIFICATE-----\n${body().slice(0, 8)}=${body().slice(8)}\n-----END CERTIFICATE-----\n`,
    ]) {
      const blocks = pemDecodeAll(bad + good);
      assert.equal(blocks.length, 1, bad);
      assert.deepEqual(blocks[0]!.bytes, ca2.der);
    }
  });

  test('an empty block with END right after BEGIN', () => {
    const blocks = pemDecodeAll('-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n');
    assert.equal(blocks.length, 1);
    assert.equal(blocks[0]!.bytes.length, 0);
  });
});

describe('DER strictness', () => {
  test('trailing bytes and non-minimal lengths are rejected', () => {
    assert.deepEqual(parseGoCertificate(ca1.der), { ok: true, isCA: true });
    assert.deepEqual(parseGoCertificate(Buffer.concat([ca1.der, Buffer.from([1, 2, 3])])), { ok: false });
    assert.deepEqual(parseGoCertificate(Buffer.from([0x30, 0x81, 0x01, 0x00])), { ok: false });
  });
});

describe('trustBundle validation', () => {
  test('a valid bundle of two CA certificates, with data between blocks', () => {
    assert.deepEqual(validateTrustBundle(`preamble\n${ca1.pem}between\n${ca2.pem}`), []);
  });

  test('per-entry errors count every decoded block', () => {
    const garbage = toPEM(Buffer.concat([ca1.der, Buffer.from([0])]));
    const key = toPEM(Buffer.from('not a key'), 'PRIVATE KEY');
    const headers = `-----BEGIN CERTIFICATE-----\nA: b\n\n${ca2.der.toString('base64')}\n-----END CERTIFICATE-----\n`;
    assert.deepEqual(texts(validateTrustBundle(ca1.pem + key + headers + garbage + leaf.pem)), [
      bundleErr('entry 1 has bad block type: PRIVATE KEY'),
      bundleErr('entry 2 has PEM block headers'),
      bundleErr('entry 3 does not parse as X.509'),
      bundleErr('entry 4 does not have the CA bit set'),
    ]);
  });

  test('no anchors at all', () => {
    for (const v of ['', 'just text', '-----BEGIN CERTIFICATE-----\n!!!\n-----END CERTIFICATE-----\n']) {
      assert.deepEqual(texts(validateTrustBundle(v)), [bundleErr('at least one trust anchor must be provided')], JSON.stringify(v));
    }
  });

  test('duplicates by DER bytes, whatever the line wrapping', () => {
    const rewrapped = `-----BEGIN CERTIFICATE-----\n${ca1.der.toString('base64')}\n-----END CERTIFICATE-----\n`;
    assert.deepEqual(texts(validateTrustBundle(ca1.pem + ca2.pem + rewrapped)), [bundleErr('duplicate trust anchor (indices [0 2])')]);
  });

  test('size limit: 1 MiB of UTF-8 allowed, one byte more is TooLong', () => {
    const filler = (n: number) => ca1.pem + 'x'.repeat(n - Buffer.byteLength(ca1.pem));
    assert.deepEqual(validateTrustBundle(filler(1024 * 1024)), []);
    assert.deepEqual(texts(validateTrustBundle(filler(1024 * 1024 + 1))), ['spec.trustBundle: Too long: must have at most 1048576 bytes']);
  });
});

describe('signerName and the name rule', () => {
  test('signer name format', () => {
    assert.deepEqual(validateSignerName('example.com/my-signer'), []);
    assert.deepEqual(texts(validateSignerName('nodomain')), [
      "spec.signerName: Invalid value: \"nodomain\": must be a fully qualified domain and path of the form 'example.com/signer-name'",
    ]);
    assert.deepEqual(texts(validateSignerName('example/x')), ['spec.signerName: Invalid value: "example": should be a domain with at least two segments separated by dots']);
    const bad = texts(validateSignerName('Example.com/x'));
    assert.equal(bad.length, 1);
    assert.match(bad[0]!, /^spec.signerName: Invalid value: "Example.com": validating label "Example": a lowercase RFC 1123 label/);
    assert.match(texts(validateSignerName('example.com/'))[0]!, /^spec.signerName: Invalid value: "": validating label "": a lowercase RFC 1123 subdomain/);
  });

  test('name prefix with a signer, no colon without one', () => {
    assert.deepEqual(validateClusterTrustBundle(ctb('example.com:foo:abc', ca1.pem, 'example.com/foo')), []);
    assert.deepEqual(texts(validateClusterTrustBundle(ctb('abc', ca1.pem, 'example.com/foo'))), [
      'metadata.name: Invalid value: "abc": ClusterTrustBundle for signerName example.com/foo must be named with prefix example.com:foo:',
    ]);
    assert.deepEqual(texts(validateClusterTrustBundle(ctb('a:b', ca1.pem))), [
      'metadata.name: Invalid value: "a:b": ClusterTrustBundle without signer name must not have ":" in its name',
    ]);
  });

  test('errors come in order: metadata, signerName, trustBundle', () => {
    const errs = validateClusterTrustBundle(ctb('x', '', 'bad'));
    assert.deepEqual(errs.map((e) => e.field), ['metadata.name', 'spec.signerName', 'spec.trustBundle']);
  });
});

describe('update', () => {
  test('an unchanged bundle is not parsed again; signerName is immutable after the name rule', () => {
    const old = ctb('plain', 'no longer valid');
    assert.deepEqual(validateClusterTrustBundleUpdate({ ...old, metadata: { ...old.metadata, labels: { a: 'b' } } }, old), []);
    const moved = ctb('plain', 'no longer valid', 'example.com/foo');
    assert.deepEqual(texts(validateClusterTrustBundleUpdate(moved, old)), [
      'metadata.name: Invalid value: "plain": ClusterTrustBundle for signerName example.com/foo must be named with prefix example.com:foo:',
      'spec.signerName: Invalid value: "example.com/foo": field is immutable',
    ]);
  });
});
