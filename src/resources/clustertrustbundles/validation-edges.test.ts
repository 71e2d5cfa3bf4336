// ClusterTrustBundle validation edges the first mutation run found open: the signer's domain
// length and every label checked, a bundle's parse errors before its duplicates, a missing spec,
// and updates that change the bundle or the metadata.

import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorText } from '../../apimachinery/field-error.js';
import { makeCACert, type TestCert } from '../../../test/fixtures/certs.js';
import { validateClusterTrustBundle, validateClusterTrustBundleUpdate, validateSignerName, validateTrustBundle } from './validation.js';
import type { ClusterTrustBundle } from './types.js';

const texts = (errs: { field: string }[]) => errs.map((e) => fieldErrorText(e as never));
const label = (c: string) => c.repeat(63);

describe('signerName edges', () => {
  test('a domain of 253 bytes is fine; 254 is too long', () => {
    const domain253 = `${label('a')}.${label('b')}.${label('c')}.${'d'.repeat(61)}`;
    assert.equal(domain253.length, 253);
    assert.deepEqual(validateSignerName(`${domain253}/x`), []);
    const domain254 = `${label('a')}.${label('b')}.${label('c')}.${'d'.repeat(62)}`;
    const errs = validateSignerName(`${domain254}/x`);
    assert.deepEqual(errs.map((e) => [e.type, e.field, e.badValue, e.detail]), [['FieldValueTooLong', 'spec.signerName', domain254, 'must have at most 253 bytes']]);
  });

  test('every label of the domain and every piece of the path is checked, not just the first', () => {
    assert.match(texts(validateSignerName('example.Bad.com/x'))[0]!, /^spec\.signerName: Invalid value: "example\.Bad\.com": validating label "Bad": /);
    assert.match(texts(validateSignerName('example.com/ok.Bad'))[0]!, /^spec\.signerName: Invalid value: "ok\.Bad": validating label "Bad": /);
    assert.equal(validateSignerName('example.Bad.Worse.com/x').length, 1, 'one error for the domain, at its first bad label');
  });
});

describe('bundle and object edges', () => {
  let ca: TestCert;
  before(async () => {
    ca = await makeCACert();
  });

  test('a bundle with a bad entry reports it, not its duplicates', () => {
    const pem = ca.pem;
    const bad = '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n';
    assert.deepEqual(texts(validateTrustBundle(pem + pem + bad)), ['spec.trustBundle: Invalid value: "<value omitted>": entry 2 has bad block type: PRIVATE KEY']);
  });

  const ctb = (spec: ClusterTrustBundle['spec'] | undefined, name = 'plain'): ClusterTrustBundle =>
    ({ apiVersion: 'certificates.platform.io/v1beta1', kind: 'ClusterTrustBundle', metadata: { name, uid: 'u1', resourceVersion: '1' }, ...(spec ? { spec } : {}) }) as ClusterTrustBundle;

  test('a bundle without a spec needs a trust anchor', () => {
    assert.deepEqual(texts(validateClusterTrustBundle(ctb(undefined))), ['spec.trustBundle: Invalid value: "<value omitted>": at least one trust anchor must be provided']);
    assert.deepEqual(texts(validateClusterTrustBundleUpdate(ctb(undefined), ctb(undefined))), []);
  });

  test('an update that changes the bundle validates it; one that keeps it does not', () => {
    const invalid = '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n';
    assert.deepEqual(texts(validateClusterTrustBundleUpdate(ctb({ trustBundle: invalid }), ctb({ trustBundle: invalid }))), []);
    assert.deepEqual(texts(validateClusterTrustBundleUpdate(ctb({ trustBundle: invalid }), ctb({ trustBundle: ca.pem }))), [
      'spec.trustBundle: Invalid value: "<value omitted>": entry 0 does not parse as X.509',
    ]);
    assert.deepEqual(texts(validateClusterTrustBundleUpdate(ctb({ trustBundle: ca.pem }), ctb(undefined))), []);
  });

  test('metadata errors of an update are under metadata; a signer set or cleared is immutable', () => {
    const next = ctb({ trustBundle: ca.pem });
    next.metadata.uid = 'u2';
    assert.deepEqual(texts(validateClusterTrustBundleUpdate(next, ctb({ trustBundle: ca.pem }))), ['metadata.uid: Invalid value: "u2": field is immutable']);
    const signed = ctb({ trustBundle: ca.pem, signerName: 'example.com/x' }, 'example.com:x:a');
    assert.deepEqual(texts(validateClusterTrustBundleUpdate(ctb({ trustBundle: ca.pem }, 'example.com:x:a'), signed)), [
      'metadata.name: Invalid value: "example.com:x:a": ClusterTrustBundle without signer name must not have ":" in its name',
      'spec.signerName: Invalid value: "": field is immutable',
    ]);
    assert.deepEqual(texts(validateClusterTrustBundleUpdate(signed, ctb(undefined, 'example.com:x:a'))), ['spec.signerName: Invalid value: "example.com/x": field is immutable']);
  });
});
