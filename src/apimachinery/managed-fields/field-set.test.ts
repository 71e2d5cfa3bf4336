import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FieldSet, FieldSetError, formatPath } from './field-set.js';

describe('FieldSet', () => {
  const fieldsV1 = {
    'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} }, 'f:finalizers': { 'v:"x"': {} } },
    'f:status': { 'f:conditions': { 'k:{"type":"Ready"}': { '.': {}, 'f:status': {}, 'f:type': {} } } },
  };

  test('FieldsV1 round-trips, "." marking a member that has children', () => {
    const set = FieldSet.fromFieldsV1(fieldsV1);
    assert.ok(set.has(['f:metadata', 'f:labels']));
    assert.ok(set.has(['f:metadata', 'f:labels', 'f:a']));
    assert.ok(!set.has(['f:metadata']));
    assert.ok(set.has(['f:status', 'f:conditions', 'k:{"type":"Ready"}']));
    assert.deepEqual(set.toFieldsV1(), fieldsV1);
  });

  test('serializes children in kube order: fields sorted, "." first', () => {
    const set = FieldSet.of(['f:spec', 'f:b'], ['f:spec', 'f:a'], ['f:metadata', 'f:labels', 'f:z'], ['f:spec']);
    assert.equal(JSON.stringify(set.toFieldsV1()), '{"f:metadata":{"f:labels":{"f:z":{}}},"f:spec":{".":{},"f:a":{},"f:b":{}}}');
  });

  test('union, difference and intersection are path-wise', () => {
    const a = FieldSet.of(['f:spec', 'f:a'], ['f:spec', 'f:b'], ['f:spec']);
    const b = FieldSet.of(['f:spec', 'f:b'], ['f:status']);
    assert.deepEqual(a.difference(b).paths(), [['f:spec'], ['f:spec', 'f:a']]);
    assert.deepEqual(a.intersection(b).paths(), [['f:spec', 'f:b']]);
    assert.deepEqual(a.union(b).paths(), [['f:spec'], ['f:spec', 'f:a'], ['f:spec', 'f:b'], ['f:status']]);
    assert.ok(a.difference(a).isEmpty());
    assert.ok(a.equals(a.clone()));
  });

  test('withoutPrefixes drops a path and everything below it', () => {
    const set = FieldSet.of(['f:status'], ['f:status', 'f:conditions'], ['f:spec', 'f:cidrs']);
    assert.deepEqual(set.withoutPrefixes(FieldSet.of(['f:status'])).paths(), [['f:spec', 'f:cidrs']]);
  });

  test('formats paths as kube prints them in conflicts', () => {
    assert.equal(formatPath(['f:spec', 'f:cidrs']), '.spec.cidrs');
    assert.equal(formatPath(['f:status', 'f:conditions', 'k:{"type":"Ready"}', 'f:status']), '.status.conditions[type="Ready"].status');
    assert.equal(formatPath(['f:metadata', 'f:finalizers', 'v:"example.com/a"']), '.metadata.finalizers[="example.com/a"]');
    assert.equal(formatPath(['f:x', 'i:3']), '.x[3]');
  });

  test('refuses malformed FieldsV1', () => {
    for (const bad of [[], 'x', { 'q:x': {} }, { 'f:x': 1 }, { 'k:[1]': {} }, { 'i:x': {} }, { 'v:{bad': {} }]) {
      assert.throws(() => FieldSet.fromFieldsV1(bad), FieldSetError, JSON.stringify(bad));
    }
  });
});
