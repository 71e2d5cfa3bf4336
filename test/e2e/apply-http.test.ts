// Server-side apply and managedFields on the wire (real HTTPS, real SQLite): what controllers and
// client libraries send, and kube-apiserver's exact answers.

// The ServiceCIDR controller's own writes (finalizer, Ready) are tested in controllers.test.ts; these
// tests pin API behaviour exactly (events, managedFields, finalizers), so it is off here.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './harness.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';
const APPLY = { 'Content-Type': 'application/apply-patch+yaml' };
const MERGE = { 'Content-Type': 'application/merge-patch+json' };

const condition = (status: string) => ({ type: 'Ready', status, reason: 'Checked', message: 'ok', lastTransitionTime: '2026-11-22T00:00:00Z' });

describe('server-side apply over HTTPS', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ args: ['--controllers=-service-cidr-controller'] });
  });
  after(async () => {
    await server?.stop();
  });

  test('apply creates (201) from YAML, then updates (200); the applier owns what it sent', async () => {
    const yaml = 'apiVersion: networking.platform.io/v1\nkind: ServiceCIDR\nmetadata:\n  name: applied\n  labels:\n    team: a\nspec:\n  cidrs: ["10.10.0.0/24"]\n';
    const created = await server.request('PATCH', `${SC}/applied?fieldManager=ci`, { body: yaml, headers: APPLY });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.json.metadata.managedFields.map((e: any) => [e.manager, e.operation, e.fieldsType, e.fieldsV1]), [
      ['ci', 'Apply', 'FieldsV1', { 'f:metadata': { 'f:labels': { 'f:team': {} } }, 'f:spec': { 'f:cidrs': {} } }],
    ]);
    assert.match(created.json.metadata.managedFields[0].time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    const updated = await server.request('PATCH', `${SC}/applied?fieldManager=ci`, {
      body: { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'applied', labels: { team: 'b' } }, spec: { cidrs: ['10.10.0.0/24'] } },
      headers: APPLY,
    });
    assert.equal(updated.status, 200, updated.text);
    assert.deepEqual(updated.json.metadata.labels, { team: 'b' });
  });

  test('fieldManager is required; force only goes with apply; bad configurations are 400', async () => {
    const body = { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'x' }, spec: { cidrs: ['10.11.0.0/24'] } };
    const noManager = await server.request('PATCH', `${SC}/x`, { body, headers: APPLY });
    assert.equal(noManager.status, 422, noManager.text);
    assert.equal(noManager.json.message, 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
    const forced = await server.request('PATCH', `${SC}/x?force=true`, { body: '{}', headers: MERGE });
    assert.equal(forced.status, 422, forced.text);
    assert.equal(forced.json.message, 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');

    const unknown = await server.request('PATCH', `${SC}/x?fieldManager=ci`, { body: { ...body, spec: { cidrs: [], extra: true } }, headers: APPLY });
    assert.equal(unknown.status, 400, unknown.text);
    assert.equal(unknown.json.message, 'failed to create typed patch object (/x; networking.platform.io/v1, Kind=ServiceCIDR): .spec.extra: field not declared in schema');
    const wrongKind = await server.request('PATCH', `${SC}/x?fieldManager=ci`, { body: { ...body, kind: 'Pod' }, headers: APPLY });
    assert.equal(wrongKind.json.message, 'invalid object type: networking.platform.io/v1, Kind=Pod');
    const renamed = await server.request('PATCH', `${SC}/x?fieldManager=ci`, { body: { ...body, metadata: { name: 'y' } }, headers: APPLY });
    assert.equal(renamed.json.message, 'the name of the object (y) does not match the name on the URL (x)');
    const notYaml = await server.request('PATCH', `${SC}/x?fieldManager=ci`, { body: '- a\n- b\n', headers: APPLY });
    assert.equal(notYaml.status, 400, notYaml.text);
    assert.equal((await server.request('GET', `${SC}/x`)).status, 404, 'nothing was created');
  });

  test('conflicts answer 409 with one FieldManagerConflict cause per field; force=true takes ownership', async () => {
    const created = await server.request('POST', `${SC}?fieldManager=creator`, {
      body: { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'contested', labels: { a: '1' } }, spec: { cidrs: ['10.12.0.0/24'] } },
    });
    assert.equal(created.status, 201, created.text);
    const config = { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'contested', labels: { a: '2' } } };
    const refused = await server.request('PATCH', `${SC}/contested?fieldManager=ci`, { body: config, headers: APPLY });
    assert.equal(refused.status, 409, refused.text);
    assert.deepEqual(refused.json, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Apply failed with 1 conflict: conflict with "creator" using networking.platform.io/v1: .metadata.labels.a',
      reason: 'Conflict',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "creator" using networking.platform.io/v1', field: '.metadata.labels.a' }] },
      code: 409,
    });
    const taken = await server.request('PATCH', `${SC}/contested?fieldManager=ci&force=true`, { body: config, headers: APPLY });
    assert.equal(taken.status, 200, taken.text);
    assert.deepEqual(
      taken.json.metadata.managedFields.map((e: any) => [e.manager, e.fieldsV1]),
      [
        ['ci', { 'f:metadata': { 'f:labels': { 'f:a': {} } } }],
        ['creator', { 'f:metadata': { 'f:labels': {} }, 'f:spec': { 'f:cidrs': {} } }],
      ],
    );
  });

  test('a no-op apply or patch keeps resourceVersion and managedFields times', async () => {
    const config = { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'steady', labels: { k: 'v' } }, spec: { cidrs: ['10.13.0.0/24'] } };
    const first = await server.request('PATCH', `${SC}/steady?fieldManager=ci`, { body: config, headers: APPLY });
    assert.equal(first.status, 201, first.text);
    await new Promise((r) => setTimeout(r, 1100)); // a changed time would show at second precision
    const again = await server.request('PATCH', `${SC}/steady?fieldManager=ci`, { body: config, headers: APPLY });
    assert.equal(again.json.metadata.resourceVersion, first.json.metadata.resourceVersion);
    assert.deepEqual(again.json.metadata.managedFields, first.json.metadata.managedFields);
    const patched = await server.request('PATCH', `${SC}/steady`, { body: { metadata: { labels: { k: 'v' } } }, headers: MERGE });
    assert.equal(patched.json.metadata.resourceVersion, first.json.metadata.resourceVersion);
    assert.deepEqual(patched.json.metadata.managedFields, first.json.metadata.managedFields);
  });

  test('dryRun=All applies nothing; a resourceVersion in the configuration is a precondition', async () => {
    const config = { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'dry' }, spec: { cidrs: ['10.14.0.0/24'] } };
    const dry = await server.request('PATCH', `${SC}/dry?fieldManager=ci&dryRun=All`, { body: config, headers: APPLY });
    assert.equal(dry.status, 201, dry.text);
    assert.equal((await server.request('GET', `${SC}/dry`)).status, 404);
    const real = await server.request('PATCH', `${SC}/dry?fieldManager=ci`, { body: config, headers: APPLY });
    await server.request('PATCH', `${SC}/dry`, { body: { metadata: { labels: { bump: '1' } } }, headers: MERGE });
    const stale = await server.request('PATCH', `${SC}/dry?fieldManager=ci`, {
      body: { ...config, metadata: { name: 'dry', resourceVersion: real.json.metadata.resourceVersion } },
      headers: APPLY,
    });
    assert.equal(stale.status, 409, stale.text);
    assert.equal(stale.json.reason, 'Conflict');
  });

  test('apply to /status owns only status; the controller force-applies its condition', async () => {
    const base = { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'with-status' } };
    await server.request('PATCH', `${SC}/with-status?fieldManager=ci`, { body: { ...base, spec: { cidrs: ['10.15.0.0/24'] } }, headers: APPLY });
    const missing = await server.request('PATCH', `${SC}/absent/status?fieldManager=ctl`, { body: { ...base, metadata: { name: 'absent' } }, headers: APPLY });
    assert.equal(missing.status, 404, 'apply to /status does not create');
    const r = await server.request('PATCH', `${SC}/with-status/status?fieldManager=service-cidr-controller&force=true`, {
      body: { ...base, spec: { cidrs: ['10.99.0.0/24'] }, status: { conditions: [condition('True')] } },
      headers: APPLY,
    });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.spec.cidrs, ['10.15.0.0/24'], 'spec is not changed through /status');
    assert.equal(r.json.status.conditions[0].status, 'True');
    const entry = r.json.metadata.managedFields.find((e: any) => e.manager === 'service-cidr-controller');
    assert.equal(entry.subresource, 'status');
    assert.deepEqual(Object.keys(entry.fieldsV1), ['f:status']);
  });

  test('every create, update and patch records its manager: fieldManager, else the user-agent prefix', async () => {
    const created = await server.request('POST', SC, {
      body: { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'tracked' }, spec: { cidrs: ['10.16.0.0/24'] } },
      headers: { 'User-Agent': 'my-operator/1.2 (linux)' },
    });
    assert.deepEqual(created.json.metadata.managedFields.map((e: any) => [e.manager, e.operation]), [['my-operator', 'Update']]);
    const put = { ...created.json, metadata: { ...created.json.metadata, labels: { via: 'put' } } };
    const updated = await server.request('PUT', `${SC}/tracked?fieldManager=replacer`, { body: put });
    const byManager = (entries: any[]) => entries.map((e: any) => [e.manager, e.fieldsV1]).sort((a, b) => (a[0] < b[0] ? -1 : 1));
    assert.deepEqual(updated.json.metadata.managedFields.map((e: any) => e.manager).sort(), ['my-operator', 'replacer']);
    const patched = await server.request('PATCH', `${SC}/tracked?fieldManager=patcher`, {
      body: [{ op: 'add', path: '/metadata/labels/json', value: 'patch' }],
      headers: { 'Content-Type': 'application/json-patch+json' },
    });
    // Update entries are ordered by time, then manager: sort to be independent of the clock.
    assert.deepEqual(byManager(patched.json.metadata.managedFields), [
      ['my-operator', { 'f:spec': { 'f:cidrs': {} } }],
      ['patcher', { 'f:metadata': { 'f:labels': { 'f:json': {} } } }],
      ['replacer', { 'f:metadata': { 'f:labels': { '.': {}, 'f:via': {} } } }],
    ]);
  });

  test('concurrent patches and applies to one object all land (lost races are retried)', async () => {
    const base = { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'busy' }, spec: { cidrs: ['10.17.0.0/24'] } };
    assert.equal((await server.request('POST', SC, { body: base })).status, 201);
    const patches = Array.from({ length: 20 }, (_, i) =>
      server.request('PATCH', `${SC}/busy?fieldManager=patcher-${i}`, { body: { metadata: { labels: { [`p${i}`]: 'x' } } }, headers: MERGE }),
    );
    const applies = Array.from({ length: 10 }, (_, i) =>
      server.request('PATCH', `${SC}/busy?fieldManager=applier-${i}`, { body: { ...base, spec: undefined, metadata: { name: 'busy', labels: { [`a${i}`]: 'y' } } }, headers: APPLY }),
    );
    for (const r of await Promise.all([...patches, ...applies])) assert.equal(r.status, 200, r.text);
    const obj = (await server.request('GET', `${SC}/busy`)).json;
    const expected = Object.fromEntries([...Array.from({ length: 20 }, (_, i) => [`p${i}`, 'x']), ...Array.from({ length: 10 }, (_, i) => [`a${i}`, 'y'])]);
    assert.deepEqual(obj.metadata.labels, expected);
    const appliers = obj.metadata.managedFields.filter((e: any) => e.operation === 'Apply').map((e: any) => e.manager).sort();
    assert.deepEqual(appliers, Array.from({ length: 10 }, (_, i) => `applier-${i}`).sort());
  });

  test('a null list element decodes as the zero value (a 422, never a 500), for POST and apply alike', async () => {
    const body = { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'nulls', finalizers: [null] }, spec: { cidrs: ['10.18.0.0/24'] } };
    const posted = await server.request('POST', SC, { body });
    assert.equal(posted.status, 422, posted.text);
    assert.match(posted.json.message, /metadata.finalizers: Invalid value: "": name part must be non-empty/);
    const applied = await server.request('PATCH', `${SC}/nulls?fieldManager=ci`, { body, headers: APPLY });
    assert.equal(applied.status, 422, applied.text);
  });
});
