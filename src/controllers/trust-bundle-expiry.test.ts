// The expiry reporter keeps an observer current: adds and content changes report the earliest
// notAfter, metadata-only changes do not, deletions forget.

import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { internalContext, silentLogger } from '../apimachinery/request-context.js';
import { GenericStore } from '../registry/generic-store.js';
import type { ResourceDefinition } from '../registry/resource-definition.js';
import { clusterTrustBundles } from '../resources/clustertrustbundles/index.js';
import { earliestExpiry } from '../resources/clustertrustbundles/expiry.js';
import { MemoryStore } from '../storage/sqlite/memory-store.js';
import { makeCACert } from '../../test/fixtures/certs.js';
import { eventually } from '../../test/support/controller-fixtures.js';
import { FakeClock } from './fake-clock.js';
import { TrustBundleExpiryReporter, type TrustBundleObject } from './trust-bundle-expiry.js';

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const s of stops.splice(0)) await s();
});

describe('TrustBundleExpiryReporter', () => {
  test('reports on add and content change, not on label change; forgets on delete', async () => {
    const definition = clusterTrustBundles as unknown as ResourceDefinition<TrustBundleObject>;
    const store = new GenericStore<TrustBundleObject>({ definition, strategy: definition.strategy, subresource: '', storage: new MemoryStore(), admission: [] });
    const ctx = internalContext({ username: 'admin', groups: ['system:masters'] }, silentLogger);
    const events: string[] = [];
    const reporter = new TrustBundleExpiryReporter({
      source: store,
      earliestExpiry,
      clock: new FakeClock(),
      logger: silentLogger,
      observer: {
        observe: (b, at) => void events.push(`${b.name} ${b.signerName || '-'} ${at?.toISOString()}`),
        forget: (name) => void events.push(`forget ${name}`),
      },
    });
    stops.push(() => reporter.stop());
    const early = await makeCACert({ commonName: 'early', notBefore: new Date('2026-01-01T00:00:00Z'), notAfter: new Date('2027-01-01T00:00:00Z') });
    const late = await makeCACert({ commonName: 'late', notBefore: new Date('2026-01-01T00:00:00Z'), notAfter: new Date('2030-01-01T00:00:00Z') });
    const ctb = (trustBundle: string): TrustBundleObject => ({ apiVersion: 'certificates.platform.io/v1beta1', kind: 'ClusterTrustBundle', metadata: { name: 'roots' }, spec: { trustBundle } });
    await store.create(ctx, ctb(late.pem + early.pem), { fieldManager: 't' });
    await reporter.start();
    assert.deepEqual(events, ['roots - 2027-01-01T00:00:00.000Z']);
    await store.update(ctx, 'roots', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, labels: { a: 'b' } } }), { fieldManager: 't' });
    await store.update(ctx, 'roots', (cur) => ({ ...cur!, spec: { trustBundle: late.pem } }), { fieldManager: 't' });
    await eventually(() => events.length === 2, 'content change reported');
    await store.delete(ctx, 'roots', {});
    await eventually(() => events.length === 3, 'deletion');
    assert.deepEqual(events, ['roots - 2027-01-01T00:00:00.000Z', 'roots - 2030-01-01T00:00:00.000Z', 'forget roots']);
  });
});
