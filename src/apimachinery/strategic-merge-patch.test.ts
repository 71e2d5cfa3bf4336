import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { applyStrategicMergePatch, StrategicPatchError } from './strategic-merge-patch.js';
import { refTo, type Schema, type SchemaRegistry } from './schema.js';

// A schema shaped like ours: finalizers merge as a set, ownerReferences by uid, conditions by
// type, cidrs atomic, labels a free map.
const registry: SchemaRegistry = {
  Meta: {
    type: 'object',
    properties: {
      name: { type: 'string' },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
      finalizers: { type: 'array', items: { type: 'string' }, 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-list-type': 'set' },
      ownerReferences: {
        type: 'array',
        items: refTo('OwnerRef'),
        'x-kubernetes-patch-strategy': 'merge',
        'x-kubernetes-patch-merge-key': 'uid',
      },
    },
  },
  OwnerRef: { type: 'object', properties: { uid: { type: 'string' }, name: { type: 'string' }, controller: { type: 'boolean' } } },
  Condition: { type: 'object', properties: { type: { type: 'string' }, status: { type: 'string' }, reason: { type: 'string' } } },
};
const schema: Schema = {
  type: 'object',
  properties: {
    metadata: refTo('Meta'),
    spec: { type: 'object', properties: { cidrs: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'atomic' } } },
    status: {
      type: 'object',
      properties: {
        conditions: {
          type: 'array',
          items: refTo('Condition'),
          'x-kubernetes-patch-strategy': 'merge',
          'x-kubernetes-patch-merge-key': 'type',
        },
      },
    },
  },
};

const apply = (original: object, patch: unknown) => applyStrategicMergePatch(original as Record<string, unknown>, patch, schema, registry);

describe('strategic merge patch', () => {
  test('maps merge and null deletes a key', () => {
    const out = apply({ metadata: { name: 'a', labels: { x: '1', y: '2' } } }, { metadata: { labels: { y: null, z: '3' } } });
    assert.deepEqual(out, { metadata: { name: 'a', labels: { x: '1', z: '3' } } });
  });

  test('atomic lists are replaced whole', () => {
    const out = apply({ spec: { cidrs: ['10.0.0.0/24', 'fd00::/64'] } }, { spec: { cidrs: ['10.1.0.0/24'] } });
    assert.deepEqual(out, { spec: { cidrs: ['10.1.0.0/24'] } });
  });

  test('primitive lists with merge strategy take the union', () => {
    const out = apply({ metadata: { finalizers: ['a/x', 'b/y'] } }, { metadata: { finalizers: ['b/y', 'c/z'] } });
    assert.deepEqual(out, { metadata: { finalizers: ['a/x', 'b/y', 'c/z'] } });
  });

  test('$deleteFromPrimitiveList removes the named values', () => {
    const out = apply({ metadata: { finalizers: ['a/x', 'b/y'] } }, { metadata: { '$deleteFromPrimitiveList/finalizers': ['a/x'] } });
    assert.deepEqual(out, { metadata: { finalizers: ['b/y'] } });
  });

  test('lists of maps merge by key, and $patch: delete removes an element', () => {
    const original = {
      status: {
        conditions: [
          { type: 'Ready', status: 'False', reason: 'Waiting' },
          { type: 'Other', status: 'True', reason: 'Fine' },
        ],
      },
    };
    const out = apply(original, {
      status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'Other', $patch: 'delete' }, { type: 'New', status: 'Unknown' }] },
    });
    assert.deepEqual(out.status, {
      conditions: [
        { type: 'Ready', status: 'True', reason: 'Waiting' },
        { type: 'New', status: 'Unknown' },
      ],
    });
  });

  test('$patch: replace on a list element replaces the whole list', () => {
    const out = apply(
      { metadata: { ownerReferences: [{ uid: '1', name: 'a' }, { uid: '2', name: 'b' }] } },
      { metadata: { ownerReferences: [{ $patch: 'replace' }, { uid: '3', name: 'c' }] } },
    );
    assert.deepEqual(out, { metadata: { ownerReferences: [{ uid: '3', name: 'c' }] } });
  });

  test('$patch: replace on a map replaces the map', () => {
    const out = apply({ metadata: { labels: { a: '1', b: '2' } } }, { metadata: { labels: { $patch: 'replace', c: '3' } } });
    assert.deepEqual(out, { metadata: { labels: { c: '3' } } });
  });

  test('$patch: delete on a map removes it', () => {
    const out = apply({ metadata: { name: 'n', labels: { a: '1' } } }, { metadata: { labels: { $patch: 'delete' } } });
    assert.deepEqual(out, { metadata: { name: 'n' } });
  });

  test('$retainKeys keeps only the listed keys before merging', () => {
    const out = apply({ metadata: { labels: { a: '1', b: '2', c: '3' } } }, { metadata: { labels: { $retainKeys: ['a', 'd'], d: '4' } } });
    assert.deepEqual(out, { metadata: { labels: { a: '1', d: '4' } } });
  });

  test('$setElementOrder orders patched items and interleaves server-only items by stored position', () => {
    // kubectl apply sends this when the user reorders finalizers; c/z was added by a controller.
    // As kube's mergeSortedSlice: c/z (stored at 1) precedes b/y (stored at 2).
    const out = apply(
      { metadata: { finalizers: ['a/x', 'c/z', 'b/y'] } },
      { metadata: { '$setElementOrder/finalizers': ['b/y', 'a/x'], finalizers: ['b/y'] } },
    );
    assert.deepEqual(out, { metadata: { finalizers: ['c/z', 'b/y', 'a/x'] } });
  });

  test('$setElementOrder puts new items before server-only ones they cannot be compared with', () => {
    const out = apply(
      { metadata: { finalizers: ['c/z'] } },
      { metadata: { '$setElementOrder/finalizers': ['n/new'], finalizers: ['n/new'] } },
    );
    assert.deepEqual(out, { metadata: { finalizers: ['n/new', 'c/z'] } });
  });

  test('kubectl apply removal of a finalizer: delete list plus element order', () => {
    const out = apply(
      { metadata: { finalizers: ['example.com/a', 'example.com/b'] } },
      { metadata: { '$deleteFromPrimitiveList/finalizers': ['example.com/a'], '$setElementOrder/finalizers': ['example.com/b'] } },
    );
    assert.deepEqual(out, { metadata: { finalizers: ['example.com/b'] } });
  });

  test('directives inside values new to the original are stripped', () => {
    const out = apply({}, { metadata: { labels: { a: '1', $patch: 'merge' }, '$setElementOrder/finalizers': ['x/y'], finalizers: ['x/y'] } });
    assert.deepEqual(out, { metadata: { labels: { a: '1' }, finalizers: ['x/y'] } });
  });

  test('merge-key list items without the key are rejected', () => {
    assert.throws(
      () => apply({ status: { conditions: [] } }, { status: { conditions: [{ status: 'True' }] } }),
      (e: unknown) => e instanceof StrategicPatchError && /does not contain declared merge key: type/.test(e.message),
    );
  });

  test('an unknown $patch value is rejected', () => {
    assert.throws(() => apply({ metadata: {} }, { metadata: { $patch: 'explode' } }), (e: unknown) => e instanceof StrategicPatchError && e.message === 'unknown patch type: explode');
  });

  test('a non-object patch is rejected', () => {
    assert.throws(() => apply({}, [1, 2]), StrategicPatchError);
  });

  test('the original is not mutated', () => {
    const original = { metadata: { labels: { a: '1' } } };
    apply(original, { metadata: { labels: { a: null } } });
    assert.deepEqual(original, { metadata: { labels: { a: '1' } } });
  });
});
