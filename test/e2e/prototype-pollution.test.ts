// Client keys named `__proto__`, `constructor` and `prototype` are plain keys: through every
// body decoder (JSON and YAML create/update) and every patch type (json, merge, strategic,
// apply) over real HTTPS, they are unknown fields (a warning, or a 400 under Strict) and never
// reach a prototype. The server runs in this process, so the checks see its own Object.prototype.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startInProcessServer } from './in-process-server.js';
import type { HttpResult, TestServer } from './harness.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';
const CTB = '/apis/certificates.platform.io/v1beta1/clustertrustbundles';
const JSON_PATCH = 'application/json-patch+json';
const MERGE = 'application/merge-patch+json';
const SMP = 'application/strategic-merge-patch+json';
const APPLY = 'application/apply-patch+yaml';

const PROTO_KEYS = Object.getOwnPropertyNames(Object.prototype).sort();
const OBJECT_KEYS = Object.getOwnPropertyNames(Object).sort();
const FUNCTION_PROTO_KEYS = Object.getOwnPropertyNames(Function.prototype).sort();

/** Nothing global changed: no inherited `name`, no new or replaced members of Object. */
function assertPrototypesUntouched(context: string): void {
  const probe: Record<string, unknown> = {};
  assert.equal(probe.name, undefined, `${context}: ({}).name`);
  assert.equal(probe.x, undefined, `${context}: ({}).x`);
  assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), PROTO_KEYS, `${context}: Object.prototype keys`);
  assert.deepEqual(Object.getOwnPropertyNames(Object).sort(), OBJECT_KEYS, `${context}: Object keys`);
  assert.deepEqual(Object.getOwnPropertyNames(Function.prototype).sort(), FUNCTION_PROTO_KEYS, `${context}: Function.prototype keys`);
  assert.equal(typeof Object.assign, 'function', `${context}: Object.assign`);
  assert.equal(Object.getPrototypeOf(probe), Object.prototype);
}

/** Answers to hostile keys: 2xx (dropped with a warning) or a Status 4xx, never 5xx. */
function assertHandled(r: HttpResult, context: string): void {
  assert.ok(r.status < 500, `${context}: ${r.status} ${r.text}`);
  if (r.status >= 400) assert.equal(r.json?.kind, 'Status', `${context}: ${r.text}`);
}

/** Every object of the kind, as stored: none may carry the hostile keys. */
async function assertStoredClean(server: TestServer, path: string): Promise<void> {
  const list = await server.request('GET', path);
  assert.equal(list.status, 200, list.text);
  assert.doesNotMatch(list.text, /__proto__|"constructor"|"prototype"/, 'no hostile key is stored');
}

const hostileFragments: { name: string; body: Record<string, unknown> }[] = [
  { name: 'metadata.__proto__', body: JSON.parse('{"metadata":{"__proto__":{"name":"polluted","x":1}}}') },
  { name: 'top-level __proto__', body: JSON.parse('{"__proto__":{"name":"polluted","x":1}}') },
  { name: 'spec.__proto__', body: JSON.parse('{"spec":{"__proto__":{"name":"polluted","x":1}}}') },
  { name: 'status.__proto__', body: JSON.parse('{"status":{"__proto__":{"name":"polluted"},"conditions":[{"type":"A","status":"True","lastTransitionTime":"2024-01-01T00:00:00Z","reason":"R","message":"m","__proto__":{"x":1}}]}}') },
  { name: 'metadata.constructor.prototype', body: JSON.parse('{"metadata":{"constructor":{"prototype":{"name":"polluted","x":1}}}}') },
  { name: 'metadata.labels.__proto__', body: JSON.parse('{"metadata":{"labels":{"__proto__":{"name":"polluted"}}}}') },
  { name: 'spec.constructor', body: JSON.parse('{"spec":{"constructor":{"name":"polluted"},"prototype":1}}') },
];

describe('prototype pollution', () => {
  let server: TestServer;
  before(async () => {
    server = await startInProcessServer();
    const created = await server.request('POST', SC, { body: { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'target' }, spec: { cidrs: ['10.0.0.0/24'] } } });
    assert.equal(created.status, 201, created.text);
  });
  after(async () => {
    await server?.stop();
  });

  async function assertNamelessCreateRefused(context: string): Promise<void> {
    const r = await server.request('POST', SC, { body: { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', spec: { cidrs: ['10.9.0.0/24'] } } });
    assert.equal(r.status, 422, `${context}: a create without a name: ${r.text}`);
    assert.equal(r.json.details.causes[0].field, 'metadata.name');
  }

  for (const subresource of ['', '/status']) {
    for (const type of [MERGE, SMP]) {
      for (const f of hostileFragments) {
        test(`${type} on ${subresource || 'the main resource'}: ${f.name}`, async () => {
          const r = await server.request('PATCH', `${SC}/target${subresource}`, { body: JSON.stringify(f.body), headers: { 'Content-Type': type } });
          assertHandled(r, f.name);
          assertPrototypesUntouched(f.name);
          const strict = await server.request('PATCH', `${SC}/target${subresource}?fieldValidation=Strict`, { body: JSON.stringify(f.body), headers: { 'Content-Type': type } });
          assertHandled(strict, `${f.name} (Strict)`);
          assert.notEqual(strict.status, 200, `${f.name} (Strict) is refused: ${strict.text}`);
          assertPrototypesUntouched(`${f.name} (Strict)`);
          await assertNamelessCreateRefused(f.name);
        });
      }
    }
  }

  test('the reported case: strategic merge metadata.__proto__ is an unknown field, with a warning', async () => {
    const r = await server.request('PATCH', `${SC}/target`, { body: '{"metadata":{"__proto__":{"name":"x"}}}', headers: { 'Content-Type': SMP } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers.warning, '299 - "unknown field \\"metadata.__proto__\\""');
    assert.equal(r.json.metadata.name, 'target');
    const strict = await server.request('PATCH', `${SC}/target?fieldValidation=Strict`, { body: '{"metadata":{"__proto__":{"name":"x"}}}', headers: { 'Content-Type': SMP } });
    assert.equal(strict.status, 400, strict.text);
    assert.equal(strict.json.message, 'strict decoding error: unknown field "metadata.__proto__"');
    assertPrototypesUntouched('reported case');
    await assertNamelessCreateRefused('reported case');
    await assertStoredClean(server, SC);
  });

  const jsonPatches: { name: string; ops: unknown[] }[] = [
    { name: 'add /metadata/__proto__', ops: [{ op: 'add', path: '/metadata/__proto__', value: { name: 'polluted', x: 1 } }] },
    { name: 'add /metadata/__proto__/name', ops: [{ op: 'add', path: '/metadata/__proto__/name', value: 'polluted' }] },
    { name: 'add /metadata/constructor/prototype/name', ops: [{ op: 'add', path: '/metadata/constructor/prototype/name', value: 'polluted' }] },
    { name: 'replace /metadata/constructor/assign', ops: [{ op: 'replace', path: '/metadata/constructor/assign', value: 1 }] },
    { name: 'add /spec/constructor/x', ops: [{ op: 'add', path: '/spec/constructor/x', value: 1 }] },
    { name: 'copy from /metadata/constructor', ops: [{ op: 'copy', from: '/metadata/constructor', path: '/metadata/annotations' }] },
    { name: 'move from /metadata/__proto__', ops: [{ op: 'move', from: '/metadata/__proto__', path: '/spec/x' }] },
    { name: 'test /metadata/constructor', ops: [{ op: 'test', path: '/metadata/constructor', value: {} }] },
    { name: 'remove /metadata/hasOwnProperty', ops: [{ op: 'remove', path: '/metadata/hasOwnProperty' }] },
    { name: 'add then write through __proto__', ops: [{ op: 'add', path: '/spec/extra', value: {} }, { op: 'add', path: '/spec/extra/__proto__', value: { x: 1 } }, { op: 'add', path: '/spec/extra/__proto__/name', value: 'polluted' }] },
  ];
  for (const subresource of ['', '/status']) {
    for (const p of jsonPatches) {
      test(`json patch on ${subresource || 'the main resource'}: ${p.name}`, async () => {
        const r = await server.request('PATCH', `${SC}/target${subresource}`, { body: JSON.stringify(p.ops), headers: { 'Content-Type': JSON_PATCH } });
        assertHandled(r, p.name);
        assertPrototypesUntouched(p.name);
        await assertNamelessCreateRefused(p.name);
      });
    }
  }

  test('json patch: inherited members are not there (a test against them fails, a copy from them is missing)', async () => {
    const t = await server.request('PATCH', `${SC}/target`, { body: JSON.stringify([{ op: 'test', path: '/metadata/constructor', value: {} }]), headers: { 'Content-Type': JSON_PATCH } });
    assert.equal(t.status, 422, t.text);
    assert.equal(t.json.message, 'testing value /metadata/constructor failed: test failed');
    const c = await server.request('PATCH', `${SC}/target`, { body: JSON.stringify([{ op: 'copy', from: '/metadata/toString', path: '/spec/x' }]), headers: { 'Content-Type': JSON_PATCH } });
    assert.equal(c.status, 422, c.text);
    assert.match(c.json.message, /^copy operation does not apply: doc is missing from path: \/metadata\/toString/);
    const a = await server.request('PATCH', `${SC}/target`, { body: JSON.stringify([{ op: 'add', path: '/metadata/__proto__', value: { name: 'x' } }]), headers: { 'Content-Type': JSON_PATCH } });
    assert.equal(a.status, 200, a.text);
    assert.equal(a.headers.warning, '299 - "unknown field \\"metadata.__proto__\\""');
    assertPrototypesUntouched('json patch');
    await assertStoredClean(server, SC);
  });

  for (const subresource of ['', '/status']) {
    for (const f of hostileFragments) {
      test(`apply (JSON and YAML) on ${subresource || 'the main resource'}: ${f.name}`, async () => {
        const config = { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', ...f.body, metadata: { name: 'target', ...(f.body.metadata as object) } };
        const json = JSON.stringify(config);
        const r = await server.request('PATCH', `${SC}/target${subresource}?fieldManager=fuzz&force=true`, { body: json, headers: { 'Content-Type': APPLY } });
        assertHandled(r, f.name);
        assert.notEqual(r.status, 200, `an undeclared field cannot be applied: ${r.text}`);
        // The same configuration as YAML (block style).
        const yaml = `apiVersion: networking.platform.io/v1\nkind: ServiceCIDR\nmetadata:\n  name: target\n  __proto__:\n    name: polluted\n  constructor:\n    prototype:\n      name: polluted\n`;
        const y = await server.request('PATCH', `${SC}/target${subresource}?fieldManager=fuzz&force=true`, { body: yaml, headers: { 'Content-Type': APPLY } });
        assertHandled(y, `${f.name} (YAML)`);
        assertPrototypesUntouched(f.name);
        await assertNamelessCreateRefused(f.name);
      });
    }
  }

  test('apply: __proto__ is a field not declared in schema', async () => {
    const r = await server.request('PATCH', `${SC}/target?fieldManager=fuzz&force=true`, {
      body: '{"apiVersion":"networking.platform.io/v1","kind":"ServiceCIDR","metadata":{"name":"target","__proto__":{"name":"x"}}}',
      headers: { 'Content-Type': APPLY },
    });
    assert.equal(r.status, 400, r.text);
    assert.match(r.json.message, /\.metadata\.__proto__: field not declared in schema/);
    assertPrototypesUntouched('apply');
  });

  const createBodies: { name: string; body: string; contentType: string }[] = [
    { name: 'JSON metadata.__proto__', contentType: 'application/json', body: '{"apiVersion":"networking.platform.io/v1","kind":"ServiceCIDR","metadata":{"generateName":"g-","__proto__":{"name":"polluted"}},"spec":{"cidrs":["10.1.0.0/24"]}}' },
    { name: 'JSON top-level __proto__', contentType: 'application/json', body: '{"__proto__":{"name":"polluted"},"apiVersion":"networking.platform.io/v1","kind":"ServiceCIDR","metadata":{"generateName":"g-"},"spec":{"cidrs":["10.1.0.0/24"]}}' },
    { name: 'JSON spec.constructor.prototype', contentType: 'application/json', body: '{"apiVersion":"networking.platform.io/v1","kind":"ServiceCIDR","metadata":{"generateName":"g-"},"spec":{"cidrs":["10.1.0.0/24"],"constructor":{"prototype":{"name":"polluted"}}}}' },
    { name: 'YAML metadata.__proto__', contentType: 'application/yaml', body: 'apiVersion: networking.platform.io/v1\nkind: ServiceCIDR\nmetadata:\n  generateName: g-\n  __proto__:\n    name: polluted\nspec:\n  cidrs: ["10.1.0.0/24"]\n' },
    { name: 'YAML flow __proto__ and constructor', contentType: 'application/yaml', body: '{apiVersion: networking.platform.io/v1, kind: ServiceCIDR, __proto__: {name: polluted}, constructor: {prototype: {name: polluted}}, metadata: {generateName: g-}, spec: {cidrs: ["10.1.0.0/24"]}}' },
    { name: 'YAML merge key into __proto__', contentType: 'application/yaml', body: 'base: &b {name: polluted}\napiVersion: networking.platform.io/v1\nkind: ServiceCIDR\nmetadata:\n  generateName: g-\n  __proto__:\n    <<: *b\nspec:\n  cidrs: ["10.1.0.0/24"]\n' },
  ];
  for (const c of createBodies) {
    test(`create and update: ${c.name}`, async () => {
      const r = await server.request('POST', SC, { body: c.body, headers: { 'Content-Type': c.contentType } });
      assertHandled(r, c.name);
      assert.equal(r.status, 201, `an unknown field is dropped with a warning: ${r.text}`);
      assert.match(String(r.headers.warning), /unknown field/);
      assertPrototypesUntouched(c.name);
      const strict = await server.request('POST', `${SC}?fieldValidation=Strict`, { body: c.body, headers: { 'Content-Type': c.contentType } });
      assert.equal(strict.status, 400, strict.text);
      assert.match(strict.json.message, /^strict decoding error: unknown field/);
      // The same body as an update of the object just created.
      const name = r.json.metadata.name as string;
      const current = (await server.request('GET', `${SC}/${name}`)).json;
      const updateBody = c.contentType === 'application/json' ? c.body.replace('"generateName":"g-"', `"name":"${name}","resourceVersion":"${current.metadata.resourceVersion}"`) : c.body.replace('generateName: g-', `name: ${name}, resourceVersion: "${current.metadata.resourceVersion}"`).replace(/generateName: g-\n/, `name: ${name}\n  resourceVersion: "${current.metadata.resourceVersion}"\n`);
      const u = await server.request('PUT', `${SC}/${name}`, { body: updateBody, headers: { 'Content-Type': c.contentType } });
      assertHandled(u, `${c.name} (update)`);
      assertPrototypesUntouched(`${c.name} (update)`);
      await assertNamelessCreateRefused(c.name);
    });
  }

  test('a ClusterTrustBundle create with hostile keys', async () => {
    const r = await server.request('POST', CTB, {
      body: '{"apiVersion":"certificates.platform.io/v1beta1","kind":"ClusterTrustBundle","metadata":{"name":"ctb-proto","__proto__":{"name":"polluted"}},"spec":{"__proto__":{"x":1},"trustBundle":"x"}}',
    });
    assertHandled(r, 'ctb');
    assertPrototypesUntouched('ctb');
  });

  test('nothing stored carries a hostile key, and the prototype is clean at the end', async () => {
    await assertStoredClean(server, SC);
    await assertStoredClean(server, CTB);
    assertPrototypesUntouched('end');
    await assertNamelessCreateRefused('end');
  });
});
