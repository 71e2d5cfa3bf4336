// Bodies built to exhaust the server (nesting too deep, YAML aliases expanding without end, a
// YAML value containing itself) are a 400 Status through every decode path, over real HTTPS;
// nesting up to the limit is decoded normally (deep unknown fields dropped with a warning).
// Self-reviews, which echo the client's spec, echo only its typed fields; protobuf reviews are
// read at fixed depth, however deep or repetitive the bytes.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_JSON_DEPTH } from '../../src/apimachinery/json-value.js';
import { startInProcessServer } from './in-process-server.js';
import type { HttpResult, TestServer } from './harness.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';
const JSON_PATCH = 'application/json-patch+json';
const MERGE = 'application/merge-patch+json';
const SMP = 'application/strategic-merge-patch+json';
const APPLY = 'application/apply-patch+yaml';

/** `{"x":{"x":…1…}}` with `levels` objects (the outermost included). */
const nestedJson = (levels: number, key = 'x'): string => `${`{"${key}":`.repeat(levels - 1)}{"${key}":1}${'}'.repeat(levels - 1)}`;
const nestedArray = (levels: number): string => `${'['.repeat(levels)}${']'.repeat(levels)}`;

/** Protobuf wire format: a length-delimited field, a varint field, a varint. */
const varint = (n: number): Buffer => {
  const out: number[] = [];
  for (; n >= 0x80; n = Math.floor(n / 128)) out.push((n % 128) | 0x80);
  return Buffer.from([...out, n]);
};
const pbBytes = (field: number, bytes: Buffer): Buffer => Buffer.concat([varint((field << 3) | 2), varint(bytes.length), bytes]);
const pbString = (field: number, s: string): Buffer => pbBytes(field, Buffer.from(s));
/** `k8s\0` + runtime.Unknown{typeMeta, raw} around a SelfSubjectAccessReview's fields. */
const protobufReview = (raw: Buffer): Buffer =>
  Buffer.concat([Buffer.from('k8s\0', 'latin1'), pbBytes(1, Buffer.concat([pbString(1, 'authorization.k8s.io/v1'), pbString(2, 'SelfSubjectAccessReview')])), pbBytes(2, raw)]);

const REVIEWS = [
  { path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', kind: 'SelfSubjectAccessReview', apiVersion: 'authorization.k8s.io/v1' },
  { path: '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', kind: 'SelfSubjectRulesReview', apiVersion: 'authorization.k8s.io/v1' },
  { path: '/apis/authentication.k8s.io/v1/selfsubjectreviews', kind: 'SelfSubjectReview', apiVersion: 'authentication.k8s.io/v1' },
];
const SSAR = REVIEWS[0]!.path;

const laughs =
  'a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n' +
  Array.from({ length: 9 }, (_, i) => `a${i + 1}: &a${i + 1} [${Array(10).fill(`*a${i}`).join(', ')}]`).join('\n') +
  '\napiVersion: networking.platform.io/v1\nkind: ServiceCIDR\nmetadata:\n  name: laughs\nspec:\n  cidrs: ["10.3.0.0/24"]\n';

function assert400(r: HttpResult, message: string | RegExp, context: string): void {
  assert.equal(r.status, 400, `${context}: ${r.text.slice(0, 300)}`);
  assert.equal(r.json?.kind, 'Status', context);
  assert.equal(r.json.reason, 'BadRequest', context);
  if (typeof message === 'string') assert.equal(r.json.message, message, context);
  else assert.match(r.json.message, message, context);
}

describe('deep and self-expanding bodies', () => {
  let server: TestServer;
  let rv = '';
  before(async () => {
    server = await startInProcessServer();
    const r = await server.request('POST', SC, { body: { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'target' }, spec: { cidrs: ['10.0.0.0/24'] } } });
    assert.equal(r.status, 201, r.text);
    rv = r.json.metadata.resourceVersion;
  });
  after(async () => {
    await server?.stop();
  });

  /** An object body whose spec holds an unknown field nested so that the whole body has `levels` levels. */
  const objectWithDepth = (levels: number, name = 'deep', withVersion = true): string =>
    `{"apiVersion":"networking.platform.io/v1","kind":"ServiceCIDR","metadata":{"name":"${name}"${withVersion ? `,"resourceVersion":"${rv}"` : ''}},"spec":{"cidrs":["10.2.0.0/24"],"bogus":${nestedJson(levels - 2)}}}`;

  for (const levels of [MAX_JSON_DEPTH + 1, 10_001, 200_000]) {
    test(`JSON ${levels} levels deep: 400 on create, update, every patch type, apply and delete options`, async () => {
      const tooDeep = /exceeded max depth/;
      const body = objectWithDepth(levels);
      assert400(await server.request('POST', SC, { body }), "couldn't get version/kind; json parse error: invalid character '{' exceeded max depth", 'create');
      assert400(await server.request('PUT', `${SC}/target`, { body: body.replace('"deep"', '"target"') }), tooDeep, 'update');
      assert400(await server.request('POST', SC, { body: nestedArray(levels) }), "couldn't get version/kind; json parse error: invalid character '[' exceeded max depth", 'create (arrays)');
      for (const type of [MERGE, SMP]) {
        assert400(await server.request('PATCH', `${SC}/target`, { body: `{"spec":${nestedJson(levels - 1)}}`, headers: { 'Content-Type': type } }), "error decoding patch: invalid character '{' exceeded max depth", type);
      }
      assert400(
        await server.request('PATCH', `${SC}/target`, { body: `[{"op":"add","path":"/spec/bogus","value":${nestedJson(levels - 2)}}]`, headers: { 'Content-Type': JSON_PATCH } }),
        "error decoding patch: invalid character '{' exceeded max depth",
        'json patch',
      );
      assert400(await server.request('PATCH', `${SC}/target?fieldManager=deep`, { body: body.replace('"deep"', '"target"'), headers: { 'Content-Type': APPLY } }), tooDeep, 'apply');
      assert400(await server.request('DELETE', `${SC}/target`, { body: `{"kind":"DeleteOptions","apiVersion":"v1","x":${nestedJson(levels - 1)}}` }), tooDeep, 'delete options');
      assert.equal((await server.request('GET', `${SC}/target`)).status, 200, 'the target is still there');
    });
  }

  test(`JSON exactly ${MAX_JSON_DEPTH} levels deep is decoded: the deep unknown field is dropped with a warning`, async () => {
    const r = await server.request('POST', SC, { body: objectWithDepth(MAX_JSON_DEPTH, 'deep-ok', false) });
    assert.equal(r.status, 201, r.text.slice(0, 300));
    assert.equal(r.headers.warning, '299 - "unknown field \\"spec.bogus\\""');
    for (const type of [MERGE, SMP]) {
      const p = await server.request('PATCH', `${SC}/deep-ok`, { body: `{"spec":{"bogus":${nestedJson(MAX_JSON_DEPTH - 2)}}}`, headers: { 'Content-Type': type } });
      assert.equal(p.status, 200, `${type}: ${p.text.slice(0, 300)}`);
    }
    const j = await server.request('PATCH', `${SC}/deep-ok`, { body: `[{"op":"add","path":"/spec/bogus","value":${nestedJson(MAX_JSON_DEPTH - 3)}}]`, headers: { 'Content-Type': JSON_PATCH } });
    assert.equal(j.status, 200, j.text.slice(0, 300));
  });

  test('a JSON patch nesting copies into each other past the limit is refused, not a crash', async () => {
    const ops = [{ op: 'add', path: '/metadata/annotations', value: {} }, { op: 'add', path: '/spec/bogus', value: JSON.parse(nestedJson(600)) }];
    let path = '/spec/bogus';
    for (let i = 0; i < 6; i++) {
      const next = `${path}${'/x'.repeat(599)}/y`;
      ops.push({ op: 'copy', from: '/spec/bogus', path: next } as never);
      path = next;
    }
    const r = await server.request('PATCH', `${SC}/target`, { body: JSON.stringify(ops), headers: { 'Content-Type': JSON_PATCH } });
    assert.equal(r.status, 422, r.text.slice(0, 300));
    assert.equal(r.json.message, 'the patched object is nested too deeply: exceeded max depth');
  });

  test('self-reviews: a spec nested 5,000 levels is a 400 (JSON and YAML), never a 500 when echoing it back', async () => {
    for (const r of REVIEWS) {
      const spec = `{"resourceAttributes":{"verb":"get","resource":"servicecidrs"},"namespace":"","bogus":${nestedJson(5000)}}`;
      const json = await server.request('POST', r.path, { body: `{"apiVersion":"${r.apiVersion}","kind":"${r.kind}","spec":${spec}}` });
      assert400(json, "couldn't get version/kind; json parse error: invalid character '{' exceeded max depth", `${r.kind} JSON`);
      const yaml = await server.request('POST', r.path, { body: `apiVersion: ${r.apiVersion}\nkind: ${r.kind}\nspec: {bogus: ${'['.repeat(5000)}${']'.repeat(5000)}}\n`, headers: { 'Content-Type': 'application/yaml' } });
      assert400(yaml, `error converting YAML to JSON: yaml: exceeded max depth of ${MAX_JSON_DEPTH}`, `${r.kind} YAML`);
    }
  });

  test('self-reviews echo only the typed spec: deep unknown fields within the limit are dropped, wrong types are a 400', async () => {
    const attrs = { verb: 'get', group: 'networking.platform.io', resource: 'servicecidrs', name: 'x' };
    const deep = JSON.parse(nestedJson(MAX_JSON_DEPTH - 5)) as unknown;
    const access = await server.request('POST', SSAR, { body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { ...attrs, bogus: deep }, bogus: deep } } });
    assert.equal(access.status, 201, access.text.slice(0, 300));
    assert.deepEqual(access.json.spec, { resourceAttributes: attrs });
    assert.equal(access.json.status.allowed, true);
    const rules = await server.request('POST', REVIEWS[1]!.path, { body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: 'ns', bogus: deep } } });
    assert.equal(rules.status, 201, rules.text.slice(0, 300));
    assert.deepEqual(rules.json.spec, { namespace: 'ns' });
    const who = await server.request('POST', REVIEWS[2]!.path, { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', spec: { bogus: deep } } });
    assert.equal(who.status, 201, who.text.slice(0, 300));
    assert.equal(who.json.spec, undefined);
    const wrongType = await server.request('POST', SSAR, { body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: { deep } } } } });
    assert400(wrongType, 'json: cannot unmarshal object into Go struct field spec.resourceAttributes.verb of type string', 'verb of the wrong type');
  });

  test('protobuf self-reviews are read at fixed depth: 5,000 nested unknown fields and half a million repeated ones are answered', async () => {
    let nested: Buffer = Buffer.alloc(0);
    for (let i = 0; i < 5000; i++) nested = pbBytes(15, nested);
    const attributes = pbBytes(1, Buffer.concat([pbString(2, 'list'), pbString(3, 'networking.platform.io'), pbString(5, 'servicecidrs')]));
    const headers = { 'Content-Type': 'application/vnd.kubernetes.protobuf' };
    const deep = await server.request('POST', SSAR, { body: protobufReview(Buffer.concat([pbBytes(2, Buffer.concat([attributes, nested]))])), headers });
    assert.equal(deep.status, 201, deep.text.slice(0, 300));
    assert.deepEqual(deep.json.spec, { resourceAttributes: { verb: 'list', group: 'networking.platform.io', resource: 'servicecidrs' } });
    // Each repeated field is appended, not the list copied: decoding stays linear in the body.
    const repeated = Buffer.alloc(1024 * 1024);
    for (let i = 0; i < repeated.length; i += 2) repeated[i] = 0x48; // field 9, varint 0
    const many = await server.request('POST', SSAR, { body: protobufReview(Buffer.concat([repeated, pbBytes(2, attributes)])), headers });
    assert.equal(many.status, 201, many.text.slice(0, 300));
    assert.equal(many.json.spec.resourceAttributes.resource, 'servicecidrs');
  });

  const yamlCases: { name: string; body: string; message: string }[] = [
    { name: 'billion laughs', body: laughs, message: 'error converting YAML to JSON: yaml: document contains excessive aliasing' },
    { name: 'a value containing itself', body: 'a: &a [*a]\napiVersion: networking.platform.io/v1\nkind: ServiceCIDR\nmetadata: {name: cyclic}\n', message: 'error converting YAML to JSON: yaml: anchor value contains itself' },
    { name: 'deep flow sequences', body: `a: ${'['.repeat(200_000)}${']'.repeat(200_000)}\n`, message: `error converting YAML to JSON: yaml: exceeded max depth of ${MAX_JSON_DEPTH}` },
    { name: 'deep flow mappings', body: `a: ${'{b: '.repeat(5000)}1${'}'.repeat(5000)}\n`, message: `error converting YAML to JSON: yaml: exceeded max depth of ${MAX_JSON_DEPTH}` },
    {
      name: 'deep block mappings',
      body: `${Array.from({ length: 2000 }, (_, i) => `${' '.repeat(i)}a:`).join('\n')} 1\n`,
      message: `error converting YAML to JSON: yaml: exceeded max depth of ${MAX_JSON_DEPTH}`,
    },
    { name: 'compact block sequences 2,000 deep', body: `a:\n${'- '.repeat(2000)}1\n`, message: `error converting YAML to JSON: yaml: exceeded max depth of ${MAX_JSON_DEPTH}` },
    { name: 'compact block sequences 100,000 deep', body: `${'- '.repeat(100_000)}1\n`, message: `error converting YAML to JSON: yaml: exceeded max depth of ${MAX_JSON_DEPTH}` },
    {
      name: 'block mappings and flow brackets adding up past the limit',
      body: `${Array.from({ length: 600 }, (_, i) => `${' '.repeat(i)}a:`).join('\n')} ${'['.repeat(600)}${']'.repeat(600)}\n`,
      message: `error converting YAML to JSON: yaml: exceeded max depth of ${MAX_JSON_DEPTH}`,
    },
    {
      name: 'aliases nesting a deep value into itself',
      body: `d0: &d0 ${'['.repeat(400)}${']'.repeat(400)}\nd1: &d1 ${'['.repeat(400)}*d0${']'.repeat(400)}\nd2: &d2 ${'['.repeat(400)}*d1${']'.repeat(400)}\n`,
      message: `error converting YAML to JSON: yaml: exceeded max depth of ${MAX_JSON_DEPTH}`,
    },
  ];
  for (const c of yamlCases) {
    test(`YAML ${c.name}: 400 on create, update and apply`, async () => {
      const yaml = { 'Content-Type': 'application/yaml' };
      assert400(await server.request('POST', SC, { body: c.body, headers: yaml }), c.message, 'create');
      assert400(await server.request('PUT', `${SC}/target`, { body: c.body, headers: yaml }), c.message, 'update');
      assert400(await server.request('PATCH', `${SC}/target?fieldManager=yaml`, { body: c.body, headers: { 'Content-Type': APPLY } }), `error decoding YAML: ${c.message}`, 'apply');
    });
  }
});
