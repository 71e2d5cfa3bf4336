// Write rules of the generic store that mutation testing found unpinned (issue #35), on the memory
// backend: a create without metadata, the verb a refused status create names, apply with a
// metadata that is not an object, the metadata an update may not change (kube's BeforeUpdate and
// ValidateObjectMetaUpdate), a resourceVersion required by a kind that allows no unconditional
// update, the name mutating admission sees for a generated name, and the answer of the update
// that removes the last finalizer.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AdmissionPlugin } from '../apimachinery/admission.js';
import { internalContext, silentLogger, type RequestContext } from '../apimachinery/request-context.js';
import { isStatusError } from '../apimachinery/status-error.js';
import { GenericStore } from './generic-store.js';
import { MemoryStore } from '../storage/sqlite/memory-store.js';
import { serviceCIDRs } from '../resources/servicecidrs/index.js';
import type { ServiceCIDR } from '../resources/servicecidrs/types.js';
import { clusterTrustBundles } from '../resources/clustertrustbundles/index.js';
import type { ClusterTrustBundle } from '../resources/clustertrustbundles/types.js';
import { makeCACert } from '../../test/fixtures/certs.js';

const ctx = (): RequestContext => internalContext({ username: 'admin', groups: ['system:masters'] }, silentLogger);
const opts = { fieldManager: 'test' };

function setup(admission: AdmissionPlugin[] = []) {
  const storage = new MemoryStore();
  const main = new GenericStore<ServiceCIDR>({ definition: serviceCIDRs, strategy: serviceCIDRs.strategy, subresource: '', storage, admission });
  const status = new GenericStore<ServiceCIDR>({ definition: serviceCIDRs, strategy: serviceCIDRs.subresources[0]!.strategy, subresource: 'status', storage, admission });
  return { storage, main, status };
}

const sc = (name: string, extra: Partial<ServiceCIDR['metadata']> = {}): ServiceCIDR => ({
  apiVersion: 'networking.platform.io/v1',
  kind: 'ServiceCIDR',
  metadata: { name, ...extra },
  spec: { cidrs: ['10.0.0.0/24'] },
});

const rejects = (p: Promise<unknown>, code: number, message: string) =>
  assert.rejects(p, (e: unknown) => {
    assert.ok(isStatusError(e), String(e));
    assert.deepEqual([e.code, e.message], [code, message]);
    return true;
  });

describe('GenericStore create rules', () => {
  test('a create without metadata is refused by validation (422, no name), not a crash', async () => {
    const { main } = setup();
    const bare = { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', spec: { cidrs: ['10.0.0.0/24'] } } as unknown as ServiceCIDR;
    await rejects(main.create(ctx(), bare, opts), 422, 'ServiceCIDR.networking.platform.io "" is invalid: metadata.name: Required value: name or generateName is required');
  });

  test('the status subresource refuses create with 405, naming the verb', async () => {
    const { status } = setup();
    await rejects(status.create(ctx(), sc('a'), opts), 405, 'create is not supported on resources of kind "servicecidrs/status.networking.platform.io"');
  });

  test('mutating admission of a create with a generated name sees no name yet', async () => {
    const names: string[] = [];
    const { main } = setup([{ name: 'Names', admit: async (a) => void names.push(`admit ${JSON.stringify(a.name)}`), validate: async (a) => void names.push(`validate ${a.name.slice(0, 2)}`) }]);
    await main.create(ctx(), { ...sc(''), metadata: { generateName: 'g-' } }, opts);
    assert.deepEqual(names, ['admit ""', 'validate g-']);
  });
});

describe('GenericStore apply rules', () => {
  test('an apply whose metadata is not an object is the field manager\'s 400, as sent', async () => {
    const { main } = setup();
    await assert.rejects(
      main.apply(ctx(), 'a', { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: 'oops', spec: { cidrs: ['10.0.0.0/24'] } }, { fieldManager: 'applier', force: false }),
      (e: unknown) => {
        assert.ok(isStatusError(e), String(e));
        assert.equal(e.code, 400);
        assert.doesNotMatch(e.message, /not declared|"0"|\.0/);
        return true;
      },
    );
  });
});

describe('GenericStore field ownership', () => {
  test("apply knows the kind's schema and the common ones it refers to: an undeclared metadata field is a 400, owner references are keyed by uid", async () => {
    const { main } = setup();
    const config = (metadata: Record<string, unknown>) => ({ apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata, spec: { cidrs: ['10.0.0.0/24'] } });
    await rejects(
      main.apply(ctx(), 'b', config({ bogus: 1 }), { fieldManager: 'applier', force: false }),
      400,
      'failed to create typed patch object (/b; networking.platform.io/v1, Kind=ServiceCIDR): .metadata.bogus: field not declared in schema',
    );
    const out = await main.apply(ctx(), 'a', config({ ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'n', uid: 'u1' }] }), { fieldManager: 'applier', force: false });
    assert.deepEqual(out.object.metadata.managedFields?.map((f) => f.fieldsV1), [{ 'f:metadata': { 'f:ownerReferences': { 'k:{"uid":"u1"}': {} } }, 'f:spec': { 'f:cidrs': {} } }]);
  });
});

describe('GenericStore update rules', () => {
  test('an update may not set another uid, or a deletionGracePeriodSeconds, on a live object (422 field is immutable)', async () => {
    const { main } = setup();
    const created = await main.create(ctx(), sc('a'), opts);
    await rejects(
      main.update(ctx(), 'a', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, uid: 'another' } }), opts),
      422,
      `ServiceCIDR.networking.platform.io "a" is invalid: metadata.uid: Invalid value: "another": field is immutable`,
    );
    await rejects(
      main.update(ctx(), 'a', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, deletionGracePeriodSeconds: 30 } }), opts),
      422,
      'ServiceCIDR.networking.platform.io "a" is invalid: metadata.deletionGracePeriodSeconds: Invalid value: 30: field is immutable',
    );
    assert.deepEqual(await main.get(ctx(), 'a', {}), created);
  });

  test('an update of an object being deleted may not change its deletionGracePeriodSeconds; removing the last finalizer deletes it', async () => {
    const { main } = setup();
    await main.create(ctx(), sc('held', { finalizers: ['example.com/hold'] }), opts);
    const marked = (await main.delete(ctx(), 'held', {})).object;
    assert.equal(marked.metadata.deletionGracePeriodSeconds, 0);
    await rejects(
      main.update(ctx(), 'held', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, deletionGracePeriodSeconds: 30 } }), opts),
      422,
      'ServiceCIDR.networking.platform.io "held" is invalid: metadata.deletionGracePeriodSeconds: Invalid value: 30: field is immutable',
    );
    const out = await main.update(
      ctx(),
      'held',
      (cur) => {
        const { finalizers: _, ...metadata } = cur!.metadata;
        return { ...cur!, metadata };
      },
      opts,
    );
    assert.equal(out.created, false);
    assert.equal(out.object.metadata.deletionTimestamp, marked.metadata.deletionTimestamp);
    await rejects(main.get(ctx(), 'held', {}), 404, 'servicecidrs.networking.platform.io "held" not found');
  });

  test('a kind that allows no unconditional update refuses one without a resourceVersion (422)', async () => {
    const cert = await makeCACert({ notBefore: new Date('2020-01-01T00:00:00Z'), notAfter: new Date('2999-01-01T00:00:00Z') });
    const s = new GenericStore<ClusterTrustBundle>({ definition: clusterTrustBundles, strategy: clusterTrustBundles.strategy, subresource: '', storage: new MemoryStore(), admission: [] });
    const bundle = { apiVersion: 'certificates.platform.io/v1beta1', kind: 'ClusterTrustBundle', metadata: { name: 'b' }, spec: { trustBundle: cert.pem } } as ClusterTrustBundle;
    await s.create(ctx(), bundle, opts);
    await rejects(
      s.update(ctx(), 'b', (cur) => ({ ...cur!, metadata: { name: 'b', labels: { a: '1' } } }), opts),
      422,
      'ClusterTrustBundle.certificates.platform.io "b" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update',
    );
    const out = await s.update(ctx(), 'b', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, labels: { a: '1' } } }), opts);
    assert.deepEqual(out.object.metadata.labels, { a: '1' });
  });
});

