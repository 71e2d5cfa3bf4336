// Recording a write whose request carries thousands of managedFields entries is linear in them:
// decoding each entry's FieldsV1, trimming what the writer now owns from each, and folding the
// oldest Update managers past ten into "ancient-changes" (which once copied the growing set for
// every manager folded in: 8 s for 10,000 entries).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { growth } from '../../../test/support/growth.js';
import { commonSchemas } from '../common-schemas.js';
import type { KubeObject } from '../object-meta.js';
import { serviceCIDRs } from '../../resources/servicecidrs/index.js';
import { FieldManager } from './field-manager.js';

const API_VERSION = 'networking.platform.io/v1';
const manager = new FieldManager({
  group: 'networking.platform.io',
  version: 'v1',
  kind: 'ServiceCIDR',
  schema: serviceCIDRs.schemas[serviceCIDRs.schemaName]!,
  registry: { ...commonSchemas, ...serviceCIDRs.schemas },
  subresource: '',
  resetFields: ['status'],
  emptyObject: () => ({ apiVersion: API_VERSION, kind: 'ServiceCIDR', ...serviceCIDRs.zeroValue() }),
});

/** A create whose request sets `n` Update managers, each owning one label (not set by the create), at distinct times. */
function createWith(n: number): KubeObject {
  const managedFields = Array.from({ length: n }, (_, i) => {
    return { manager: `m${i}`, operation: 'Update', apiVersion: API_VERSION, time: new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString().replace(/\.\d+Z$/, 'Z'), fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { [`f:l${i}`]: {} } } } };
  });
  return { apiVersion: API_VERSION, kind: 'ServiceCIDR', metadata: { name: 'many', managedFields }, spec: { cidrs: ['10.0.0.0/24'] } } as unknown as KubeObject;
}

test('a create carrying n managedFields entries is recorded in time linear in n; the oldest fold into ancient-changes', async () => {
  const g = await growth(createWith, (obj) => manager.recordUpdate(undefined, structuredClone(obj), 'writer'), { start: 100, maxN: 100_000 });
  assert.ok(g.ratio < 8, `${g.small.toFixed(1)} ms at n=${g.n}, ${g.large.toFixed(1)} ms at 4n (×${g.ratio.toFixed(1)})`);
  const obj = createWith(1000);
  manager.recordUpdate(undefined, obj, 'writer');
  const entries = obj.metadata.managedFields!;
  assert.equal(entries.length, 10, 'ten Update managers are kept: the nine newest and ancient-changes');
  const ancient = entries.find((e) => e.manager === 'ancient-changes')!;
  // 1,001 Update managers (the writer's own included): the 992 oldest are folded into one.
  assert.equal(Object.keys((ancient.fieldsV1 as any)['f:metadata']['f:labels']).length, 992);
});
