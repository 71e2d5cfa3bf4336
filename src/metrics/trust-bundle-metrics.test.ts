// The expiry gauge keeps exactly one series per bundle holding a certificate: a bundle that
// stops holding one, is re-created under another signer, or is deleted leaves no stale series.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { TRUST_BUNDLE_EXPIRY_METRIC, TrustBundleExpiryMetrics } from './trust-bundle-metrics.js';

async function series(registry: Registry): Promise<string[]> {
  const text = await registry.metrics();
  return text.split('\n').filter((l) => l.startsWith(`${TRUST_BUNDLE_EXPIRY_METRIC}{`));
}

describe('TrustBundleExpiryMetrics', () => {
  test('sets Unix seconds per bundle and removes series that no longer describe a stored bundle', async () => {
    const registry = new Registry();
    const m = new TrustBundleExpiryMetrics(registry);
    m.observe({ name: 'a', signerName: '' }, new Date('2030-01-01T00:00:00.900Z'));
    m.observe({ name: 'x:s:b', signerName: 'x/s' }, new Date('2031-01-01T00:00:00Z'));
    assert.deepEqual(await series(registry), [
      `${TRUST_BUNDLE_EXPIRY_METRIC}{name="a",signer=""} 1893456000`,
      `${TRUST_BUNDLE_EXPIRY_METRIC}{name="x:s:b",signer="x/s"} 1924992000`,
    ]);
    m.observe({ name: 'a', signerName: 'other/signer' }, new Date('2032-01-01T00:00:00Z'));
    m.observe({ name: 'x:s:b', signerName: 'x/s' }, undefined);
    assert.deepEqual(await series(registry), [`${TRUST_BUNDLE_EXPIRY_METRIC}{name="a",signer="other/signer"} 1956528000`]);
    m.forget('a');
    m.forget('never-seen');
    assert.deepEqual(await series(registry), []);
  });
});
