// The field set's operations as server-side apply relies on them (structured-merge-diff's
// fieldpath.Set): kube's order of path elements (fields, keys, values, indexes; indexes by
// number), set algebra that leaves its inputs alone and drops emptied branches, membership of a
// path versus the branch above it, and FieldsV1 parsing that refuses malformed elements. Pinned
// here (issue #35): the field manager's tests reach these only through whole applies.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { comparePathElements, FieldSet, FieldSetError, formatPath } from './field-set.js';

test("path elements sort in kube's order: fields, keys, values, indexes; indexes by number", () => {
  const pes = ['i:10', 'v:"b"', 'k:{"a":1}', 'f:b', 'i:2', 'f:a', 'v:"a"'];
  assert.deepEqual([...pes].sort(comparePathElements), ['f:a', 'f:b', 'k:{"a":1}', 'v:"a"', 'v:"b"', 'i:2', 'i:10']);
  assert.equal(comparePathElements('f:a', 'f:a'), 0);
  assert.ok(comparePathElements('i:9', 'i:10') < 0);
  const set = FieldSet.of(['f:list', 'i:10'], ['f:list', 'i:2'], ['f:list', 'i:9']);
  assert.deepEqual(set.paths(), [['f:list', 'i:2'], ['f:list', 'i:9'], ['f:list', 'i:10']]);
  assert.deepEqual(Object.keys(set.toFieldsV1()['f:list'] as object), ['i:2', 'i:9', 'i:10']);
});

test('a path is a member only where it ends; the branch above it is not', () => {
  const set = FieldSet.of(['f:spec', 'f:cidrs']);
  assert.ok(set.has(['f:spec', 'f:cidrs']));
  assert.ok(!set.has(['f:spec']));
  assert.ok(!set.has([]));
  assert.ok(!set.has(['f:status', 'f:x']));
  assert.deepEqual(set.nodeAt(['f:spec'])?.paths(), [['f:cidrs']]);
  assert.equal(set.nodeAt(['f:status']), undefined);
  set.insert([]);
  assert.deepEqual(set.paths(), [['f:spec', 'f:cidrs']], 'an empty path adds nothing');
});

test('emptiness looks through empty branches', () => {
  const set = FieldSet.of(['f:a', 'f:b']);
  assert.ok(!set.isEmpty());
  const emptied = set.difference(FieldSet.of(['f:a', 'f:b']));
  assert.ok(emptied.isEmpty());
  assert.deepEqual(emptied.toFieldsV1(), {}, 'a branch with nothing left goes');
  assert.equal(emptied.children.size, 0);
  const hollow = new FieldSet();
  hollow.children.set('f:x', new FieldSet());
  assert.ok(hollow.isEmpty());
  assert.ok(hollow.equals(new FieldSet()));
  // A member whose branch below is hollow serializes as a plain member.
  const member = FieldSet.of(['f:x']);
  member.children.set('f:x', hollow.children.get('f:x')!);
  assert.deepEqual(member.toFieldsV1(), { 'f:x': {} });
});

test('union and intersection leave their inputs alone; addAll merges deep without sharing', () => {
  const a = FieldSet.of(['f:spec', 'f:a'], ['f:metadata', 'f:labels', 'f:x']);
  const b = FieldSet.of(['f:spec', 'f:b'], ['f:status']);
  const u = a.union(b);
  assert.deepEqual(u.paths(), [['f:metadata', 'f:labels', 'f:x'], ['f:spec', 'f:a'], ['f:spec', 'f:b'], ['f:status']]);
  assert.deepEqual(a.paths(), [['f:metadata', 'f:labels', 'f:x'], ['f:spec', 'f:a']]);
  assert.deepEqual(b.paths(), [['f:spec', 'f:b'], ['f:status']]);
  u.insert(['f:status', 'f:more']);
  assert.ok(!b.has(['f:status', 'f:more']));
  const target = FieldSet.of(['f:spec', 'f:a']);
  const source = FieldSet.of(['f:spec', 'f:b'], ['f:status', 'f:x']);
  target.addAll(source);
  source.insert(['f:spec', 'f:later']);
  source.insert(['f:status', 'f:later']);
  assert.deepEqual(target.paths(), [['f:spec', 'f:a'], ['f:spec', 'f:b'], ['f:status', 'f:x']], 'what addAll took is a copy');
  const i = FieldSet.of(['f:spec', 'f:a'], ['f:spec', 'f:b'], ['f:x', 'f:y']).intersection(FieldSet.of(['f:spec', 'f:b'], ['f:x', 'f:z'], ['f:w']));
  assert.deepEqual(i.paths(), [['f:spec', 'f:b']]);
  assert.equal(i.children.size, 1, 'a branch with nothing in common goes');
});

test('withoutPrefixes removes below nested prefixes, keeps siblings', () => {
  const set = FieldSet.of(['f:metadata', 'f:labels', 'f:a'], ['f:metadata', 'f:annotations', 'f:b'], ['f:metadata', 'f:name'], ['f:spec', 'f:c']);
  const out = set.withoutPrefixes(FieldSet.of(['f:metadata', 'f:labels'], ['f:metadata', 'f:name']));
  assert.deepEqual(out.paths(), [['f:metadata', 'f:annotations', 'f:b'], ['f:spec', 'f:c']]);
  assert.deepEqual(set.withoutPrefixes(FieldSet.of(['f:metadata'], ['f:spec'])).toFieldsV1(), {});
  assert.ok(set.equals(set.clone()));
  assert.ok(!set.equals(out));
  assert.ok(!out.equals(set));
});

test('FieldsV1 with "." marks a member that has children; a branch that is only "." is a member', () => {
  const set = FieldSet.fromFieldsV1({ 'f:metadata': { '.': {}, 'f:labels': { '.': {}, 'f:a': {} } }, 'f:spec': { '.': {} } });
  assert.deepEqual(set.paths(), [['f:metadata'], ['f:metadata', 'f:labels'], ['f:metadata', 'f:labels', 'f:a'], ['f:spec']]);
  assert.deepEqual(set.toFieldsV1(), { 'f:metadata': { '.': {}, 'f:labels': { '.': {}, 'f:a': {} } }, 'f:spec': {} });
});

test('FieldsV1 with a malformed path element is refused, naming it', () => {
  const refused: [unknown, string][] = [
    [{ 'i:x': {} }, 'invalid index path element: i:x'],
    [{ 'i:': {} }, 'invalid index path element: i:'],
    [{ 'i:1x': {} }, 'invalid index path element: i:1x'],
    [{ 'k:[1]': {} }, 'invalid path element: k:[1]'],
    [{ 'k:null': {} }, 'invalid path element: k:null'],
    [{ 'k:{': {} }, 'invalid path element: k:{'],
    [{ 'v:nope': {} }, 'invalid path element: v:nope'],
    [{ 'x:a': {} }, 'unknown path element type: x:a'],
    [{ f: {} }, 'unknown path element type: f'],
    [{ fa: {} }, 'unknown path element type: fa'],
    [{ 'f:a': [] }, 'FieldsV1 entry f:a must be an object'],
    [{ 'f:a': null }, 'FieldsV1 entry f:a must be an object'],
    [[], 'FieldsV1 must be a JSON object'],
    [{ 'f:a': { 'f:b': 'x' } }, 'FieldsV1 entry f:b must be an object'],
  ];
  for (const [json, message] of refused) {
    assert.throws(() => FieldSet.fromFieldsV1(json), (e: unknown) => e instanceof FieldSetError && e.message === message, JSON.stringify(json));
  }
  assert.deepEqual(FieldSet.fromFieldsV1({ 'v:null': {}, 'k:{"a":"b"}': {}, 'i:0': {} }).paths(), [['k:{"a":"b"}'], ['v:null'], ['i:0']]);
});

test('key and set values print as kube prints them: strings quoted, numbers, booleans and null bare', () => {
  assert.equal(formatPath(['f:ports', 'k:{"port":80,"protocol":"TCP"}', 'f:name']), '.ports[port=80,protocol="TCP"].name');
  assert.equal(formatPath(['f:x', 'k:{"enabled":true,"none":null}']), '.x[enabled=true,none=null]');
  assert.equal(formatPath(['f:x', 'v:null']), '.x[=null]');
  assert.equal(formatPath(['f:x', 'v:5']), '.x[=5]');
  assert.equal(formatPath(['f:x', 'v:false']), '.x[=false]');
  assert.equal(formatPath(['f:x', 'v:"a\\"b"']), '.x[="a\\"b"]');
  assert.equal(formatPath([]), '');
});

test('membership of the empty path and of paths through members', () => {
  const set = FieldSet.of(['f:a'], ['f:a', 'f:b']);
  assert.equal(set.has([]), false);
  assert.equal(set.has(['f:a']), true);
  assert.equal(set.has(['f:a', 'f:b']), true);
  assert.equal(set.has(['f:a', 'f:c']), false);
  assert.equal(set.has(['f:b']), false);
  assert.equal(new FieldSet().has(['f:a']), false);
  assert.ok(comparePathElements('x:1', 'i:1') > 0, 'an unknown kind of element sorts last');
  assert.ok(comparePathElements('i:1', 'x:1') < 0);
});

test('set algebra drops branches left with nothing, also where only one side has them', () => {
  assert.ok(FieldSet.of(['f:a', 'f:b']).intersection(FieldSet.of(['f:c', 'f:d'])).isEmpty());
  assert.deepEqual(FieldSet.of(['f:a', 'f:b'], ['f:c']).intersection(FieldSet.of(['f:c'])).toFieldsV1(), { 'f:c': {} });
  const cut = FieldSet.of(['f:metadata', 'f:labels', 'f:a'], ['f:spec']).withoutPrefixes(FieldSet.of(['f:metadata', 'f:labels']));
  assert.deepEqual(cut.toFieldsV1(), { 'f:spec': {} });
  assert.equal(cut.children.size, 0, 'metadata, emptied, goes');
});

test('FieldsV1 that is not an object, and keys that are not JSON objects, are refused', () => {
  for (const json of [null, 5, 'f:a']) assert.throws(() => FieldSet.fromFieldsV1(json), FieldSetError, String(json));
  for (const key of ['k:5', 'k:"s"', 'k:true']) {
    assert.throws(() => FieldSet.fromFieldsV1({ [key]: {} }), (e: unknown) => e instanceof FieldSetError && e.message === `invalid path element: ${key}`, key);
  }
  assert.deepEqual(FieldSet.fromFieldsV1({ 'v:5': {}, 'v:"s"': {}, 'v:{"a":1}': {} }).paths(), [['v:"s"'], ['v:5'], ['v:{"a":1}']]);
});
