// Key order never matters and never leaks: a PUT of the same object with its keys in another
// order is a no-op (same resourceVersion, same generation), and objects come back in kube's
// field order (apiVersion, kind, metadata in ObjectMeta's order, spec, status; map keys sorted)
// whatever order the client sent.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './harness.js';
import { makeCACert } from '../fixtures/certs.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';
const CTB = '/apis/certificates.platform.io/v1beta1/clustertrustbundles';
const META_ORDER = ['name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers', 'managedFields'];

/** The same JSON value with every object's keys in reverse order. */
const reversed = (v: unknown): any => {
  if (Array.isArray(v)) return v.map(reversed);
  if (typeof v !== 'object' || v === null) return v;
  return Object.fromEntries(Object.entries(v).reverse().map(([k, x]) => [k, reversed(x)]));
};

/** Keys of `o` must be a subsequence of `order`, in that order. */
const inOrder = (o: object, order: string[], what: string) => {
  const keys = Object.keys(o);
  assert.deepEqual(keys, order.filter((k) => keys.includes(k)), what);
  assert.ok(keys.every((k) => order.includes(k)), `${what}: unexpected keys ${keys}`);
};

describe('canonical field order and structural no-ops', () => {
  let server: TestServer;
  before(async () => {
    // These tests pin API behaviour exactly (resourceVersions, finalizers, events); the
    // ServiceCIDR controllers' own writes are tested in controllers.test.ts.
    server = await startServer({ args: ['--controllers=-service-cidr-controller'] });
  });
  after(async () => {
    await server?.stop();
  });

  test('a ServiceCIDR sent in reverse order is served in kube order; a reordered PUT is a no-op', async () => {
    const body = reversed({
      apiVersion: 'networking.platform.io/v1',
      kind: 'ServiceCIDR',
      metadata: { name: 'ordered', labels: { a: '1', c: '3', b: '2' }, annotations: { 'z.io/x': 'z', 'a.io/y': 'a' }, finalizers: ['example.com/keep'] },
      spec: { cidrs: ['10.77.0.0/16'] },
    });
    const created = await server.request('POST', `${SC}?fieldManager=t`, { body });
    assert.equal(created.status, 201, created.text);
    for (const r of [created, await server.request('GET', `${SC}/ordered`)]) {
      inOrder(r.json, ['apiVersion', 'kind', 'metadata', 'spec', 'status'], 'top level');
      inOrder(r.json.metadata, META_ORDER, 'metadata');
      assert.deepEqual(Object.keys(r.json.metadata.labels), ['a', 'b', 'c']);
      assert.deepEqual(Object.keys(r.json.metadata.annotations), ['a.io/y', 'z.io/x']);
      inOrder(r.json.metadata.managedFields[0], ['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1', 'subresource'], 'managedFields');
    }
    const live = (await server.request('GET', `${SC}/ordered`)).json;
    const put = await server.request('PUT', `${SC}/ordered?fieldManager=t`, { body: reversed(live) });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.json.metadata.resourceVersion, live.metadata.resourceVersion, 'no new resourceVersion');
    assert.equal(put.json.metadata.generation, live.metadata.generation, 'no new generation');
    assert.equal(put.text, (await server.request('GET', `${SC}/ordered`)).text);

    // A status write in reverse order comes back in Condition's field order.
    const cond = { type: 'Ready', status: 'True', observedGeneration: 1, lastTransitionTime: '2026-01-01T00:00:00Z', reason: 'Fine', message: 'ok' };
    const st = await server.request('PUT', `${SC}/ordered/status`, { body: reversed({ ...live, status: { conditions: [cond] } }) });
    assert.equal(st.status, 200, st.text);
    assert.deepEqual(Object.keys(st.json.status.conditions[0]), Object.keys(cond));
    inOrder(st.json, ['apiVersion', 'kind', 'metadata', 'spec', 'status'], 'after status write');
  });

  test('a ClusterTrustBundle with its spec keys swapped keeps its generation and resourceVersion', async () => {
    const pem = (await makeCACert({ commonName: 'order-root' })).pem;
    const created = await server.request('POST', CTB, {
      body: { spec: { trustBundle: pem, signerName: 'example.com/order' }, metadata: { name: 'example.com:order:x' }, kind: 'ClusterTrustBundle', apiVersion: 'certificates.platform.io/v1beta1' },
    });
    assert.equal(created.status, 201, created.text);
    inOrder(created.json, ['apiVersion', 'kind', 'metadata', 'spec'], 'top level');
    assert.deepEqual(Object.keys(created.json.spec), ['signerName', 'trustBundle']);
    // Unescaped ':' in the path: this test is not about frontdoor's percent-decoding.
    const put = await server.request('PUT', `${CTB}/example.com:order:x`, { body: reversed(created.json) });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.json.metadata.resourceVersion, created.json.metadata.resourceVersion);
    assert.equal(put.json.metadata.generation, 1);
    const changed = await server.request('PUT', `${CTB}/example.com:order:x`, { body: { ...created.json, metadata: { ...created.json.metadata, labels: { x: 'y' } } } });
    assert.equal(changed.status, 200, changed.text);
    assert.notEqual(changed.json.metadata.resourceVersion, created.json.metadata.resourceVersion, 'a real change still writes');
    assert.equal(changed.json.metadata.generation, 1, 'a metadata change does not bump generation');
  });
});
