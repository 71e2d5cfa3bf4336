// canonicalOrder and setResourceVersion: kube's field order whatever the input order.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalOrder, kindOrder, setResourceVersion } from './field-order.js';

const order = kindOrder(['spec', ['b', 'a']]);

test('fields follow the order, maps are sorted, raw values and unknown fields are kept', () => {
  const input = JSON.parse(
    '{"spec":{"a":1,"b":2},"metadata":{"managedFields":[{"fieldsV1":{"f:z":{},"f:a":{}},"manager":"m"}],"labels":{"z":"1","a":"2"},"name":"n"},"extra":true,"kind":"K","apiVersion":"v1"}',
  );
  const out = canonicalOrder(input, order);
  assert.equal(
    JSON.stringify(out),
    '{"apiVersion":"v1","kind":"K","metadata":{"name":"n","labels":{"a":"2","z":"1"},"managedFields":[{"manager":"m","fieldsV1":{"f:z":{},"f:a":{}}}]},"spec":{"b":2,"a":1},"extra":true}',
  );
  assert.equal(JSON.stringify(input).length, JSON.stringify(out).length, 'a copy, nothing lost');
});

test('a __proto__ key stays an own member and pollutes nothing', () => {
  const input = JSON.parse('{"metadata":{"labels":{"__proto__":"x"},"name":"n"},"__proto__":{"polluted":true}}');
  const out = canonicalOrder(input, order) as Record<string, any>;
  assert.equal(Object.getPrototypeOf(out), Object.prototype);
  assert.ok(Object.hasOwn(out, '__proto__'));
  assert.equal(Object.hasOwn(out.metadata.labels, '__proto__'), true);
  assert.equal(({} as any).polluted, undefined);
});

test('setResourceVersion puts resourceVersion in its ObjectMeta place', () => {
  const obj = { metadata: { name: 'n', uid: 'u', generation: 1, labels: {} } as Record<string, unknown> };
  setResourceVersion(obj, '5');
  assert.deepEqual(Object.keys(obj.metadata), ['name', 'uid', 'resourceVersion', 'generation', 'labels']);
  setResourceVersion(obj, '6');
  assert.equal(obj.metadata.resourceVersion, '6');
  const bare = { metadata: { name: 'n' } as Record<string, unknown> };
  setResourceVersion(bare, '1');
  assert.deepEqual(Object.keys(bare.metadata), ['name', 'resourceVersion']);
});
