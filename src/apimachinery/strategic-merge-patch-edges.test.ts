// Strategic merge patch edges the first mutation run found open: each malformed patch in kube's
// words, explicit merge, $retainKeys, a delete directive for a map the original lacks, items a
// patch adds twice, $setElementOrder interleaving, and directives nested in values it adds.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { applyStrategicMergePatch, StrategicPatchError } from './strategic-merge-patch.js';
import { refTo, type Schema, type SchemaRegistry } from './schema.js';

const registry: SchemaRegistry = {
  Meta: {
    type: 'object',
    properties: {
      labels: { type: 'object', additionalProperties: { type: 'string' } },
      finalizers: { type: 'array', items: { type: 'string' }, 'x-kubernetes-patch-strategy': 'merge' },
    },
  },
  Condition: { type: 'object', properties: { type: { type: 'string' }, status: { type: 'string' }, reason: { type: 'string' } } },
};
const schema: Schema = {
  type: 'object',
  properties: {
    metadata: refTo('Meta'),
    spec: { type: 'object', additionalProperties: { type: 'object' } },
    status: {
      type: 'object',
      properties: {
        conditions: { type: 'array', items: refTo('Condition'), 'x-kubernetes-patch-strategy': 'retainKeys,merge', 'x-kubernetes-patch-merge-key': 'type' },
      },
    },
  },
};
const apply = (original: object, patch: unknown) => applyStrategicMergePatch(original as Record<string, unknown>, patch, schema, registry);
const rejects = (original: object, patch: unknown, message: string) =>
  assert.throws(() => apply(original, patch), (e: unknown) => e instanceof StrategicPatchError && e.name === 'StrategicPatchError' && e.message === message);

describe('strategic merge patch edges', () => {
  test('malformed patches, each in its words', () => {
    rejects({}, [], 'invalid JSON document: a strategic merge patch must be a JSON object');
    rejects({ metadata: {} }, { metadata: { $patch: 'frobnicate' } }, 'unknown patch type: frobnicate');
    rejects({ metadata: { labels: { a: '1' } } }, { metadata: { labels: { $retainKeys: ['a', 1] } } }, 'invalid patch: $retainKeys must be a list of strings');
    rejects({ metadata: { labels: { a: '1' } } }, { metadata: { labels: { $retainKeys: 'a' } } }, 'invalid patch: $retainKeys must be a list of strings');
    rejects({ metadata: { finalizers: ['a'] } }, { metadata: { '$deleteFromPrimitiveList/finalizers': 'a' } }, 'invalid patch: $deleteFromPrimitiveList/finalizers must be a list');
    rejects({ metadata: { finalizers: ['a'] } }, { metadata: { finalizers: [{ x: 1 }] } }, 'invalid patch: a list of primitives cannot hold objects');
    rejects({ status: { conditions: [] } }, { status: { conditions: ['Ready'] } }, 'invalid patch: list items must be objects with the merge key "type"');
    rejects({ metadata: { finalizers: ['a'] } }, { metadata: { '$setElementOrder/finalizers': 'a' } }, 'invalid patch: $setElementOrder/finalizers must be a list');
  });

  test('$patch: merge merges, and is not stored', () => {
    assert.deepEqual(apply({ metadata: { labels: { a: '1' } } }, { metadata: { $patch: 'merge', labels: { b: '2' } } }), { metadata: { labels: { a: '1', b: '2' } } });
  });

  test('$retainKeys is applied, not stored', () => {
    assert.deepEqual(apply({ metadata: { labels: { a: '1', b: '2' } } }, { metadata: { labels: { $retainKeys: ['b'] } } }), { metadata: { labels: { b: '2' } } });
  });

  test('a delete directive for a map the original lacks leaves nothing behind', () => {
    assert.deepEqual(apply({ metadata: {} }, { metadata: { labels: { $patch: 'delete' } } }), { metadata: {} });
    assert.deepEqual(apply({ metadata: { labels: 'text' } }, { metadata: { labels: { $patch: 'delete' } } }), { metadata: {} });
  });

  test('two items with one new key in one patch become one item', () => {
    const out = apply({ status: { conditions: [{ type: 'Old' }] } }, { status: { conditions: [{ type: 'New', status: 'A' }, { type: 'New', reason: 'B' }] } });
    assert.deepEqual(out, { status: { conditions: [{ type: 'Old' }, { type: 'New', status: 'A', reason: 'B' }] } });
  });

  test('an item merged twice by one patch takes both', () => {
    const out = apply({ status: { conditions: [{ type: 'Ready', status: 'False' }] } }, { status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'Ready', reason: 'R' }] } });
    assert.deepEqual(out, { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'R' }] } });
  });

  test('$setElementOrder: a server-only item stored before a patched one stays before it', () => {
    const out = apply(
      { status: { conditions: [{ type: 'A' }, { type: 'B' }, { type: 'C' }] } },
      { status: { '$setElementOrder/conditions': [{ type: 'C' }, { type: 'B' }], conditions: [{ type: 'B', status: 'x' }] } },
    );
    assert.deepEqual(out.status, { conditions: [{ type: 'A' }, { type: 'C' }, { type: 'B', status: 'x' }] });
  });

  test('$setElementOrder: a server-only item stored after the patched ones comes after them; a new item comes first', () => {
    const out = apply(
      { status: { conditions: [{ type: 'A' }, { type: 'B' }] } },
      { status: { '$setElementOrder/conditions': [{ type: 'D' }, { type: 'A' }], conditions: [{ type: 'D' }] } },
    );
    assert.deepEqual(out.status, { conditions: [{ type: 'D' }, { type: 'A' }, { type: 'B' }] });
  });

  test('$setElementOrder: an item named twice keeps its first place; server-only items keep their stored order', () => {
    const out = apply(
      { metadata: { finalizers: ['s/2', 'p/1', 's/1', 'p/2'] } },
      { metadata: { '$setElementOrder/finalizers': ['p/2', 'p/1', 'p/2'], finalizers: [] } },
    );
    // s/1 was stored before p/2, the first patched item: it stays before it.
    assert.deepEqual(out.metadata, { finalizers: ['s/2', 's/1', 'p/2', 'p/1'] });
  });

  test('directives nested anywhere in a value new to the original are stripped, deleted items and maps dropped', () => {
    const out = apply(
      {},
      {
        spec: {
          added: {
            list: [{ keep: 1 }, { $patch: 'delete', name: 'x' }, 'text'],
            gone: { $patch: 'delete' },
            $retainKeys: ['list'],
            '$deleteFromPrimitiveList/list': ['x'],
            '$setElementOrder/list': ['x'],
            inner: { $patch: 'replace', kept: true },
          },
        },
      },
    );
    assert.deepEqual(out, { spec: { added: { list: [{ keep: 1 }, 'text'], inner: { kept: true } } } });
  });

  test('a key that merely contains a directive name is data', () => {
    assert.deepEqual(apply({}, { spec: { added: { 'x$deleteFromPrimitiveList/': { a: 1 } } } }), { spec: { added: { 'x$deleteFromPrimitiveList/': { a: 1 } } } });
  });
});
