// How a kind's OpenAPI schema reads as apply types (structured-merge-diff's schema conversion in
// kube): preserve-unknown-fields is free-form, list types and patch strategies decide how lists
// merge, map-type atomic maps are replaced whole, additionalProperties types the keys of a
// string-keyed map, references resolve through the registry, and each schema is converted once.
// Pinned here (issue #35): the other tests reach these only through the ServiceCIDR schema.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { refTo, type Schema } from '../schema.js';
import type { ListType, MapType } from './typed-schema.js';
import { TypedSchema, untypedMap } from './typed-schema.js';

const str: Schema = { type: 'string' };
const item: Schema = { type: 'object', properties: { name: str, port: { type: 'integer' } } };

test('scalars, free-form values and absent schemas', () => {
  const ts = new TypedSchema({});
  assert.deepEqual(ts.typeOf(str), { kind: 'scalar' });
  assert.deepEqual(ts.typeOf({ type: 'integer' }), { kind: 'scalar' });
  assert.deepEqual(ts.typeOf({}), { kind: 'scalar' }, 'a schema without a type or properties is a scalar');
  assert.deepEqual(ts.typeOf(undefined), { kind: 'untyped' });
  assert.deepEqual(ts.typeOf({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { a: str } }), { kind: 'untyped' });
  assert.deepEqual(ts.typeOf({ type: 'array', items: str, 'x-kubernetes-preserve-unknown-fields': true }), { kind: 'untyped' });
  assert.equal(ts.typeOf({ type: 'object', 'x-kubernetes-preserve-unknown-fields': false }).kind, 'map');
  assert.deepEqual(ts.typeOf(refTo('Missing')), { kind: 'untyped' }, 'a reference to nothing is free-form');
});

test('lists: their list-type, else their patch strategy, else atomic', () => {
  const ts = new TypedSchema({});
  const list = (extra: Partial<Schema>, items: Schema = item) => ts.typeOf({ type: 'array', items, ...extra }) as ListType;
  const keyedList = list({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name', 'port'] });
  assert.deepEqual([keyedList.kind, keyedList.atomic, keyedList.keys], ['list', false, ['name', 'port']]);
  assert.equal(keyedList.element.kind, 'map');
  assert.deepEqual(list({ 'x-kubernetes-list-type': 'map' }).keys, []);
  const setList = list({ 'x-kubernetes-list-type': 'set' }, str);
  assert.deepEqual([setList.atomic, setList.keys, setList.element], [false, [], { kind: 'scalar' }]);
  assert.deepEqual([list({ 'x-kubernetes-list-type': 'atomic', 'x-kubernetes-patch-strategy': 'merge' }).atomic], [true], 'list-type wins over the patch strategy');
  const merged = list({ 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'name' });
  assert.deepEqual([merged.atomic, merged.keys], [false, ['name']]);
  const retained = list({ 'x-kubernetes-patch-strategy': 'retainKeys,merge', 'x-kubernetes-patch-merge-key': 'port' });
  assert.deepEqual([retained.atomic, retained.keys], [false, ['port']]);
  const mergedScalars = list({ 'x-kubernetes-patch-strategy': 'merge' }, str);
  assert.deepEqual([mergedScalars.atomic, mergedScalars.keys], [false, []], 'merge without a key: a set');
  const retainOnly = list({ 'x-kubernetes-patch-strategy': 'retainKeys', 'x-kubernetes-patch-merge-key': 'name' });
  assert.deepEqual([retainOnly.atomic, retainOnly.keys], [true, []]);
  const plain = list({});
  assert.deepEqual([plain.atomic, plain.keys, plain.element.kind], [true, [], 'map']);
  assert.deepEqual((ts.typeOf({ type: 'array' }) as ListType).element, { kind: 'untyped' }, 'items without a schema are free-form');
});

test('maps: named fields, additionalProperties, atomic map-type', () => {
  const ts = new TypedSchema({});
  const struct = ts.typeOf({ type: 'object', properties: { a: str, list: { type: 'array', items: str } } }) as MapType;
  assert.deepEqual([struct.kind, struct.atomic], ['map', false]);
  assert.deepEqual(struct.field('a'), { kind: 'scalar' });
  assert.equal(struct.field('list')?.kind, 'list');
  assert.equal(struct.field('b'), undefined, 'an undeclared field has no type');
  assert.equal(struct.field('toString'), undefined, "Object.prototype's members are not fields");
  assert.equal(struct.isNamedField('a'), true);
  assert.equal(struct.isNamedField('b'), false);
  assert.equal(struct.isNamedField('constructor'), false);
  assert.equal(struct.field('a'), struct.field('a'), 'a field is resolved once');

  const byProperties = ts.typeOf({ properties: { a: str } }) as MapType;
  assert.equal(byProperties.kind, 'map', 'properties alone make a map');

  const strings = ts.typeOf({ type: 'object', additionalProperties: str }) as MapType;
  assert.deepEqual(strings.field('anything'), { kind: 'scalar' });
  assert.equal(strings.isNamedField('anything'), false);
  const free = ts.typeOf({ type: 'object', additionalProperties: true }) as MapType;
  assert.deepEqual(free.field('anything'), { kind: 'untyped' });
  const closed = ts.typeOf({ type: 'object', properties: { a: str }, additionalProperties: false }) as MapType;
  assert.equal(closed.field('other'), undefined);
  const mixed = ts.typeOf({ type: 'object', properties: { a: { type: 'array', items: str } }, additionalProperties: str }) as MapType;
  assert.equal(mixed.field('a')?.kind, 'list', 'a named field keeps its own type');
  assert.deepEqual(mixed.field('other'), { kind: 'scalar' });
  assert.equal(mixed.field('other'), mixed.field('another'));

  assert.equal((ts.typeOf({ type: 'object', 'x-kubernetes-map-type': 'atomic', properties: { a: str } }) as MapType).atomic, true);
  assert.equal((ts.typeOf({ type: 'object', 'x-kubernetes-map-type': 'granular' }) as MapType).atomic, false);

  assert.equal(untypedMap.atomic, false);
  assert.deepEqual(untypedMap.field('x'), { kind: 'untyped' });
  assert.equal(untypedMap.isNamedField('x'), false);
});

test('references resolve through the registry; each schema converts once', () => {
  const registry = { Item: item, Items: { type: 'array', items: refTo('Item'), 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] } } as Record<string, Schema>;
  const ts = new TypedSchema(registry);
  const root = ts.typeOf({ type: 'object', properties: { items: refTo('Items'), described: { allOf: [refTo('Item')] } } }) as MapType;
  const items = root.field('items') as ListType;
  assert.deepEqual([items.kind, items.keys], ['list', ['name']]);
  assert.equal((items.element as MapType).field('port')?.kind, 'scalar');
  assert.equal(root.field('described'), items.element, 'the same schema object, reached twice, is one type');
  assert.equal(ts.typeOf(registry.Item), items.element);
  assert.equal(ts.typeOf(refTo('Item')), items.element);
});
