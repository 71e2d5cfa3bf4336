// Strategic merge patch cases that mutation testing found unpinned (issue #35), as kube's
// strategicpatch answers them with the apiserver's IgnoreUnmatchedNulls: a `$patch: delete` item
// removes every list item with its key, not just the first; a null inside a map (or list item)
// the patch adds is dropped, not stored.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { applyStrategicMergePatch } from './strategic-merge-patch.js';
import { refTo, type Schema, type SchemaRegistry } from './schema.js';

const registry: SchemaRegistry = {
  Meta: { type: 'object', properties: { name: { type: 'string' }, labels: { type: 'object', additionalProperties: { type: 'string' } } } },
  Condition: { type: 'object', properties: { type: { type: 'string' }, status: { type: 'string' }, reason: { type: 'string' } } },
};
const schema: Schema = {
  type: 'object',
  properties: {
    metadata: refTo('Meta'),
    spec: { type: 'object', properties: { selector: { type: 'object', additionalProperties: { type: 'object' } } } },
    status: {
      type: 'object',
      properties: {
        conditions: { type: 'array', items: refTo('Condition'), 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'type' },
      },
    },
  },
};
const apply = (original: object, patch: unknown) => applyStrategicMergePatch(original as Record<string, unknown>, patch, schema, registry);

describe('strategic merge patch pins', () => {
  test('$patch: delete removes every item carrying the key, however many there are', () => {
    const original = {
      status: {
        conditions: [
          { type: 'Ready', status: 'True' },
          { type: 'Other', status: 'True' },
          { type: 'Ready', status: 'False' },
          { type: 'Ready', status: 'Unknown' },
        ],
      },
    };
    const out = apply(original, { status: { conditions: [{ type: 'Ready', $patch: 'delete' }] } });
    assert.deepEqual(out, { status: { conditions: [{ type: 'Other', status: 'True' }] } });
  });

  test('a null inside a map the patch adds is dropped, at any depth', () => {
    assert.deepEqual(apply({ metadata: { name: 'a' } }, { metadata: { labels: { a: '1', b: null } } }), { metadata: { name: 'a', labels: { a: '1' } } });
    assert.deepEqual(apply({}, { spec: { selector: { outer: { kept: 'x', gone: null } } } }), { spec: { selector: { outer: { kept: 'x' } } } });
  });

  test('a null inside a list item the patch adds is dropped too', () => {
    const out = apply({ status: { conditions: [] } }, { status: { conditions: [{ type: 'Ready', status: 'True', reason: null }] } });
    assert.deepEqual(out, { status: { conditions: [{ type: 'Ready', status: 'True' }] } });
  });
});
