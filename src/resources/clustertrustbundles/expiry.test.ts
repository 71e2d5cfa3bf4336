// Expiry warnings and the earliest expiry, on real certificates with chosen validity windows.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { makeCACert } from '../../../test/fixtures/certs.js';
import { earliestExpiry, expiryWarnings } from './expiry.js';

const DAY = 24 * 3600 * 1000;
const now = new Date('2026-06-01T00:00:00Z');
const at = (days: number) => new Date(now.getTime() + days * DAY);

describe('ClusterTrustBundle expiry', async () => {
  const valid = await makeCACert({ commonName: 'valid', notBefore: at(-10), notAfter: at(365) });
  const expired = await makeCACert({ commonName: 'expired', notBefore: at(-400), notAfter: at(-1) });
  const future = await makeCACert({ commonName: 'future', notBefore: at(2), notAfter: at(400) });
  const soon = await makeCACert({ commonName: 'soon', notBefore: at(-300), notAfter: at(29) });
  const edge = await makeCACert({ commonName: 'edge', notBefore: at(-300), notAfter: at(31) });

  test('one warning per certificate expired, not yet valid or expiring within 30 days, in bundle order', () => {
    const bundle = [valid, expired, future, soon, edge].map((c) => c.pem).join('');
    assert.deepEqual(expiryWarnings(bundle, now), [
      'spec.trustBundle: certificate 1 (CN=expired) expired at 2026-05-31T00:00:00Z',
      'spec.trustBundle: certificate 2 (CN=future) is not valid until 2026-06-03T00:00:00Z',
      'spec.trustBundle: certificate 3 (CN=soon) expires at 2026-06-30T00:00:00Z, within 30 days',
    ]);
    assert.deepEqual(expiryWarnings(valid.pem + edge.pem, now), []);
  });

  test('many bad certificates are summarized after 20', () => {
    const bundle = Array.from({ length: 23 }, () => expired.pem).join('');
    const w = expiryWarnings(bundle, now);
    assert.equal(w.length, 21);
    assert.equal(w[20], 'spec.trustBundle: 3 more certificates are expired, not yet valid or expiring within 30 days');
  });

  test('earliest expiry is the smallest notAfter; none for an empty bundle', () => {
    assert.deepEqual(earliestExpiry([valid, soon, future].map((c) => c.pem).join('')), at(29));
    assert.equal(earliestExpiry(''), undefined);
  });
});
