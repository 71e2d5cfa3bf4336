// The walks of typed-ops over every shape a type allows (structured-merge-diff's ToFieldSet,
// Compare, Merge and RemoveItems): free-form values taking the shape they have, atomic maps and
// lists as one leaf, values of the wrong shape, nulls and empty containers, undeclared fields,
// duplicates in live lists. Pinned here (issue #35): the other tests walk the ServiceCIDR
// schema, which has few of these shapes.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FieldSet } from './field-set.js';
import { compare, merge, removeFields, toFieldSet } from './typed-ops.js';
import type { ListType, MapType, TypeNode } from './typed-schema.js';

const scalar: TypeNode = { kind: 'scalar' };
const untyped: TypeNode = { kind: 'untyped' };
const struct = (fields: Record<string, TypeNode>, atomic = false): MapType => ({
  kind: 'map',
  atomic,
  field: (name) => (Object.hasOwn(fields, name) ? fields[name] : undefined),
  isNamedField: (name) => Object.hasOwn(fields, name),
});
const stringMap = (element: TypeNode): MapType => ({ kind: 'map', atomic: false, field: () => element, isNamedField: () => false });
const keyed = (keys: string[], element: TypeNode): ListType => ({ kind: 'list', atomic: false, keys, element });
const set: ListType = { kind: 'list', atomic: false, keys: [], element: scalar };
const item = struct({ name: scalar, value: scalar, tags: set });

const root = struct({
  a: scalar,
  b: scalar,
  free: untyped,
  opaque: struct({ x: scalar, y: scalar }, true),
  frozen: { kind: 'list', atomic: true, keys: [], element: scalar },
  items: keyed(['name'], item),
  tags: set,
  labels: stringMap(scalar),
  inner: struct({ c: scalar, d: scalar, deeper: struct({ e: scalar }) }),
});

const paths = (s: FieldSet): string[] => s.paths().map((p) => p.join('.'));

test('toFieldSet: free-form maps are walked key by key, free-form lists and scalars are leaves', () => {
  assert.deepEqual(paths(toFieldSet({ free: { k: { deep: 1 }, list: [1, 2], s: 'x' } }, root)), ['f:free.f:k', 'f:free.f:k.f:deep', 'f:free.f:list', 'f:free.f:s']);
  assert.deepEqual(paths(toFieldSet({ free: [1, { a: 1 }] }, root)), ['f:free']);
  assert.deepEqual(paths(toFieldSet({ free: 'text' }, root)), ['f:free']);
  assert.deepEqual(paths(toFieldSet({ free: {} }, root)), ['f:free'], 'an empty free-form map owns itself');
  assert.deepEqual(paths(toFieldSet({ k: { deep: 1 } }, untyped)), ['f:k', 'f:k.f:deep']);
});

test('toFieldSet: atomic maps and lists are one leaf; values of the wrong shape own nothing below', () => {
  assert.deepEqual(paths(toFieldSet({ opaque: { x: 1, y: 2 }, frozen: [1, 2] }, root)), ['f:frozen', 'f:opaque']);
  assert.deepEqual(paths(toFieldSet({ opaque: {} }, root)), ['f:opaque']);
  assert.deepEqual(paths(toFieldSet({ items: 'not a list', inner: 'not a map', tags: { a: 1 } }, root)), []);
  assert.deepEqual(paths(toFieldSet({ inner: null, a: null }, root)), ['f:a', 'f:inner'], 'null is owned as itself');
  assert.deepEqual(paths(toFieldSet({ inner: {} }, root)), ['f:inner']);
  assert.deepEqual(paths(toFieldSet({ inner: { deeper: {} } }, root)), ['f:inner.f:deeper'], 'a struct owns itself only when empty');
  assert.deepEqual(paths(toFieldSet({ labels: { l: 'v' }, undeclared: 1 }, root)), ['f:labels.f:l'], 'undeclared fields own nothing');
  assert.deepEqual(paths(toFieldSet({ labels: { l: { deep: 1 } } }, struct({ labels: stringMap(stringMap(scalar)) }))), ['f:labels.f:l', 'f:labels.f:l.f:deep'], 'a key of a string-keyed map owns itself');
});

test('toFieldSet: list items own themselves and their fields; duplicates count once, the first', () => {
  const set = toFieldSet({ items: [{ name: 'a', value: 1 }, { name: 'a', tags: ['t'] }, { name: 'b' }], tags: ['x', 'x', 'y'] }, root);
  assert.deepEqual(paths(set), [
    'f:items.k:{"name":"a"}',
    'f:items.k:{"name":"a"}.f:name',
    'f:items.k:{"name":"a"}.f:value',
    'f:items.k:{"name":"b"}',
    'f:items.k:{"name":"b"}.f:name',
    'f:tags.v:"x"',
    'f:tags.v:"y"',
  ]);
});

const cmp = (lhs: unknown, rhs: unknown, type: TypeNode = root) => {
  const c = compare(lhs, rhs, type);
  return { added: paths(c.added), modified: paths(c.modified), removed: paths(c.removed) };
};

test('compare: scalars, atomic values and free-form lists are leaves', () => {
  assert.deepEqual(cmp({ a: 1, b: 2 }, { a: 1, b: 3 }), { added: [], modified: ['f:b'], removed: [] });
  assert.deepEqual(cmp({ opaque: { x: 1 } }, { opaque: { x: 2 } }), { added: [], modified: ['f:opaque'], removed: [] });
  assert.deepEqual(cmp({ opaque: { x: 1 } }, { opaque: { x: 1 } }), { added: [], modified: [], removed: [] });
  assert.deepEqual(cmp({ frozen: [1] }, { frozen: [1, 2] }), { added: [], modified: ['f:frozen'], removed: [] });
  assert.deepEqual(cmp({ free: [1] }, { free: [2] }), { added: [], modified: ['f:free'], removed: [] });
  assert.deepEqual(cmp({ free: { k: 1, gone: 1 } }, { free: { k: 2, new: 1 } }), { added: ['f:free.f:new'], modified: ['f:free.f:k'], removed: ['f:free.f:gone'] });
  assert.deepEqual(cmp({ free: { k: 1 } }, {}), { added: [], modified: [], removed: ['f:free', 'f:free.f:k'] }, 'a free-form map that goes takes its shape from live');
  assert.deepEqual(cmp({}, { free: { k: 1 } }), { added: ['f:free', 'f:free.f:k'], modified: [], removed: [] });
  assert.deepEqual(cmp({}, { opaque: { x: 1 }, frozen: [1] }), { added: ['f:frozen', 'f:opaque'], modified: [], removed: [] });
  assert.deepEqual(cmp({ opaque: { x: 1 }, frozen: [1] }, {}), { added: [], modified: [], removed: ['f:frozen', 'f:opaque'] });
  assert.deepEqual(cmp(1, 2, scalar), { added: [], modified: [], removed: [] }, 'the root itself is no path');
  assert.deepEqual(cmp({ x: 1 }, { x: 2 }, untyped), { added: [], modified: ['f:x'], removed: [] });
});

test('compare: maps and lists that appear or go are added or removed with what they hold', () => {
  assert.deepEqual(cmp({}, { inner: { c: 1, deeper: { e: 1 } } }), { added: ['f:inner', 'f:inner.f:c', 'f:inner.f:deeper', 'f:inner.f:deeper.f:e'], modified: [], removed: [] });
  assert.deepEqual(cmp({ inner: { c: 1 } }, {}), { added: [], modified: [], removed: ['f:inner', 'f:inner.f:c'] });
  assert.deepEqual(cmp({ inner: { c: 1 } }, { inner: { c: 1, d: 2 } }), { added: ['f:inner.f:d'], modified: [], removed: [] }, 'a map present on both sides is neither');
  assert.deepEqual(cmp({}, { tags: ['x'] }), { added: ['f:tags', 'f:tags.v:"x"'], modified: [], removed: [] });
  assert.deepEqual(cmp({ tags: ['x'] }, {}), { added: [], modified: [], removed: ['f:tags', 'f:tags.v:"x"'] });
  assert.deepEqual(cmp({ items: [{ name: 'a', value: 1 }] }, { items: [{ name: 'a', value: 1, tags: ['t'] }] }), {
    added: ['f:items.k:{"name":"a"}.f:tags', 'f:items.k:{"name":"a"}.f:tags.v:"t"'],
    modified: [],
    removed: [],
  });
  assert.deepEqual(cmp({ undeclared: { k: 1 } }, { undeclared: { k: 2 } }), { added: [], modified: ['f:undeclared.f:k'], removed: [] }, 'an undeclared field compares free-form');
});

test('compare: empty and null containers', () => {
  assert.deepEqual(cmp({}, { inner: {} }), { added: ['f:inner'], modified: [], removed: [] });
  assert.deepEqual(cmp({ inner: {} }, {}), { added: [], modified: [], removed: ['f:inner'] });
  assert.deepEqual(cmp({ inner: {} }, { inner: null }), { added: [], modified: ['f:inner'], removed: [] });
  assert.deepEqual(cmp({ inner: null }, { inner: null }), { added: [], modified: [], removed: [] });
  assert.deepEqual(cmp({ tags: [] }, { tags: null }), { added: [], modified: ['f:tags'], removed: [] });
  assert.deepEqual(cmp({ tags: [] }, {}), { added: [], modified: [], removed: ['f:tags'] });
  assert.deepEqual(cmp({}, { tags: [] }), { added: ['f:tags'], modified: [], removed: [] });
  assert.deepEqual(cmp({ inner: null }, { inner: { c: 1 } }), { added: ['f:inner.f:c'], modified: [], removed: [] }, 'null then a map: its fields are added');
  assert.deepEqual(cmp({ tags: null }, { tags: ['x'] }), { added: ['f:tags.v:"x"'], modified: [], removed: [] });
  assert.deepEqual(cmp({ inner: { c: 1 } }, { inner: {} }), { added: [], modified: [], removed: ['f:inner.f:c'] });
});

test('compare: a value of the wrong shape on either side is a modified leaf', () => {
  assert.deepEqual(cmp({ inner: 'x' }, { inner: { c: 1 } }), { added: [], modified: ['f:inner'], removed: [] });
  assert.deepEqual(cmp({ inner: { c: 1 } }, { inner: [1] }), { added: [], modified: ['f:inner'], removed: [] });
  assert.deepEqual(cmp({ tags: ['x'] }, { tags: 'x' }), { added: [], modified: ['f:tags'], removed: [] });
  assert.deepEqual(cmp({ tags: { x: 1 } }, { tags: ['x'] }), { added: [], modified: ['f:tags'], removed: [] });
  assert.deepEqual(cmp({ tags: 'x' }, { tags: 'x' }), { added: [], modified: [], removed: [] });
  assert.deepEqual(cmp({ inner: 'x' }, {}), { added: [], modified: [], removed: ['f:inner'] });
  assert.deepEqual(cmp({}, { tags: 7 }), { added: ['f:tags'], modified: [], removed: [] });
});

test('compare: list items by key; the first of duplicates counts; items without keys are passed over', () => {
  assert.deepEqual(cmp({ items: [{ name: 'a', value: 1 }, { name: 'a', value: 2 }] }, { items: [{ name: 'a', value: 1 }] }), { added: [], modified: [], removed: [] });
  assert.deepEqual(cmp({ items: [{ name: 'a', value: 1 }] }, { items: [{ name: 'a', value: 2 }, { name: 'a', value: 1 }] }), {
    added: [],
    modified: ['f:items.k:{"name":"a"}.f:value'],
    removed: [],
  });
  assert.deepEqual(cmp({ items: [{ value: 1 }, 'x'] }, { items: [{ name: 'a' }] }), { added: ['f:items.k:{"name":"a"}', 'f:items.k:{"name":"a"}.f:name'], modified: [], removed: [] });
  assert.deepEqual(cmp({ tags: ['x', 'y'] }, { tags: ['y', 'x'] }), { added: [], modified: [], removed: [] }, 'order does not count');
});

test('merge: the applied value wins at leaves; maps merge, free-form too; nothing applied keeps live', () => {
  assert.equal(merge(1, undefined, scalar), 1);
  assert.deepEqual(merge(undefined, { a: 1 }, root), { a: 1 });
  assert.deepEqual(merge(null, { a: 1 }, root), { a: 1 });
  assert.deepEqual(merge({ a: 1, b: 2 }, { b: 3, free: { k: 1 } }, root), { a: 1, b: 3, free: { k: 1 } });
  assert.deepEqual(merge({ free: { k: 1, l: { m: 1 } } }, { free: { l: { n: 2 } } }, root), { free: { k: 1, l: { m: 1, n: 2 } } });
  assert.deepEqual(merge({ free: [1, 2] }, { free: [3] }, root), { free: [3] }, 'free-form lists are replaced');
  assert.deepEqual(merge({ opaque: { x: 1, y: 2 } }, { opaque: { x: 3 } }, root), { opaque: { x: 3 } }, 'an atomic map is replaced');
  assert.deepEqual(merge({ frozen: [1, 2] }, { frozen: [3] }, root), { frozen: [3] });
  assert.deepEqual(merge({ inner: 'x' }, { inner: { c: 1 } }, root), { inner: { c: 1 } }, 'a value of another shape is replaced');
  assert.deepEqual(merge({ tags: 'x' }, { tags: ['y'] }, root), { tags: ['y'] });
  assert.deepEqual(merge({ tags: ['x'] }, { tags: 'y' }, root), { tags: 'y' });
  assert.deepEqual(merge({ inner: { c: 1 } }, { inner: null }, root), { inner: null });
  assert.deepEqual(merge({ undeclared: { k: 1 } }, { undeclared: { l: 2 } }, root), { undeclared: { k: 1, l: 2 } }, 'undeclared fields merge free-form');
  assert.deepEqual(merge({ x: { k: 1 } }, { x: { l: 2 } }, untyped), { x: { k: 1, l: 2 } });
});

test('merge: the result shares nothing with either input', () => {
  const live = { inner: { c: 1, deeper: { e: 1 } }, items: [{ name: 'a', tags: ['t'] }] };
  const applied = { inner: { deeper: { e: 2 } }, free: { k: { l: 1 } }, items: [{ name: 'b', tags: ['u'] }] };
  const out = merge(live, applied, root) as { inner: { deeper: { e: number } }; free: { k: { l: number } }; items: { tags: string[] }[] };
  out.inner.deeper.e = 9;
  out.free.k.l = 9;
  out.items[1]!.tags.push('v');
  assert.deepEqual(applied, { inner: { deeper: { e: 2 } }, free: { k: { l: 1 } }, items: [{ name: 'b', tags: ['u'] }] });
  const created = merge(undefined, applied, root) as typeof out;
  created.free.k.l = 9;
  assert.equal(applied.free.k.l, 1);
});

test('merge of lists: keyed items merge field by field; duplicates applied are taken once', () => {
  assert.deepEqual(merge({ items: [{ name: 'a', value: 1, tags: ['x'] }] }, { items: [{ name: 'a', tags: ['y'] }] }, root), { items: [{ name: 'a', value: 1, tags: ['x', 'y'] }] });
  assert.deepEqual(merge({ tags: [] }, { tags: ['a', 'a'] }, root), { tags: ['a'] });
  assert.deepEqual(merge({ tags: ['a'] }, { tags: [] }, root), { tags: ['a'] }, 'an empty applied list keeps what live has');
  assert.deepEqual(merge({ tags: [] }, { tags: ['a'] }, root), { tags: ['a'] });
  assert.deepEqual(merge({ tags: ['a', 'a', 'b', 'b'] }, { tags: ['a'] }, root), { tags: ['a', 'b', 'b'] }, "live's duplicate of an applied item goes; others stay");
  assert.deepEqual(
    merge({ items: [{ name: 'a', value: 1 }, { name: 'a', value: 2 }] }, { items: [{ name: 'a', tags: ['t'] }] }, root),
    { items: [{ name: 'a', value: 1, tags: ['t'] }] },
    'the first of duplicates is the one merged',
  );
});

test('merge of lists: live-only items keep their place, applied items follow the applied order', () => {
  const m = (l: string[], r: string[]) => (merge({ tags: l }, { tags: r }, root) as { tags: string[] }).tags;
  assert.deepEqual(m(['a', 'b', 'c'], ['a', 'b', 'c']), ['a', 'b', 'c']);
  assert.deepEqual(m(['a', 'b', 'c'], ['c', 'b', 'a']), ['c', 'b', 'a']);
  assert.deepEqual(m(['x', 'a', 'y', 'b', 'z'], ['b', 'a']), ['x', 'y', 'b', 'z', 'a']);
  assert.deepEqual(m(['a', 'b'], ['n1', 'b', 'n2', 'a', 'n3']), ['n1', 'b', 'n2', 'a', 'n3']);
  assert.deepEqual(m(['l1', 'a', 'l2'], ['n1', 'a', 'n2']), ['l1', 'n1', 'a', 'l2', 'n2']);
  assert.deepEqual(m(['a', 'l1', 'b', 'l2'], ['b', 'a']), ['l1', 'b', 'l2', 'a']);
  assert.deepEqual(m(['a', 'b', 'c', 'd'], ['d', 'c', 'b', 'a']), ['d', 'c', 'b', 'a']);
  assert.deepEqual(m(['a', 'b', 'c', 'd', 'e', 'f'], ['f', 'e', 'd', 'c', 'b', 'a', 'g', 'h']), ['f', 'e', 'd', 'c', 'b', 'a', 'g', 'h']);
  assert.deepEqual(m(['a'], ['n1', 'n2', 'n3', 'n4', 'n5', 'a']), ['n1', 'n2', 'n3', 'n4', 'n5', 'a']);
  assert.deepEqual(m(['l1', 'l2', 'l3', 'l4', 'l5'], ['n']), ['l1', 'l2', 'l3', 'l4', 'l5', 'n']);
});

test('removeFields: maps and lists emptied by the removal go; ones that were empty stay', () => {
  const rm = (value: unknown, ...ps: string[][]) => removeFields(value, FieldSet.of(...ps), root);
  assert.deepEqual(rm({ a: 1, b: 2 }, ['f:a']), { b: 2 });
  assert.equal(rm({ a: 1 }, ['f:a']), undefined);
  assert.deepEqual(rm({ a: 1, inner: {} }, ['f:a']), { inner: {} }, 'an empty map left in place is kept');
  assert.deepEqual(rm({}, ['f:a']), {}, 'nothing removed: the empty map stays');
  assert.deepEqual(rm({ inner: { c: 1 }, a: 1 }, ['f:inner', 'f:c']), { a: 1 }, 'a map emptied below goes');
  assert.deepEqual(rm({ inner: { c: 1, d: 2 } }, ['f:inner', 'f:c']), { inner: { d: 2 } });
  assert.deepEqual(rm({ tags: ['x', 'y'] }, ['f:tags', 'v:"x"']), { tags: ['y'] });
  assert.equal(rm({ tags: ['x'] }, ['f:tags', 'v:"x"']), undefined, 'a list emptied goes, and the map holding it');
  assert.deepEqual(rm({ tags: [], a: 1 }, ['f:tags', 'v:"x"']), { tags: [], a: 1 }, 'an empty list stays');
  assert.deepEqual(rm({ items: [{ name: 'a', value: 1 }, { name: 'b', value: 2 }] }, ['f:items', 'k:{"name":"a"}', 'f:value']), { items: [{ name: 'a' }, { name: 'b', value: 2 }] });
  assert.deepEqual(rm({ items: [{ name: 'a', value: 1 }] }, ['f:items', 'k:{"name":"a"}', 'f:value'], ['f:items', 'k:{"name":"a"}', 'f:name']), { items: [{ name: 'a', value: 1 }] }, 'an item emptied of every field is kept whole');
  assert.deepEqual(rm({ opaque: { x: 1, y: 2 } }, ['f:opaque', 'f:x']), { opaque: { x: 1, y: 2 } }, 'atomic maps are not looked into');
  assert.deepEqual(rm({ frozen: [1, 2] }, ['f:frozen', 'v:1']), { frozen: [1, 2] });
  assert.deepEqual(rm({ free: { k: 1, l: 2 } }, ['f:free', 'f:k']), { free: { l: 2 } }, 'free-form maps are');
  assert.deepEqual(rm({ undeclared: { k: 1, l: 2 } }, ['f:undeclared', 'f:k']), { undeclared: { l: 2 } });
  assert.equal(rm('x', ['f:a']), 'x');
  assert.deepEqual(rm({ inner: 'x' }, ['f:inner', 'f:c']), { inner: 'x' }, 'a value of another shape is left as it is');
});

test("keys named like Object.prototype's members are ordinary keys in every walk", () => {
  const withKeys = { free: JSON.parse('{"constructor":1,"toString":2,"__proto__":3}') as Record<string, unknown> };
  assert.deepEqual(paths(toFieldSet(withKeys, root)), ['f:free.f:__proto__', 'f:free.f:constructor', 'f:free.f:toString']);
  assert.deepEqual(cmp(withKeys, { free: {} }), { added: [], modified: [], removed: ['f:free.f:__proto__', 'f:free.f:constructor', 'f:free.f:toString'] });
  assert.deepEqual(cmp({ free: {} }, withKeys), { added: ['f:free.f:__proto__', 'f:free.f:constructor', 'f:free.f:toString'], modified: [], removed: [] });
  const merged = merge(withKeys, { free: { other: 1 } }, root) as { free: Record<string, unknown> };
  assert.deepEqual(Object.keys(merged.free), ['constructor', 'toString', '__proto__', 'other']);
  assert.equal(Object.getOwnPropertyDescriptor(merged.free, '__proto__')?.value, 3);
  assert.equal(merged.free.constructor, 1);
  const added = merge({ free: { other: 1 } }, withKeys, root) as { free: Record<string, unknown> };
  assert.deepEqual(Object.keys(added.free), ['other', 'constructor', 'toString', '__proto__']);
  const removed = removeFields(withKeys, FieldSet.of(['f:free', 'f:constructor']), root) as { free: Record<string, unknown> };
  assert.deepEqual(Object.keys(removed.free), ['toString', '__proto__']);
});

test('a scalar field holding a map or list is one leaf', () => {
  assert.deepEqual(cmp({ a: { x: 1 } }, { a: { x: 2 } }), { added: [], modified: ['f:a'], removed: [] });
  assert.deepEqual(cmp({ a: [1] }, { a: [2] }), { added: [], modified: ['f:a'], removed: [] });
  assert.deepEqual(paths(toFieldSet({ a: { x: 1 } }, root)), ['f:a']);
  assert.deepEqual(merge({ a: { x: 1 } }, { a: { y: 2 } }, root), { a: { y: 2 } });
});
