import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { commonSchemas } from '../common-schemas.js';
import type { KubeObject } from '../object-meta.js';
import { isStatusError, type StatusError } from '../status-error.js';
import { serviceCIDRs } from '../../resources/servicecidrs/index.js';
import { FieldManager } from './field-manager.js';
import { LAST_APPLIED_ANNOTATION } from './last-applied.js';

const API_VERSION = 'networking.platform.io/v1';
let clock = Date.parse('2026-11-22T10:00:00Z');
const tick = () => (clock += 1000);

function manager(subresource: '' | 'status' = ''): FieldManager {
  return new FieldManager({
    group: 'networking.platform.io',
    version: 'v1',
    kind: 'ServiceCIDR',
    schema: serviceCIDRs.schemas[serviceCIDRs.schemaName]!,
    registry: { ...commonSchemas, ...serviceCIDRs.schemas },
    subresource,
    resetFields: subresource ? ['metadata', 'spec'] : ['status'],
    emptyObject: () => ({ apiVersion: API_VERSION, kind: 'ServiceCIDR', ...serviceCIDRs.zeroValue() }),
    now: () => new Date(clock),
  });
}
const main = manager();
const status = manager('status');

type Obj = KubeObject & { spec?: { cidrs?: string[] }; status?: unknown };
const config = (metadata: Record<string, unknown>, cidrs?: string[]): Record<string, unknown> => ({
  apiVersion: API_VERSION,
  kind: 'ServiceCIDR',
  metadata: { name: 'demo', ...metadata },
  ...(cidrs ? { spec: { cidrs } } : {}),
});
const entries = (o: KubeObject) => (o.metadata.managedFields ?? []).map((e) => ({ manager: e.manager, operation: e.operation, subresource: e.subresource, fields: e.fieldsV1 }));
const statusError = (fn: () => unknown): StatusError => {
  try {
    fn();
  } catch (err) {
    if (isStatusError(err)) return err;
    throw err;
  }
  assert.fail('expected a StatusError');
};

describe('FieldManager: updates', () => {
  test('a create records what it set; zero-valued structs do not count as added', () => {
    const obj = { apiVersion: API_VERSION, kind: 'ServiceCIDR', metadata: { name: 'demo', labels: { a: '1' } }, spec: { cidrs: ['10.0.0.0/24'] } } as Obj;
    main.recordUpdate(undefined, obj, 'kubectl-create');
    assert.deepEqual(entries(obj), [
      { manager: 'kubectl-create', operation: 'Update', subresource: undefined, fields: { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } }, 'f:spec': { 'f:cidrs': {} } } },
    ]);
    assert.equal(obj.metadata.managedFields![0]!.time, '2026-11-22T10:00:00Z');
  });

  test('an update that changes nothing keeps the table and its times', () => {
    const live = { apiVersion: API_VERSION, kind: 'ServiceCIDR', metadata: { name: 'demo', labels: { a: '1' } }, spec: { cidrs: ['10.0.0.0/24'] } } as Obj;
    main.recordUpdate(undefined, live, 'kubectl-create');
    tick();
    const next = structuredClone(live);
    main.recordUpdate(live, next, 'someone-else');
    assert.deepEqual(next.metadata.managedFields, live.metadata.managedFields);
  });

  test('an update takes changed fields from their owners and drops removed ones', () => {
    const live = { apiVersion: API_VERSION, kind: 'ServiceCIDR', metadata: { name: 'demo', labels: { a: '1', b: '1' } }, spec: { cidrs: ['10.0.0.0/24'] } } as Obj;
    main.recordUpdate(undefined, live, 'creator');
    const next = structuredClone(live);
    next.metadata.labels = { a: '2' };
    main.recordUpdate(live, next, 'labeler');
    assert.deepEqual(entries(next), [
      { manager: 'creator', operation: 'Update', subresource: undefined, fields: { 'f:metadata': { 'f:labels': {} }, 'f:spec': { 'f:cidrs': {} } } },
      { manager: 'labeler', operation: 'Update', subresource: undefined, fields: { 'f:metadata': { 'f:labels': { 'f:a': {} } } } },
    ]);
  });

  test('status writes own only status; main-resource writes never own status', () => {
    const live = { apiVersion: API_VERSION, kind: 'ServiceCIDR', metadata: { name: 'demo' }, spec: { cidrs: ['10.0.0.0/24'] } } as Obj;
    const viaStatus = { ...structuredClone(live), status: { conditions: [{ type: 'Ready', status: 'True', reason: 'r', message: 'm', lastTransitionTime: '2026-01-01T00:00:00Z' }] } } as Obj;
    viaStatus.metadata.labels = { sneaky: '1' };
    status.recordUpdate(live, viaStatus, 'controller');
    assert.deepEqual(entries(viaStatus), [
      {
        manager: 'controller',
        operation: 'Update',
        subresource: 'status',
        fields: { 'f:status': { 'f:conditions': { '.': {}, 'k:{"type":"Ready"}': { '.': {}, 'f:lastTransitionTime': {}, 'f:message': {}, 'f:reason': {}, 'f:status': {}, 'f:type': {} } } } },
      },
    ]);

    const viaMain = { ...structuredClone(live), status: { conditions: [] } } as Obj;
    main.recordUpdate(live, viaMain, 'writer');
    assert.equal(viaMain.metadata.managedFields, undefined);
  });

  test('a request may replace the table, or reset it with [] or [{}]', () => {
    const live = { apiVersion: API_VERSION, kind: 'ServiceCIDR', metadata: { name: 'demo', labels: { a: '1' } } } as Obj;
    main.recordUpdate(undefined, live, 'creator');
    for (const reset of [[], [{}]]) {
      const next = structuredClone(live);
      next.metadata.managedFields = reset as never;
      main.recordUpdate(live, next, 'resetter');
      assert.equal(next.metadata.managedFields, undefined, JSON.stringify(reset));
    }
    const replaced = structuredClone(live);
    replaced.metadata.managedFields = [{ manager: 'other', operation: 'Apply', apiVersion: API_VERSION, fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:a': {} } } } }];
    main.recordUpdate(live, replaced, 'x');
    assert.deepEqual(entries(replaced).map((e) => e.manager), ['other']);
    const malformed = structuredClone(live);
    malformed.metadata.managedFields = [{ manager: 'bad', operation: 'Nope' as never, apiVersion: API_VERSION, fieldsType: 'FieldsV1', fieldsV1: {} }];
    main.recordUpdate(live, malformed, 'x');
    assert.deepEqual(malformed.metadata.managedFields, live.metadata.managedFields, 'a malformed table falls back to the live one');
    for (const bad of [[null], ['x'], [{ manager: 'm', operation: 'Apply', apiVersion: API_VERSION, fieldsType: 'FieldsV1', fieldsV1: { 'f:x': 1 } }]]) {
      const next = structuredClone(live);
      next.metadata.managedFields = bad as never;
      main.recordUpdate(live, next, 'x');
      assert.deepEqual(next.metadata.managedFields, live.metadata.managedFields, JSON.stringify(bad));
    }
  });

  test('more than ten updaters: the oldest fold into ancient-changes', () => {
    let obj = { apiVersion: API_VERSION, kind: 'ServiceCIDR', metadata: { name: 'demo', labels: {} as Record<string, string> } } as Obj;
    for (let i = 0; i < 12; i++) {
      tick();
      const next = structuredClone(obj);
      next.metadata.labels = { ...next.metadata.labels, [`k${i}`]: 'v' };
      main.recordUpdate(obj, next, `m${i}`);
      obj = next;
    }
    // The three oldest (m0–m2) are one entry now, owning what they set.
    assert.deepEqual(entries(obj).map((e) => e.manager), ['ancient-changes', ...Array.from({ length: 9 }, (_, i) => `m${i + 3}`)]);
    assert.deepEqual(entries(obj)[0]!.fields, { 'f:metadata': { 'f:labels': { 'f:k0': {}, 'f:k1': {}, 'f:k2': {} } } });
  });
});

describe('FieldManager: apply', () => {
  test('creates, owns exactly what it applied, and re-applying unchanged keeps the time', () => {
    const created = main.apply(undefined, config({ labels: { a: '1' } }, ['10.0.0.0/24']), 'ci', false) as Obj;
    assert.deepEqual(created.spec, { cidrs: ['10.0.0.0/24'] });
    assert.deepEqual(entries(created), [{ manager: 'ci', operation: 'Apply', subresource: undefined, fields: { 'f:metadata': { 'f:labels': { 'f:a': {} } }, 'f:spec': { 'f:cidrs': {} } } }]);
    const time = created.metadata.managedFields![0]!.time;
    tick();
    const again = main.apply(created, config({ labels: { a: '1' } }, ['10.0.0.0/24']), 'ci', false);
    assert.deepEqual(again, created);
    assert.equal(again.metadata.managedFields![0]!.time, time);
  });

  test('a field another manager owns with a different value conflicts; force takes it', () => {
    const live = main.apply(undefined, config({ labels: { a: '1' } }, ['10.0.0.0/24']), 'first', false);
    const err = statusError(() => main.apply(live, config({ labels: { a: '2' } }), 'second', false));
    assert.equal(err.code, 409);
    assert.equal(err.status.message, 'Apply failed with 1 conflict: conflict with "first": .metadata.labels.a');
    assert.deepEqual(err.status.details?.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "first"', field: '.metadata.labels.a' }]);

    const forced = main.apply(live, config({ labels: { a: '2' } }), 'second', true);
    assert.deepEqual(forced.metadata.labels, { a: '2' });
    assert.deepEqual(entries(forced).map((e) => [e.manager, e.fields]), [
      ['first', { 'f:spec': { 'f:cidrs': {} } }],
      ['second', { 'f:metadata': { 'f:labels': { 'f:a': {} } } }],
    ]);
  });

  test('the same value is shared, not a conflict', () => {
    const live = main.apply(undefined, config({}, ['10.0.0.0/24']), 'first', false);
    const shared = main.apply(live, config({}, ['10.0.0.0/24']), 'second', false);
    assert.deepEqual(entries(shared).map((e) => e.manager).sort(), ['first', 'second']);
  });

  test('conflicts with several managers are listed per manager, updaters with their apiVersion', () => {
    const live = { apiVersion: API_VERSION, kind: 'ServiceCIDR', metadata: { name: 'demo', labels: { a: '1', b: '1' } }, spec: { cidrs: ['10.0.0.0/24'] } } as Obj;
    main.recordUpdate(undefined, live, 'kubectl-create');
    const err = statusError(() => main.apply(live, config({ labels: { a: '2', b: '2' } }, ['10.1.0.0/24']), 'ci', false));
    assert.equal(
      err.status.message,
      'Apply failed with 3 conflicts: conflicts with "kubectl-create" using networking.platform.io/v1:\n- .metadata.labels.a\n- .metadata.labels.b\n- .spec.cidrs',
    );
    assert.deepEqual(
      err.status.details?.causes?.map((c) => [c.reason, c.message, c.field]),
      ['.metadata.labels.a', '.metadata.labels.b', '.spec.cidrs'].map((field) => ['FieldManagerConflict', 'conflict with "kubectl-create" using networking.platform.io/v1', field]),
    );
  });

  test('fields the applier stops applying are removed unless someone else owns them', () => {
    let live = main.apply(undefined, config({ labels: { mine: '1', shared: '1' }, finalizers: ['f/a', 'f/b'] }, ['10.0.0.0/24']), 'ci', false);
    live = main.apply(live, config({ labels: { shared: '1' } }), 'other', false);
    const next = main.apply(live, config({ finalizers: ['f/b'] }, ['10.0.0.0/24']), 'ci', false);
    assert.deepEqual(next.metadata.labels, { shared: '1' });
    assert.deepEqual(next.metadata.finalizers, ['f/b']);
  });

  test('apply to status owns only status', () => {
    const live = main.apply(undefined, config({}, ['10.0.0.0/24']), 'ci', false);
    const out = status.apply(
      live,
      { ...config({ labels: { x: '1' } }, ['10.9.0.0/24']), status: { conditions: [{ type: 'Ready', status: 'True', reason: 'r', message: 'm', lastTransitionTime: '2026-01-01T00:00:00Z' }] } },
      'service-cidr-controller',
      true,
    );
    const entry = out.metadata.managedFields!.find((e) => e.manager === 'service-cidr-controller')!;
    assert.equal(entry.subresource, 'status');
    assert.deepEqual(Object.keys(entry.fieldsV1!), ['f:status']);
  });

  test('kubectl moving from client-side apply may take the fields its last-applied annotation set', () => {
    const lastApplied = JSON.stringify(config({ labels: { a: '1' } }, ['10.0.0.0/24']));
    const live = { apiVersion: API_VERSION, kind: 'ServiceCIDR', metadata: { name: 'demo', labels: { a: '1' }, annotations: { [LAST_APPLIED_ANNOTATION]: lastApplied } }, spec: { cidrs: ['10.0.0.0/24'] } } as Obj;
    main.recordUpdate(undefined, live, 'kubectl-client-side-apply');
    const next = main.apply(live, config({ labels: { a: '2' } }, ['10.0.0.0/24']), 'kubectl', false);
    assert.deepEqual(next.metadata.labels, { a: '2' });
    assert.equal(next.metadata.annotations![LAST_APPLIED_ANNOTATION], '{"apiVersion":"networking.platform.io/v1","kind":"ServiceCIDR","metadata":{"labels":{"a":"2"},"name":"demo"},"spec":{"cidrs":["10.0.0.0/24"]}}\n');
    // Any other manager still conflicts.
    assert.equal(statusError(() => main.apply(live, config({ labels: { a: '2' } }), 'ci', false)).code, 409);
  });

  test('malformed configurations are 400s', () => {
    assert.equal(statusError(() => main.apply(undefined, { ...config({}), kind: 'Other' }, 'ci', false)).status.message, 'invalid object type: networking.platform.io/v1, Kind=Other');
    assert.equal(statusError(() => main.apply(undefined, { ...config({}), apiVersion: 'v1' }, 'ci', false)).status.message, 'invalid object type: /v1, Kind=ServiceCIDR');
    assert.equal(statusError(() => main.apply(undefined, config({ managedFields: [] }), 'ci', false)).status.message, 'metadata.managedFields must be nil');
    const unknown = statusError(() => main.apply(undefined, { ...config({}), spec: { cidrs: [], bogus: 1 } }, 'ci', false));
    assert.equal(unknown.code, 400);
    assert.equal(unknown.status.message, 'failed to create typed patch object (/demo; networking.platform.io/v1, Kind=ServiceCIDR): .spec.bogus: field not declared in schema');
    const keyless = statusError(() => main.apply(undefined, { ...config({}), status: { conditions: [{ status: 'True' }] } }, 'ci', false));
    assert.equal(keyless.code, 400);
    assert.equal(
      keyless.status.message,
      'failed to create typed patch object (/demo; networking.platform.io/v1, Kind=ServiceCIDR): .status.conditions: element 0: associative list with keys has an element that omits key field "type"',
    );
    const twice = statusError(() => main.apply(undefined, config({ finalizers: ['a', 'b', 'a'] }), 'ci', false));
    assert.match(twice.status.message ?? "", /: \.metadata\.finalizers: duplicate entries for key \[="a"\]$/);
  });
});
