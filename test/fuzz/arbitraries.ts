// fast-check generators of hostile requests against the two kinds: plausible objects mutated
// (hostile keys, wrong types, deep nesting, huge and odd numbers, bad UTF-8), random JSON,
// YAML (aliases, tags, anchors), the four patch types with their directives, and odd headers
// and query parameters. A request is plain data so a failure prints as a replayable case.

import fc from 'fast-check';
import { stringify as toYaml } from 'yaml';

export const SC = '/apis/networking.platform.io/v1/servicecidrs';
export const CTB = '/apis/certificates.platform.io/v1beta1/clustertrustbundles';

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** Body bytes as base64 (so that bad UTF-8 survives printing), or undefined for none. */
  body?: string;
}

/** `.` and `..` as a name: the path resolves elsewhere (frontdoor's percent-decoded path segments). */

/** A small pool, so that writes meet existing objects. */
const NAMES = ['a', 'b', 'c', 'example.com:signer:x', 'x-1'];

const HOSTILE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', '$patch', '$retainKeys', ''];

const oddNumber = fc.constantFrom<unknown>(
  9007199254740993,
  -9007199254740993,
  1e308,
  -0,
  0.5,
  1e-320,
  -1,
  2 ** 63,
  18446744073709551616,
  Number.MAX_SAFE_INTEGER,
);
/** Numbers as raw JSON text, for what JSON.stringify cannot write (1e400 is Infinity when parsed). */
const RAW_NUMBERS = ['1e400', '-1e400', '18446744073709551616', '0.0000000000000000000000001', '-0', '1E+2', '123456789012345678901234567890'];

const oddString = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom('', ' ', 'a'.repeat(300), '10.0.0.0/24', '2001:db8::/64', '0.0.0.0/0', '10.0.0.0/33', 'example.com/signer', '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n', '\u0000', '\ud800', 'Ω≈ç√'),
  fc.constantFrom(...HOSTILE_KEYS),
);

const scalar = fc.oneof(oddString, oddNumber, fc.boolean(), fc.constant(null), fc.integer());

const hostileKey = fc.oneof(fc.constantFrom(...HOSTILE_KEYS), fc.string({ maxLength: 8 }), fc.constantFrom('metadata', 'spec', 'status', 'name', 'labels', 'cidrs', 'conditions', 'finalizers', 'ownerReferences', 'managedFields', 'resourceVersion', 'generation', 'uid'));

/** Arbitrary JSON values built from hostile keys and odd scalars. */
const hostileValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(hostileKey, tie('value'), { maxKeys: 4 }),
})).value;

const cidrs = fc.oneof(
  fc.constant(['10.0.0.0/24']),
  fc.constant(['10.0.0.0/24', '2001:db8::/64']),
  fc.array(oddString, { maxLength: 3 }),
  fc.constant(['10.0.0.0/24', '10.1.0.0/24', '10.2.0.0/24']),
);

const condition = fc.record({
  type: fc.constantFrom('Ready', 'A', ''),
  status: fc.constantFrom('True', 'False', 'Unknown', 'x'),
  lastTransitionTime: fc.constantFrom('2024-01-01T00:00:00Z', 'nope', ''),
  reason: fc.constantFrom('R', '', 'bad reason'),
  message: oddString,
});

const ownerRef = fc.record({ apiVersion: fc.constantFrom('v1', 'g/v1', ''), kind: fc.constantFrom('K', ''), name: fc.constantFrom('o', ''), uid: fc.constantFrom('u1', 'u2', ''), controller: fc.boolean() });

const metadata = fc.record(
  {
    name: fc.oneof(fc.constantFrom(...NAMES), oddString),
    generateName: fc.constantFrom('g-', 'G_', ''),
    labels: fc.dictionary(fc.oneof(fc.constantFrom('app', 'example.com/x', 'bad key'), hostileKey), fc.oneof(fc.constantFrom('v', ''), oddString), { maxKeys: 3 }),
    annotations: fc.dictionary(fc.oneof(fc.constantFrom('note', 'kubectl.kubernetes.io/last-applied-configuration'), hostileKey), oddString, { maxKeys: 3 }),
    finalizers: fc.array(fc.constantFrom('example.com/f', 'orphan', 'foregroundDeletion', 'bad finalizer', 'kubernetes'), { maxLength: 3 }),
    ownerReferences: fc.array(ownerRef, { maxLength: 3 }),
    resourceVersion: fc.oneof(fc.constantFrom('1', '0', '9007199254740993', '18446744073709551616', 'abc', ''), fc.nat().map(String)),
    uid: fc.constantFrom('u', ''),
    generation: oddNumber,
    managedFields: fc.array(fc.record({ manager: fc.constantFrom('m', ''), operation: fc.constantFrom('Apply', 'Update', 'x'), apiVersion: fc.constantFrom('networking.platform.io/v1', ''), fieldsType: fc.constantFrom('FieldsV1', 'x'), fieldsV1: hostileValue }, { requiredKeys: [] }), { maxLength: 2 }),
  },
  { requiredKeys: [] },
);

const serviceCIDR = fc.record(
  {
    apiVersion: fc.constantFrom('networking.platform.io/v1', 'networking.platform.io/v2', 'v1', ''),
    kind: fc.constantFrom('ServiceCIDR', 'ClusterTrustBundle', ''),
    metadata,
    spec: fc.record({ cidrs }, { requiredKeys: [] }),
    status: fc.record({ conditions: fc.array(condition, { maxLength: 3 }) }, { requiredKeys: [] }),
  },
  { requiredKeys: ['metadata'] },
);

const clusterTrustBundle = fc.record(
  {
    apiVersion: fc.constantFrom('certificates.platform.io/v1beta1', ''),
    kind: fc.constantFrom('ClusterTrustBundle', ''),
    metadata,
    spec: fc.record({ signerName: fc.constantFrom('example.com/signer', '', 'bad'), trustBundle: oddString }, { requiredKeys: [] }),
  },
  { requiredKeys: ['metadata'] },
);

/** A ServiceCIDR the server accepts (or refuses only for its state: exists, conflicts, immutability). */
const validServiceCIDR = fc.record({
  name: fc.constantFrom(...NAMES.filter((n) => !n.includes(':'))),
  labels: fc.dictionary(fc.constantFrom('app', 'tier', 'example.com/x'), fc.constantFrom('v', 'w', ''), { maxKeys: 2 }),
  cidrs: fc.constantFrom(['10.0.0.0/24'], ['10.0.0.0/24', '2001:db8::/64'], ['192.168.0.0/16']),
  finalizers: fc.constantFrom([], [], ['example.com/f']),
}).map(({ name, labels, cidrs: c, finalizers }) => ({ apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name, labels, finalizers }, spec: { cidrs: c } }));

/** Patches the server accepts on an existing ServiceCIDR (of each type's shape). */
export const validPatchText = fc.oneof(
  fc.dictionary(fc.constantFrom('app', 'tier'), fc.oneof(fc.constantFrom('v', 'w'), fc.constant(null)), { maxKeys: 2 }).map((labels) => JSON.stringify({ metadata: { labels } })),
  fc.constantFrom('[{"op":"add","path":"/metadata/labels","value":{"p":"q"}}]', '[{"op":"test","path":"/metadata/name","value":"a"}]', '{"status":{"conditions":[{"type":"Ready","status":"True","lastTransitionTime":"2024-01-01T00:00:00Z","reason":"R","message":"m"}]}}', '{"metadata":{"$deleteFromPrimitiveList/finalizers":["example.com/f"]}}'),
);

/** Sets `value` at a random path of `obj` (own keys only, so hostile keys land as data). */
function plant(obj: unknown, path: string[], value: unknown): unknown {
  if (path.length === 0) return value;
  const base = typeof obj === 'object' && obj !== null && !Array.isArray(obj) ? { ...(obj as Record<string, unknown>) } : {};
  const [head, ...rest] = path;
  Object.defineProperty(base, head!, { value: plant(Object.hasOwn(base, head!) ? base[head!] : undefined, rest, value), enumerable: true, writable: true, configurable: true });
  return base;
}

const mutation = fc.record({ path: fc.array(hostileKey, { minLength: 1, maxLength: 4 }), value: hostileValue });

/** An object of either kind with up to three values planted at hostile paths. */
const mutatedObject = fc.tuple(fc.oneof(serviceCIDR, clusterTrustBundle), fc.array(mutation, { maxLength: 3 })).map(([o, ms]) => ms.reduce<unknown>((acc, m) => plant(acc, m.path, m.value), o));

const deep = fc.record({ levels: fc.constantFrom(10, 999, 1001, 5000, 20_000), array: fc.boolean(), at: fc.constantFrom('spec', 'metadata', 'top') }).map(({ levels, array, at }) => {
  const inner = array ? `${'['.repeat(levels)}${']'.repeat(levels)}` : `${'{"x":'.repeat(levels)}1${'}'.repeat(levels)}`;
  if (at === 'top') return inner;
  return `{"apiVersion":"networking.platform.io/v1","kind":"ServiceCIDR","metadata":{"name":"a"${at === 'metadata' ? `,"deep":${inner}` : ''}},"spec":{"cidrs":["10.0.0.0/24"]${at === 'spec' ? `,"deep":${inner}` : ''}}}`;
});

/** Keys that name a prototype, planted where objects already have maps, with members to write through them. */
const prototypeKeyed = fc
  .record({
    prefix: fc.constantFrom([], ['metadata'], ['spec'], ['status'], ['metadata', 'labels'], ['metadata', 'managedFields']),
    key: fc.constantFrom('__proto__', 'constructor', 'prototype'),
    then: fc.array(fc.constantFrom('prototype', '__proto__'), { maxLength: 1 }),
    members: fc.dictionary(fc.constantFrom('name', 'x', 'polluted', 'kind', 'metadata', 'toString'), fc.oneof(fc.constantFrom('polluted', 1, true), fc.constant({ name: 'polluted' })), { minKeys: 1, maxKeys: 2 }),
  })
  .map(({ prefix, key, then, members }) => plant({}, [...prefix, key, ...then], members));
const prototypePointer = fc
  .tuple(fc.constantFrom([], ['metadata'], ['spec'], ['metadata', 'labels']), fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString'), fc.array(fc.constantFrom('prototype', '__proto__', 'name', 'assign', 'x'), { maxLength: 2 }))
  .map(([a, k, b]) => [...a, k, ...b].map((t) => `/${t}`).join(''));
const prototypeJsonPatch = fc.array(
  fc.record({ op: fc.constantFrom('add', 'replace', 'copy', 'move', 'test', 'remove'), path: prototypePointer, from: prototypePointer, value: fc.oneof(fc.constant('polluted'), fc.constant({ name: 'polluted' })) }),
  { minLength: 1, maxLength: 3 },
);

const YAML_SNIPPETS = [
  'a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n' + Array.from({ length: 9 }, (_, i) => `a${i + 1}: &a${i + 1} [${Array(10).fill(`*a${i}`).join(', ')}]`).join('\n') + '\n',
  'a: &a [*a]\n',
  'a: !!binary aGVsbG8=\n',
  'a: !!js/function "function(){}"\n',
  'a: !!set {x, y}\n',
  'a: !!timestamp 2001-12-14\n',
  '--- a\n--- b\n',
  'metadata: {name: a}\nmetadata: {name: b}\n',
  '? [a, b]\n: c\n',
  'a: *undefined\n',
  'b: &b {name: x}\nmetadata:\n  <<: *b\n',
  '\t- bad indent',
  `a: ${'['.repeat(3000)}\n`,
];

/** A body as text: JSON of a (mutated) object, raw hostile JSON, or YAML. */
const objectText = fc.oneof(
  { weight: 5, arbitrary: mutatedObject.map((o) => JSON.stringify(o)) },
  { weight: 8, arbitrary: validServiceCIDR.map((o) => JSON.stringify(o)) },
  { weight: 1, arbitrary: fc.tuple(validServiceCIDR, mutation).map(([o, m]) => JSON.stringify(plant(o, m.path, m.value))) },
  { weight: 2, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: deep },
  { weight: 1, arbitrary: fc.tuple(validServiceCIDR, prototypeKeyed).map(([o, p]) => JSON.stringify(Object.assign(structuredClone(p) as object, o))) },
  { weight: 1, arbitrary: fc.tuple(mutatedObject, fc.constantFrom(...RAW_NUMBERS)).map(([o, n]) => JSON.stringify(o).replace(/\{"/, `{"generation":${n},"`)) },
  { weight: 1, arbitrary: fc.constantFrom('', '{', 'null', '[]', '"x"', '{"a":1,"a":2}', '{"metadata":{"name":"a","name":"b"}}', '\ufeff{}') },
);

const yamlText = fc.oneof(
  mutatedObject.map((o) => toYaml(o)),
  validServiceCIDR.map((o) => toYaml(o)),
  fc.tuple(mutatedObject, fc.constantFrom(...YAML_SNIPPETS)).map(([o, s]) => `${s}${toYaml(o)}`),
  fc.constantFrom(...YAML_SNIPPETS),
);

const pointer = fc.array(fc.oneof(hostileKey, fc.constantFrom('-', '0', '5', '~0', '~1', 'a~2')), { maxLength: 4 }).map((ts) => ts.map((t) => `/${t}`).join(''));
const jsonPatch = fc.array(
  fc.record(
    { op: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test', 'nope'), path: fc.oneof(pointer, fc.constant('metadata/x'), fc.integer() as fc.Arbitrary<unknown>), from: pointer, value: hostileValue },
    { requiredKeys: ['op'] },
  ),
  { maxLength: 5 },
);

const strategicPatch = fc.tuple(mutatedObject, fc.array(fc.record({ path: fc.array(hostileKey, { minLength: 0, maxLength: 2 }), directive: fc.constantFrom<[string, unknown]>(['$patch', 'delete'], ['$patch', 'replace'], ['$patch', 'bogus'], ['$retainKeys', ['name']], ['$retainKeys', 'x'], ['$setElementOrder/finalizers', ['a']], ['$deleteFromPrimitiveList/finalizers', ['example.com/f']], ['$setElementOrder/conditions', [{ type: 'A' }]]) }), { maxLength: 2 })).map(([o, ds]) =>
  ds.reduce<unknown>((acc, d) => plant(acc, [...d.path, d.directive[0]], d.directive[1]), o),
);

const oddHeaderValue = fc.oneof(fc.constantFrom('', '*/*', 'application/json;q=abc', 'application/json;charset=latin1', 'text/plain', 'application/json, application/yaml;q=0.5', 'application/x-www-form-urlencoded'), fc.string({ unit: fc.constantFrom(...'abc/;=*, q.-+'.split('')), maxLength: 30 }));

const frontdoorAccept = fc.constantFrom('application/vnd.kubernetes.protobuf', 'application/json;as=Table;v=v1;g=meta.k8s.io', 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io');
/** What a write may ask for until frontdoor negotiates before the work (anything else is answered after it). */

const queryValue = fc.oneof(fc.constantFrom('', 'All', 'true', 'Strict', 'Warn', 'Ignore', '1', '-1', '9007199254740993', '18446744073709551616', 'abc', '%', 'a=b,c!=d', 'metadata.name=a', 'spec.signerName=x', 'x in (a,b', '@@@'), fc.string({ maxLength: 12 }));
const queryParams = fc.dictionary(fc.constantFrom('resourceVersion', 'resourceVersionMatch', 'fieldValidation', 'dryRun', 'fieldManager', 'force', 'limit', 'continue', 'labelSelector', 'fieldSelector', 'gracePeriodSeconds', 'propagationPolicy', 'pretty', 'timeoutSeconds'), queryValue, { maxKeys: 3 });

const target = fc.record({ kind: fc.constantFrom(SC, SC, SC, CTB), name: fc.oneof({ weight: 8, arbitrary: fc.constantFrom('a', 'b', ...NAMES) }, { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom(...'ab-.:_~%20'.split('')), minLength: 1, maxLength: 10 }) }), sub: fc.constantFrom('', '', '', '', '/status', '/status', '/bogus') });

/** Headers a client may send to confuse identity or field ownership (printable ASCII, as HTTP requires). */
const hostileHeaders = fc.dictionary(
  fc.constantFrom('User-Agent', 'Impersonate-User', 'Impersonate-Group', 'Impersonate-Uid', 'Impersonate-Extra-__proto__', 'Impersonate-Extra-constructor', 'Impersonate-Extra-prototype', 'X-Forwarded-For', 'Content-Encoding', 'Accept-Encoding'),
  fc.oneof(fc.constantFrom('system:masters', 'admin', 'nobody', 'gzip', 'kubectl/v1.33.0 (linux/amd64)', 'x'.repeat(300), '', '__proto__'), fc.string({ unit: fc.constantFrom(...'abc:/._- %'.split('')), maxLength: 20 })),
  { maxKeys: 2 },
);

/** Undefined four times in five: odd headers one at a time, so that the rest of a request is still tried. */
const rarely = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });

const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'] as const;

const b64 = (s: string | Buffer): string => Buffer.from(s).toString('base64');

/** Inserts bytes that are not UTF-8 somewhere in the body. */
const withBadUtf8 = (text: string, at: number): string => {
  const bytes = Buffer.from(text);
  const i = bytes.length ? at % bytes.length : 0;
  return Buffer.concat([bytes.subarray(0, i), Buffer.from([0xff, 0xfe, 0xc3]), bytes.subarray(i)]).toString('base64');
};

const queryString = (q: Record<string, string>): string => {
  const s = new URLSearchParams(q).toString();
  return s ? `?${s}` : '';
};

export const fuzzRequest: fc.Arbitrary<FuzzRequest> = fc
  .tuple(
    fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'PATCH', 'PATCH', 'DELETE', 'OPTIONS'),
    target,
    fc.oneof(fc.constant({}), fc.constant({}), queryParams),
    fc.oneof({ weight: 3, arbitrary: objectText.map((t) => ({ text: t, type: 'application/json' })) }, { weight: 1, arbitrary: yamlText.map((t) => ({ text: t, type: 'application/yaml' })) }),
    fc.constantFrom(...PATCH_TYPES),
    fc.oneof(
      { weight: 2, arbitrary: jsonPatch.map((p) => JSON.stringify(p)) },
      { weight: 2, arbitrary: strategicPatch.map((p) => JSON.stringify(p)) },
      { weight: 2, arbitrary: objectText },
      { weight: 3, arbitrary: validPatchText },
      { weight: 3, arbitrary: prototypeKeyed.map((p) => JSON.stringify(p)) },
      { weight: 2, arbitrary: prototypeJsonPatch.map((p) => JSON.stringify(p)) },
    ),
    fc.record({ accept: rarely(oddHeaderValue), contentType: rarely(oddHeaderValue), badUtf8: rarely(fc.nat()), frontdoorAccept: rarely(frontdoorAccept), more: fc.oneof({ weight: 9, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: hostileHeaders }) }),
  )
  .map(([method, t, q, object, patchType, patchText, odd]) => {
    let query = q;
    const collection = method === 'POST' || (method === 'DELETE' && t.sub === '/bogus');
    const headers: Record<string, string> = {};
    let text: string | undefined;
    if (method === 'POST' || method === 'PUT') {
      text = object.text;
      headers['Content-Type'] = odd.contentType ?? object.type;
    } else if (method === 'PATCH') {
      text = patchType === 'application/apply-patch+yaml' ? object.text : patchText;
      headers['Content-Type'] = odd.contentType ?? patchType;
      if (patchType === 'application/apply-patch+yaml' && !('fieldManager' in query)) query = { ...query, fieldManager: 'fuzz' };
    } else if (method === 'DELETE' && odd.badUtf8 !== undefined) {
      text = '{"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"resourceVersion":"1"}}';
    }
    for (const [k, v] of Object.entries(odd.more ?? {})) headers[k] = v;
    const write = method !== 'GET' && method !== 'OPTIONS';
    // Writes asking for a response format the server cannot give are refused before the work.
    if (odd.accept !== undefined) headers.Accept = odd.accept;
    if (write && odd.frontdoorAccept !== undefined) headers.Accept = odd.frontdoorAccept;
    const body = text === undefined ? undefined : odd.badUtf8 !== undefined ? withBadUtf8(text, odd.badUtf8) : b64(text);
    const path = `${t.kind}${collection ? '' : `/${encodeURIComponent(t.name)}${t.sub}`}${queryString(query)}`;
    return { method, path, headers, body };
  });

/** HTTP-level hostile requests: warning headers from odd field names, bad escapes, dot segments, odd methods. */
export const frontdoorRequest: fc.Arbitrary<FuzzRequest> = fc.oneof(
  // An unknown field whose name is not Latin-1 becomes a warning header.
  fc.constantFrom('Ω', '字段', '😀').map((k) => ({ method: 'POST', path: SC, headers: { 'Content-Type': 'application/json' }, body: b64(`{"apiVersion":"networking.platform.io/v1","kind":"ServiceCIDR","metadata":{"generateName":"w-"},"spec":{"cidrs":["10.0.0.0/24"],"${k}":1}}`) })),
  fc.constantFrom('/apis/%zz', `${SC}/%zz`, `${SC}/a%ZZb`).map((path) => ({ method: 'GET', path, headers: {} })),
  // A name `.` or `..` must not resolve to another path (a PATCH of `servicecidrs/..` answered with discovery).
  fc.tuple(fc.constantFrom('.', '..', '%2e%2e'), fc.constantFrom('PATCH', 'PUT', 'DELETE')).map(([name, method]) => ({ method, path: `${SC}/${name}`, headers: { 'Content-Type': 'application/merge-patch+json' }, body: b64('{}') })),
);
