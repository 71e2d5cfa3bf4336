// cloneJson copies JSON values exactly as structuredClone does (checked over random values with
// client keys such as __proto__), shares nothing with its input, and pollutes no prototype.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { cloneJson } from './json-value.js';

const key = fc.oneof(fc.string({ maxLength: 4 }), fc.constantFrom('__proto__', 'constructor', 'prototype'));
const json = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom<unknown>(null, true, false, undefined, NaN, -0),
    fc.double(),
    fc.string({ maxLength: 6 }),
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(key, tie('v'), { maxKeys: 4 }),
  ),
})).v;

/** Every object and array reachable from `v`. */
function containers(v: unknown, out = new Set<object>()): Set<object> {
  if (typeof v !== 'object' || v === null) return out;
  out.add(v);
  for (const k of Object.keys(v)) containers((v as Record<string, unknown>)[k], out);
  return out;
}

test('cloneJson gives what structuredClone gives, sharing no object with its input', () => {
  fc.assert(
    fc.property(json, (v) => {
      const copy = cloneJson(v);
      assert.deepStrictEqual(copy, structuredClone(v));
      assert.deepEqual(Object.keys(copy ?? {}), Object.keys(structuredClone(v) ?? {}));
      const mine = containers(v);
      for (const c of containers(copy)) assert.ok(!mine.has(c));
    }),
    { numRuns: 2000 },
  );
});

test('a __proto__ key is copied as data and the copy keeps Object.prototype', () => {
  const v = JSON.parse('{"a":{"__proto__":{"polluted":true}}}') as { a: object };
  const copy = cloneJson(v);
  assert.ok(Object.hasOwn(copy.a, '__proto__'));
  assert.equal(Object.getPrototypeOf(copy.a), Object.prototype);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(JSON.stringify(copy), JSON.stringify(v));
});

test('values that are not plain JSON fall back to structuredClone', () => {
  const d = new Date(0);
  const copy = cloneJson({ d });
  assert.ok(copy.d instanceof Date && copy.d !== d && copy.d.getTime() === 0);
});
