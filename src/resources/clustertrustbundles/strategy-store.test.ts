// The ClusterTrustBundle strategy as the generic store applies it (memory backend): generation
// from 1 and moved by spec changes only, a resourceVersion required on update, expiry warnings on
// create and update, and a main resource that owns every field it is sent.

import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { internalContext, silentLogger, type RequestContext } from '../../apimachinery/request-context.js';
import { isStatusError } from '../../apimachinery/status-error.js';
import { GenericStore } from '../../registry/generic-store.js';
import { MemoryStore } from '../../storage/sqlite/memory-store.js';
import { makeCACert, type TestCert } from '../../../test/fixtures/certs.js';
import { clusterTrustBundles } from './index.js';
import type { ClusterTrustBundle } from './types.js';

const ctx = (): RequestContext => ({ ...internalContext({ username: 'admin', groups: ['system:masters'] }, silentLogger), dryRun: false });
const opts = { fieldManager: 'test' };
const store = () => new GenericStore<ClusterTrustBundle>({ definition: clusterTrustBundles, strategy: clusterTrustBundles.strategy, subresource: '', storage: new MemoryStore(), admission: [] });

describe('ClusterTrustBundle strategy in the generic store', () => {
  let valid: TestCert;
  let expired: TestCert;
  before(async () => {
    valid = await makeCACert({ notBefore: new Date('2020-01-01T00:00:00Z'), notAfter: new Date('2999-01-01T00:00:00Z') });
    expired = await makeCACert({ notBefore: new Date('2000-01-01T00:00:00Z'), notAfter: new Date('2001-01-01T00:00:00Z') });
  });
  const ctb = (trustBundle: string): ClusterTrustBundle =>
    ({ apiVersion: 'certificates.platform.io/v1beta1', kind: 'ClusterTrustBundle', metadata: { name: 'b' }, spec: { trustBundle } }) as ClusterTrustBundle;

  test('generation starts at 1 and moves with the spec only', async () => {
    const s = store();
    const created = await s.create(ctx(), ctb(valid.pem), opts);
    assert.equal(created.metadata.generation, 1);
    const labelled = await s.update(ctx(), 'b', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, labels: { a: '1' } } }), opts);
    assert.equal(labelled.object.metadata.generation, 1);
    const respecced = await s.update(ctx(), 'b', (cur) => ({ ...cur!, spec: { trustBundle: valid.pem + expired.pem } }), opts);
    assert.equal(respecced.object.metadata.generation, 2);
  });

  test('an update without a resourceVersion is refused', async () => {
    const s = store();
    await s.create(ctx(), ctb(valid.pem), opts);
    await assert.rejects(
      s.update(ctx(), 'b', (cur) => ({ ...cur!, metadata: { name: 'b', labels: { a: '1' } } }), opts),
      (e: unknown) => isStatusError(e) && e.code === 422 && /metadata\.resourceVersion: Invalid value: 0: must be specified for an update/.test(e.message),
    );
  });

  test('an expired anchor is accepted with a warning, on create and on update', async () => {
    const s = store();
    const c = ctx();
    await s.create(c, ctb(expired.pem), opts);
    assert.equal(c.warnings.length, 1);
    assert.match(c.warnings[0]!, /expired/i);
    const u = ctx();
    await s.update(u, 'b', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, labels: { a: '1' } } }), opts);
    assert.equal(u.warnings.length, 1);
    const quiet = ctx();
    await store().create(quiet, ctb(valid.pem), opts);
    assert.deepEqual(quiet.warnings, []);
  });

  test('the main resource owns every field it is sent (nothing reset)', async () => {
    const out = await store().apply(
      ctx(),
      'b',
      { apiVersion: 'certificates.platform.io/v1beta1', kind: 'ClusterTrustBundle', metadata: { name: 'b', labels: { a: '1' } }, spec: { trustBundle: valid.pem } },
      { fieldManager: 'ci', force: false },
    );
    assert.deepEqual(out.object.metadata.managedFields?.[0]?.fieldsV1, { 'f:metadata': { 'f:labels': { 'f:a': {} } }, 'f:spec': { 'f:trustBundle': {} } });
  });
});
