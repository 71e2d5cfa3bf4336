// sameStoredForm decides on the objects what comparing their stored JSON would decide: checked
// against the serialize-and-parse comparison over random objects, including the values JSON
// changes (undefined members, undefined and non-finite numbers in arrays, -0, key order).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { deepEqual } from '../apimachinery/json-value.js';
import type { KubeObject } from '../apimachinery/object-meta.js';
import { jsonEqual, sameStoredForm } from './stored-form.js';

const roundTrip = (v: unknown): unknown => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));
const storedForm = (obj: KubeObject): unknown => {
  const { resourceVersion: _rv, ...metadata } = obj.metadata;
  return roundTrip({ ...obj, metadata });
};

const leaf = fc.oneof(fc.constantFrom<unknown>(undefined, null, NaN, Infinity, -0, 0, 1, '', 'a', true, false), fc.integer({ min: -3, max: 3 }), fc.constantFrom('x', 'y'));
const keys = fc.constantFrom('a', 'b', 'c', '__proto__', 'constructor');
const value = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('v'), { maxLength: 3 }), fc.dictionary(keys, tie('v'), { maxKeys: 3 })),
})).v;
/** Pairs that are often equal or nearly equal: the interesting cases. */
const pair = fc.oneof(
  fc.tuple(value, value),
  value.map((v) => [v, roundTrip(v)] as [unknown, unknown]),
  value.map((v) => [v, structuredClone(v)] as [unknown, unknown]),
);

test('jsonEqual agrees with comparing the JSON round trips', () => {
  fc.assert(
    fc.property(pair, ([a, b]) => {
      if (a === undefined || b === undefined) return;
      assert.equal(jsonEqual(a, b), deepEqual(roundTrip(a), roundTrip(b)));
    }),
    { numRuns: 3000 },
  );
});

test('sameStoredForm agrees with comparing stored forms, resourceVersion ignored', () => {
  const meta = fc.record({ name: fc.constantFrom('n', 'm'), resourceVersion: fc.constantFrom(undefined, '1', '2'), labels: fc.option(fc.dictionary(keys, fc.constantFrom('x', 'y')), { nil: undefined }) }, { requiredKeys: [] });
  const obj = fc.record({ apiVersion: fc.constant('v1'), kind: fc.constant('K'), metadata: meta, spec: value }, { requiredKeys: ['metadata'] }) as unknown as fc.Arbitrary<KubeObject>;
  const objPair = fc.oneof(fc.tuple(obj, obj), obj.map((o) => [o, structuredClone(o)] as [KubeObject, KubeObject]));
  fc.assert(
    fc.property(objPair, ([a, b]) => {
      assert.equal(sameStoredForm(a, b), deepEqual(storedForm(a), storedForm(b)));
    }),
    { numRuns: 3000 },
  );
});

test('key order and a differing resourceVersion do not make objects differ; a value does', () => {
  const a = { apiVersion: 'v1', kind: 'K', metadata: { name: 'n', resourceVersion: '1', labels: { x: '1', y: '2' } }, spec: { z: undefined } } as unknown as KubeObject;
  const b = { kind: 'K', apiVersion: 'v1', metadata: { labels: { y: '2', x: '1' }, resourceVersion: '9', name: 'n' } } as unknown as KubeObject;
  assert.equal(sameStoredForm(a, b), false); // spec {} against no spec
  assert.equal(sameStoredForm(a, { ...b, spec: {} } as KubeObject), true);
  assert.equal(sameStoredForm(a, { ...b, spec: { z: 1 } } as KubeObject), false);
});
