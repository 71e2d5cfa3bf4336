// The ServiceCIDR strategies as the generic store applies them (memory backend): updates need
// no resourceVersion, a main-resource write never brings in a status, and each endpoint owns
// only its own fields in managedFields (the strategies' resetFields).

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { internalContext, silentLogger, type RequestContext } from '../../apimachinery/request-context.js';
import { GenericStore } from '../../registry/generic-store.js';
import { MemoryStore } from '../../storage/sqlite/memory-store.js';
import { serviceCIDRs } from './index.js';
import type { ServiceCIDR } from './types.js';

const ctx = (): RequestContext => ({ ...internalContext({ username: 'admin', groups: ['system:masters'] }, silentLogger), dryRun: false });
const opts = { fieldManager: 'test' };
const condition = { type: 'Ready', status: 'True', reason: 'R', message: 'm', lastTransitionTime: '2026-01-01T00:00:00Z' };

function setup() {
  const storage = new MemoryStore();
  const main = new GenericStore<ServiceCIDR>({ definition: serviceCIDRs, strategy: serviceCIDRs.strategy, subresource: '', storage, admission: [] });
  const status = new GenericStore<ServiceCIDR>({ definition: serviceCIDRs, strategy: serviceCIDRs.subresources[0]!.strategy, subresource: 'status', storage, admission: [] });
  return { main, status };
}
const sc = (name: string): ServiceCIDR => ({ apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name }, spec: { cidrs: ['10.0.0.0/24'] } });
const fieldsOf = (o: ServiceCIDR, manager: string) => o.metadata.managedFields?.find((e) => e.manager === manager)?.fieldsV1;

describe('ServiceCIDR strategies in the generic store', () => {
  test('an update without a resourceVersion is allowed, on both endpoints', async () => {
    const { main, status } = setup();
    await main.create(ctx(), sc('a'), opts);
    const labelled = await main.update(ctx(), 'a', (cur) => ({ ...cur!, metadata: { name: 'a', labels: { x: '1' } } }), opts);
    assert.deepEqual(labelled.object.metadata.labels, { x: '1' });
    const withStatus = await status.update(ctx(), 'a', (cur) => ({ ...cur!, metadata: { name: 'a' }, status: { conditions: [condition] } }), opts);
    assert.deepEqual(withStatus.object.status, { conditions: [condition] });
  });

  test('a main-resource update never brings in a status the object did not have', async () => {
    const { main } = setup();
    await main.create(ctx(), sc('a'), opts);
    const out = await main.update(ctx(), 'a', (cur) => ({ ...cur!, status: { conditions: [condition] } }), opts);
    assert.equal(out.object.status, undefined);
    assert.equal((await main.get(ctx(), 'a', {})).status, undefined);
  });

  test('each endpoint owns only its own fields: the main resource never status, /status never spec or labels', async () => {
    const { main, status } = setup();
    const applied = await main.apply(
      ctx(),
      'a',
      { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'a', labels: { x: '1' } }, spec: { cidrs: ['10.0.0.0/24'] }, status: { conditions: [condition] } },
      { fieldManager: 'ci', force: false },
    );
    assert.deepEqual(fieldsOf(applied.object, 'ci'), { 'f:metadata': { 'f:labels': { 'f:x': {} } }, 'f:spec': { 'f:cidrs': {} } });
    const statusApplied = await status.apply(
      ctx(),
      'a',
      { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'a', labels: { y: '1' } }, spec: { cidrs: ['10.9.0.0/24'] }, status: { conditions: [condition] } },
      { fieldManager: 'controller', force: true },
    );
    assert.deepEqual(Object.keys(fieldsOf(statusApplied.object, 'controller') ?? {}), ['f:status']);
    assert.deepEqual(statusApplied.object.spec, { cidrs: ['10.0.0.0/24'] });
    assert.deepEqual(statusApplied.object.metadata.labels, { x: '1' });
  });
});
