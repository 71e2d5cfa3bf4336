// Over real HTTPS: a ClusterTrustBundle whose certificate Go's x509.ParseCertificate refuses
// (one byte of the validity time changed, as the fuzz run found; a negative serial number, which
// Go 1.24 refuses) is answered 422 with kube's message and is not stored, although Node's
// OpenSSL parses those certificates; an equivalent well-formed bundle is created.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { makeCACert, toPEM } from '../fixtures/certs.js';
import { buildCertificate, EXT, p256Key } from '../differential/x509/corpus.js';
import { startInProcessServer } from './in-process-server.js';
import type { TestServer } from './harness.js';

const CTB = '/apis/certificates.platform.io/v1beta1/clustertrustbundles';
const ctb = (name: string, trustBundle: string) => ({ apiVersion: 'certificates.platform.io/v1beta1', kind: 'ClusterTrustBundle', metadata: { name }, spec: { trustBundle } });
const detail = (i: number) => `Invalid value: "<value omitted>": entry ${i} does not parse as X.509`;

/** The certificate with the tens digit of notBefore's seconds set to 6 (e.g. "…00Z" → "…60Z"). */
function withBadSeconds(der: Buffer): Buffer {
  const at = der.indexOf(Buffer.from([0x17, 0x0d])); // the first UTCTime, YYMMDDhhmmssZ
  assert.ok(at > 0, 'the certificate has a UTCTime');
  const m = Buffer.from(der);
  m[at + 2 + 10] = 0x36;
  return m;
}

describe('trust bundles are parsed as strictly as Go crypto/x509', () => {
  let server: TestServer;
  before(async () => {
    server = await startInProcessServer();
  });
  after(() => server.stop());

  test('a certificate with a malformed UTCTime is 422 "entry N does not parse as X.509" and not stored', async () => {
    const [good, other] = await Promise.all([makeCACert({ commonName: 'good' }), makeCACert({ commonName: 'bad' })]);
    const bad = withBadSeconds(other.der);
    assert.doesNotThrow(() => new X509Certificate(bad), 'OpenSSL accepts the mutated certificate (the old parse stored it)');

    const r = await server.request('POST', CTB, { body: ctb('mutated', good.pem + toPEM(bad)) });
    assert.equal(r.status, 422, r.text);
    assert.equal(r.json.reason, 'Invalid');
    assert.equal(r.json.message, `ClusterTrustBundle.certificates.platform.io "mutated" is invalid: spec.trustBundle: ${detail(1)}`);
    assert.deepEqual(r.json.details.causes, [{ reason: 'FieldValueInvalid', message: detail(1), field: 'spec.trustBundle' }]);
    assert.equal((await server.request('GET', `${CTB}/mutated`)).status, 404);

    const ok = await server.request('POST', CTB, { body: ctb('unmutated', good.pem + other.pem) });
    assert.equal(ok.status, 201, ok.text);
  });

  test('an update that brings in such a certificate is refused the same way', async () => {
    const ca = await makeCACert({ commonName: 'update' });
    const created = await server.request('POST', CTB, { body: ctb('updated', ca.pem) });
    assert.equal(created.status, 201, created.text);
    const next = { ...created.json, spec: { trustBundle: toPEM(withBadSeconds(ca.der)) } };
    const r = await server.request('PUT', `${CTB}/updated`, { body: next });
    assert.equal(r.status, 422, r.text);
    assert.deepEqual(r.json.details.causes, [{ reason: 'FieldValueInvalid', message: detail(0), field: 'spec.trustBundle' }]);
  });

  test('Go 1.24 rules apply: a negative serial number is refused, the same certificate with a positive one is created', async () => {
    const key = p256Key();
    const negative = buildCertificate({ key, serial: -5n, extensions: [EXT.basicCA()] });
    const positive = buildCertificate({ key, serial: 5n, extensions: [EXT.basicCA()] });
    const r = await server.request('POST', CTB, { body: ctb('negative-serial', toPEM(negative)) });
    assert.equal(r.status, 422, r.text);
    assert.deepEqual(r.json.details.causes, [{ reason: 'FieldValueInvalid', message: detail(0), field: 'spec.trustBundle' }]);
    const ok = await server.request('POST', CTB, { body: ctb('positive-serial', toPEM(positive)) });
    assert.equal(ok.status, 201, ok.text);
  });
});
