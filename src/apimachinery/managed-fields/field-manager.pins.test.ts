// managedFields cases that mutation testing found unpinned (issue #35): a manager's later
// Update adds to what it owns; an apply that stops applying list items removes only those no
// other manager owns, and every manager's ownership afterwards matches the object.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { commonSchemas } from '../common-schemas.js';
import type { KubeObject } from '../object-meta.js';
import { serviceCIDRs } from '../../resources/servicecidrs/index.js';
import { FieldManager } from './field-manager.js';

const API_VERSION = 'networking.platform.io/v1';
const manager = (subresource: '' | 'status') =>
  new FieldManager({
    group: 'networking.platform.io',
    version: 'v1',
    kind: 'ServiceCIDR',
    schema: serviceCIDRs.schemas[serviceCIDRs.schemaName]!,
    registry: { ...commonSchemas, ...serviceCIDRs.schemas },
    subresource,
    resetFields: subresource ? ['metadata', 'spec'] : ['status'],
    emptyObject: () => ({ apiVersion: API_VERSION, kind: 'ServiceCIDR', ...serviceCIDRs.zeroValue() }),
    now: () => new Date('2026-11-22T10:00:00Z'),
  });
const main = manager('');
const status = manager('status');

type Obj = KubeObject & { spec?: { cidrs?: string[] } };
const config = (metadata: Record<string, unknown>, cidrs?: string[]): Record<string, unknown> => ({
  apiVersion: API_VERSION,
  kind: 'ServiceCIDR',
  metadata: { name: 'demo', ...metadata },
  ...(cidrs ? { spec: { cidrs } } : {}),
});
const owned = (o: KubeObject): Record<string, unknown> => Object.fromEntries((o.metadata.managedFields ?? []).map((e) => [e.manager, e.fieldsV1]));

describe('FieldManager pins', () => {
  test("a manager's second Update adds to the fields it owns", () => {
    const live = { apiVersion: API_VERSION, kind: 'ServiceCIDR', metadata: { name: 'demo' }, spec: { cidrs: ['10.0.0.0/24'] } } as Obj;
    main.recordUpdate(undefined, live, 'creator');
    const first = structuredClone(live);
    first.metadata.labels = { a: '1' };
    main.recordUpdate(live, first, 'labeler');
    const second = structuredClone(first);
    second.metadata.labels = { a: '1', b: '1' };
    main.recordUpdate(first, second, 'labeler');
    assert.deepEqual(owned(second).labeler, { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {}, 'f:b': {} } } });
    assert.equal(second.metadata.managedFields!.filter((e) => e.manager === 'labeler').length, 1);
  });

  test('an apply that drops a list item keeps the items another manager applied, and their ownership', () => {
    let live = main.apply(undefined, config({ finalizers: ['f/a', 'f/b'] }, ['10.0.0.0/24']), 'ci', false);
    live = main.apply(live, config({ finalizers: ['f/a'] }), 'other', false);
    const next = main.apply(live, config({ finalizers: ['f/b'] }, ['10.0.0.0/24']), 'ci', false);
    assert.deepEqual(next.metadata.finalizers, ['f/a', 'f/b']);
    assert.deepEqual(owned(next), {
      ci: { 'f:metadata': { 'f:finalizers': { 'v:"f/b"': {} } }, 'f:spec': { 'f:cidrs': {} } },
      other: { 'f:metadata': { 'f:finalizers': { 'v:"f/a"': {} } } },
    });
  });

  test('an apply that drops a list item no one else owns removes it, and it leaves every table', () => {
    let live = main.apply(undefined, config({ finalizers: ['f/a', 'f/b'] }, ['10.0.0.0/24']), 'ci', false);
    live = main.apply(live, config({ finalizers: ['f/b'] }), 'other', false);
    const next = main.apply(live, config({ finalizers: ['f/b'] }, ['10.0.0.0/24']), 'ci', false);
    assert.deepEqual(next.metadata.finalizers, ['f/b']);
    assert.deepEqual(owned(next), {
      ci: { 'f:metadata': { 'f:finalizers': { 'v:"f/b"': {} } }, 'f:spec': { 'f:cidrs': {} } },
      other: { 'f:metadata': { 'f:finalizers': { 'v:"f/b"': {} } } },
    });
  });

  test('a map another manager still fills stays when the applier stops applying it; only its own keys go', () => {
    let live = main.apply(undefined, config({ annotations: { mine: '1' } }, ['10.0.0.0/24']), 'ci', false);
    live = main.apply(live, config({ annotations: { theirs: '1' } }), 'other', false);
    const next = main.apply(live, config({}, ['10.0.0.0/24']), 'ci', false);
    assert.deepEqual(next.metadata.annotations, { theirs: '1' });
    assert.deepEqual(owned(next).ci, { 'f:spec': { 'f:cidrs': {} } });
  });

  test('a keyed list item the applier stops applying goes with its key, even when another manager owns a field inside it; that ownership goes too', () => {
    const condition = (type: string, message: string) => ({ type, status: 'True', reason: 'R', message, lastTransitionTime: '2026-01-01T00:00:00Z' });
    const withStatus = (conditions: unknown[]) => ({ ...config({}), status: { conditions } });
    let live = main.apply(undefined, config({}, ['10.0.0.0/24']), 'ci', false);
    live = status.apply(live, withStatus([condition('Ready', 'm')]), 'controller', false);
    // Another manager changes one field inside the Ready item (an Update owns just that field).
    const edited = structuredClone(live) as Obj & { status: { conditions: { message: string }[] } };
    edited.status.conditions[0]!.message = 'edited';
    status.recordUpdate(live, edited, 'editor');
    assert.deepEqual(owned(edited).editor, { 'f:status': { 'f:conditions': { 'k:{"type":"Ready"}': { 'f:message': {} } } } });
    // The controller now applies another condition only: Ready goes, and with it the editor's field.
    const next = status.apply(edited, withStatus([condition('Other', 'o')]), 'controller', true) as Obj & { status: { conditions: { type: string }[] } };
    assert.deepEqual(next.status.conditions.map((c) => c.type), ['Other']);
    assert.equal(owned(next).editor, undefined);
  });
});
