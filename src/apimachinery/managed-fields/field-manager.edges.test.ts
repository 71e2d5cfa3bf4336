// The field manager at its edges (kube's FieldManager with its stripMeta, lastApplied and
// managedFields-updating layers): system metadata never owned, a core-group apiVersion, the
// clock, inputs left alone, objects without metadata, unreadable live tables, a manager
// changing its own fields, conflicts of other managers' fields on a list item, the configuration
// checks' wording, and the last-applied annotation kept by kubectl only. Pinned here (issue #35).

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { commonSchemas } from '../common-schemas.js';
import type { KubeObject } from '../object-meta.js';
import { isStatusError, type StatusError } from '../status-error.js';
import { serviceCIDRs } from '../../resources/servicecidrs/index.js';
import { FieldManager, type FieldManagerOptions } from './field-manager.js';
import { LAST_APPLIED_ANNOTATION } from './last-applied.js';

const API_VERSION = 'networking.platform.io/v1';
const NOW = new Date('2026-11-22T10:00:00Z');
const options = (over: Partial<FieldManagerOptions> = {}): FieldManagerOptions => ({
  group: 'networking.platform.io',
  version: 'v1',
  kind: 'ServiceCIDR',
  schema: serviceCIDRs.schemas[serviceCIDRs.schemaName]!,
  registry: { ...commonSchemas, ...serviceCIDRs.schemas },
  subresource: '',
  resetFields: ['status'],
  emptyObject: () => ({ apiVersion: API_VERSION, kind: 'ServiceCIDR', ...serviceCIDRs.zeroValue() }),
  now: () => NOW,
  ...over,
});
const main = new FieldManager(options());
const status = new FieldManager(options({ subresource: 'status', resetFields: ['metadata', 'spec'] }));

type Obj = KubeObject & { spec?: { cidrs?: string[] }; status?: { conditions?: Record<string, unknown>[] } };
const config = (metadata: Record<string, unknown>, cidrs?: string[], apiVersion = API_VERSION): Record<string, unknown> => ({
  apiVersion,
  kind: 'ServiceCIDR',
  metadata: { name: 'demo', ...metadata },
  ...(cidrs ? { spec: { cidrs } } : {}),
});
const owned = (o: KubeObject): Record<string, unknown> => Object.fromEntries((o.metadata.managedFields ?? []).map((e) => [e.manager, e.fieldsV1]));
const statusError = (fn: () => unknown): StatusError => {
  try {
    fn();
  } catch (err) {
    if (isStatusError(err)) return err;
    throw err;
  }
  assert.fail('expected a StatusError');
};
const condition = (type: string, message = 'm') => ({ type, status: 'True', reason: 'R', message, lastTransitionTime: '2026-01-01T00:00:00Z' });

describe('FieldManager edges: what is never owned', () => {
  test('type and system metadata are never owned, by a create or an apply', () => {
    const system = { namespace: 'ns', uid: 'u', resourceVersion: '7', generation: 3, creationTimestamp: '2026-01-01T00:00:00Z', selfLink: '/x', clusterName: 'c' };
    const created = { apiVersion: API_VERSION, kind: 'ServiceCIDR', metadata: { name: 'demo', ...system, labels: { a: '1' } } } as unknown as Obj;
    main.recordUpdate(undefined, created, 'creator');
    assert.deepEqual(owned(created), { creator: { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } } });

    const { clusterName: _notInSchema, ...declared } = system;
    const applied = main.apply(undefined, config({ ...declared, labels: { a: '1' } }), 'ci', false);
    assert.deepEqual(owned(applied), { ci: { 'f:metadata': { 'f:labels': { 'f:a': {} } } } });

    const changed = structuredClone(created);
    Object.assign(changed.metadata, { uid: 'v', resourceVersion: '8', generation: 4, name: 'other', namespace: 'ns2', selfLink: '/y', clusterName: 'd', creationTimestamp: '2026-02-01T00:00:00Z' });
    main.recordUpdate(created, changed, 'meta-writer');
    assert.deepEqual(owned(changed), owned(created), 'changing only system metadata owns nothing');
  });

  test('a status write owns nothing of metadata or spec, a main write nothing of status', () => {
    const live = main.apply(undefined, config({}, ['10.0.0.0/24']), 'ci', false) as Obj;
    const next = structuredClone(live);
    next.metadata.annotations = { a: '1' };
    next.spec = { cidrs: ['10.9.0.0/24'] };
    status.recordUpdate(live, next, 'controller');
    assert.deepEqual(owned(next), owned(live));
    const viaMain = main.apply(live, { ...config({}), status: { conditions: [condition('Ready')] } }, 'writer', false);
    assert.equal(owned(viaMain).writer, undefined);
  });
});

describe('FieldManager edges: identity and the clock', () => {
  test('a core-group kind writes apiVersion "v1"; an updater is known by it', () => {
    const core = new FieldManager(options({ group: '', emptyObject: () => ({ apiVersion: 'v1', kind: 'ServiceCIDR', ...serviceCIDRs.zeroValue() }) }));
    const applied = core.apply(undefined, config({ labels: { a: '1' } }, undefined, 'v1'), 'ci', false);
    assert.equal(applied.metadata.managedFields![0]!.apiVersion, 'v1');
    assert.equal(statusError(() => core.apply(undefined, config({}), 'ci', false)).status.message, 'invalid object type: networking.platform.io/v1, Kind=ServiceCIDR');
    const next = structuredClone(applied);
    next.metadata.labels = { a: '1', b: '1' };
    core.recordUpdate(applied, next, 'editor');
    assert.deepEqual(
      next.metadata.managedFields!.map((e) => [e.manager, e.operation, e.apiVersion]),
      [
        ['ci', 'Apply', 'v1'],
        ['editor', 'Update', 'v1'],
      ],
    );
  });

  test('without a clock, times are the current second', () => {
    const clockless = new FieldManager(options({ now: undefined }));
    const before = Math.floor(Date.now() / 1000) * 1000;
    const obj = clockless.apply(undefined, config({ labels: { a: '1' } }), 'ci', false);
    const at = Date.parse(obj.metadata.managedFields![0]!.time!);
    assert.ok(at >= before && at <= Date.now(), obj.metadata.managedFields![0]!.time);
  });

  test('an apply that changes the object takes the new time; one that changes nothing keeps the old', () => {
    let at = '2026-11-22T10:00:00Z';
    const clocked = new FieldManager(options({ now: () => new Date(at) }));
    const live = clocked.apply(undefined, config({ labels: { a: '1' } }), 'ci', false);
    at = '2026-11-22T11:00:00Z';
    const same = clocked.apply(live, config({ labels: { a: '1' } }), 'ci', false);
    assert.equal(same.metadata.managedFields![0]!.time, '2026-11-22T10:00:00Z');
    const changed = clocked.apply(live, config({ labels: { a: '2' } }), 'ci', false);
    assert.equal(changed.metadata.managedFields![0]!.time, '2026-11-22T11:00:00Z');
    // A first apply of the same fields by another manager changes nothing: it has no time yet.
    const shared = clocked.apply(live, config({ labels: { a: '1' } }), 'other', false);
    const entry = shared.metadata.managedFields!.find((e) => e.manager === 'other')!;
    assert.equal(entry.time, undefined);
  });
});

describe('FieldManager edges: updates', () => {
  test("a manager's update that changes nothing keeps its entry's time", () => {
    let at = '2026-11-22T10:00:00Z';
    const clocked = new FieldManager(options({ now: () => new Date(at) }));
    const live = { apiVersion: API_VERSION, kind: 'ServiceCIDR', metadata: { name: 'demo', labels: { a: '1' } } } as Obj;
    clocked.recordUpdate(undefined, live, 'writer');
    at = '2026-11-22T11:00:00Z';
    const next = structuredClone(live);
    clocked.recordUpdate(live, next, 'writer');
    assert.deepEqual(next.metadata.managedFields, live.metadata.managedFields);
    assert.equal(next.metadata.managedFields![0]!.time, '2026-11-22T10:00:00Z');
  });

  test('system fields in a table the request sets are dropped from it', () => {
    const live = { apiVersion: API_VERSION, kind: 'ServiceCIDR', metadata: { name: 'demo', labels: { a: '1' } } } as Obj;
    const next = structuredClone(live);
    next.metadata.managedFields = [
      { manager: 'other', operation: 'Apply', apiVersion: API_VERSION, fieldsType: 'FieldsV1', fieldsV1: { 'f:apiVersion': {}, 'f:metadata': { '.': {}, 'f:name': {}, 'f:uid': {}, 'f:labels': { 'f:a': {} } } } },
      { manager: 'meta-only', operation: 'Update', apiVersion: API_VERSION, fieldsType: 'FieldsV1', fieldsV1: { 'f:kind': {}, 'f:metadata': { 'f:resourceVersion': {} } } },
    ];
    main.recordUpdate(live, next, 'x');
    assert.deepEqual(owned(next), { other: { 'f:metadata': { 'f:labels': { 'f:a': {} } } } });
  });

  test('metadata that appears owns its fields, never metadata itself', () => {
    const live = { apiVersion: API_VERSION, kind: 'ServiceCIDR', spec: { cidrs: ['10.0.0.0/24'] } } as unknown as Obj;
    const next = { ...structuredClone(live), metadata: { labels: { a: '1' } } } as Obj;
    main.recordUpdate(live, next, 'labeler');
    assert.deepEqual(owned(next), { labeler: { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } } });
    const applied = main.apply(undefined, { apiVersion: API_VERSION, kind: 'ServiceCIDR', metadata: {}, spec: { cidrs: ['10.0.0.0/24'] } }, 'ci', false);
    assert.deepEqual(owned(applied), { ci: { 'f:spec': { 'f:cidrs': {} } } });
  });
});

describe('FieldManager edges: inputs', () => {
  test('the live object and the configuration are left as they were', () => {
    const live = { apiVersion: API_VERSION, kind: 'ServiceCIDR', metadata: { name: 'demo', labels: { a: '1' } }, spec: { cidrs: ['10.0.0.0/24'] } } as Obj;
    const liveCopy = structuredClone(live);
    const next = { ...structuredClone(live), metadata: { name: 'demo', labels: { a: '2' } } } as Obj;
    main.recordUpdate(live, next, 'editor');
    assert.deepEqual(live, liveCopy);
    const created = structuredClone(next);
    const createdCopy = structuredClone(created);
    const cfg = config({ labels: { b: '1' } });
    const cfgCopy = structuredClone(cfg);
    main.apply(created, cfg, 'ci', false);
    assert.deepEqual(created, createdCopy);
    assert.deepEqual(cfg, cfgCopy);
  });

  test('an object without metadata is recorded without failing', () => {
    const next = { apiVersion: API_VERSION, kind: 'ServiceCIDR' } as unknown as Obj;
    main.recordUpdate(undefined, next, 'creator');
    assert.deepEqual(next.metadata, {});
    const withSpec = { apiVersion: API_VERSION, kind: 'ServiceCIDR', spec: { cidrs: ['10.0.0.0/24'] } } as unknown as Obj;
    main.recordUpdate(undefined, withSpec, 'creator');
    assert.deepEqual(owned(withSpec), { creator: { 'f:spec': { 'f:cidrs': {} } } });
  });

  test("a live table that cannot be read counts as empty: an apply owns alone, an update starts afresh", () => {
    const live = { apiVersion: API_VERSION, kind: 'ServiceCIDR', metadata: { name: 'demo', labels: { a: '1' }, managedFields: [{ manager: 'bad', operation: 'Nope' }] } } as unknown as Obj;
    const applied = main.apply(live, config({ labels: { a: '2' } }), 'ci', false);
    assert.deepEqual(owned(applied), { ci: { 'f:metadata': { 'f:labels': { 'f:a': {} } } } });
    const next = structuredClone(live);
    next.metadata.labels = { a: '1', b: '1' };
    delete next.metadata.managedFields;
    main.recordUpdate(live, next, 'editor');
    assert.deepEqual(owned(next), { editor: { 'f:metadata': { 'f:labels': { 'f:b': {} } } } });
  });

  test('through status, a table in the request is ignored: neither a reset nor a replacement', () => {
    const live = status.apply(main.apply(undefined, config({}, ['10.0.0.0/24']), 'ci', false), { ...config({}), status: { conditions: [condition('Ready')] } }, 'controller', false) as Obj;
    for (const requested of [[], [{ manager: 'x', operation: 'Apply', apiVersion: API_VERSION, fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': {} } }]]) {
      const next = structuredClone(live);
      next.metadata.managedFields = requested as never;
      next.status!.conditions![0]!.message = 'changed';
      status.recordUpdate(live, next, 'editor');
      assert.deepEqual(Object.keys(owned(next)).sort(), ['ci', 'controller', 'editor'], JSON.stringify(requested));
    }
  });
});

describe('FieldManager edges: conflicts', () => {
  test('a manager changing its own fields has no conflict with itself', () => {
    const live = main.apply(undefined, config({ labels: { a: '1' } }, ['10.0.0.0/24']), 'ci', false);
    const next = main.apply(live, config({ labels: { a: '2' } }, ['10.1.0.0/24']), 'ci', false) as Obj;
    assert.deepEqual(next.spec, { cidrs: ['10.1.0.0/24'] });
    assert.deepEqual(owned(next), { ci: { 'f:metadata': { 'f:labels': { 'f:a': {} } }, 'f:spec': { 'f:cidrs': {} } } });
  });

  test("changing a field inside another manager's list item conflicts; forced, the item's other fields stay theirs", () => {
    const base = main.apply(undefined, config({}, ['10.0.0.0/24']), 'ci', false);
    const live = status.apply(base, { ...config({}), status: { conditions: [condition('Ready', 'a')] } }, 'controller', false);
    const err = statusError(() => status.apply(live, { ...config({}), status: { conditions: [condition('Ready', 'b')] } }, 'other', false));
    assert.equal(err.status.message, 'Apply failed with 1 conflict: conflict with "controller" with subresource "status": .status.conditions[type="Ready"].message');
    const forced = status.apply(live, { ...config({}), status: { conditions: [condition('Ready', 'b')] } }, 'other', true);
    assert.deepEqual(owned(forced).controller, {
      'f:status': { 'f:conditions': { 'k:{"type":"Ready"}': { '.': {}, 'f:lastTransitionTime': {}, 'f:reason': {}, 'f:status': {}, 'f:type': {} } } },
    });
  });

  test('an update removing a field takes it from its owner, even when the updater owns nothing after', () => {
    const live = main.apply(undefined, config({ labels: { a: '1', b: '1' } }), 'ci', false);
    const next = structuredClone(live);
    next.metadata.labels = { a: '1' };
    main.recordUpdate(live, next, 'remover');
    assert.deepEqual(owned(next), { ci: { 'f:metadata': { 'f:labels': { 'f:a': {} } } } });
  });

  test('kubectl may take fields only while they match its last-applied annotation; other conflicts remain', () => {
    const lastApplied = JSON.stringify(config({ labels: { a: '1' } }));
    const live = { apiVersion: API_VERSION, kind: 'ServiceCIDR', metadata: { name: 'demo', labels: { a: '1', b: '1' }, annotations: { [LAST_APPLIED_ANNOTATION]: lastApplied } } } as Obj;
    main.recordUpdate(undefined, live, 'kubectl-client-side-apply');
    const err = statusError(() => main.apply(live, config({ labels: { a: '2', b: '2' } }), 'kubectl', false));
    assert.equal(err.status.message, 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using networking.platform.io/v1: .metadata.labels.b');
    const drifted = structuredClone(live);
    drifted.metadata.labels = { a: '0', b: '1' };
    assert.equal(statusError(() => main.apply(drifted, config({ labels: { a: '2' } }), 'kubectl', false)).code, 409);
  });

  test('only kubectl keeps the last-applied annotation in step', () => {
    const live = main.apply(undefined, config({ annotations: { [LAST_APPLIED_ANNOTATION]: 'old' } }), 'ci', false);
    const byOther = main.apply(live, config({ annotations: { [LAST_APPLIED_ANNOTATION]: 'old' }, labels: { a: '1' } }), 'ci', false);
    assert.equal(byOther.metadata.annotations![LAST_APPLIED_ANNOTATION], 'old');
  });
});

describe('FieldManager edges: configuration checks', () => {
  test('a configuration without apiVersion or kind, or with strings of another type', () => {
    assert.equal(statusError(() => main.apply(undefined, { metadata: { name: 'demo' } }, 'ci', false)).status.message, 'invalid object type: /, Kind=');
    assert.equal(statusError(() => main.apply(undefined, { apiVersion: 1, kind: ['ServiceCIDR'] }, 'ci', false)).status.message, 'invalid object type: /, Kind=');
    assert.equal(statusError(() => main.apply(undefined, { apiVersion: API_VERSION, kind: 'ServiceCIDRList' }, 'ci', false)).code, 400);
  });

  test('managedFields: null is allowed; several problems are listed; a nameless configuration', () => {
    const ok = main.apply(undefined, config({ managedFields: null, labels: { a: '1' } }), 'ci', false);
    assert.deepEqual(owned(ok), { ci: { 'f:metadata': { 'f:labels': { 'f:a': {} } } } });
    const err = statusError(() => main.apply(undefined, { apiVersion: API_VERSION, kind: 'ServiceCIDR', spec: { bogus: 1 }, status: { conditions: [{ status: 'True' }] } }, 'ci', false));
    assert.equal(
      err.status.message,
      'failed to create typed patch object (/; networking.platform.io/v1, Kind=ServiceCIDR): errors:\n  .spec.bogus: field not declared in schema\n  .status.conditions: element 0: associative list with keys has an element that omits key field "type"',
    );
  });
});
