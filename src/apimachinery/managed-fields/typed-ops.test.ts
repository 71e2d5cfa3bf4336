import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { commonSchemas } from '../common-schemas.js';
import { serviceCIDRs } from '../../resources/servicecidrs/index.js';
import { FieldSet } from './field-set.js';
import { compare, merge, removeFields, toFieldSet } from './typed-ops.js';
import { TypedSchema } from './typed-schema.js';

// The ServiceCIDR schema as served: labels a granular map, finalizers a set, ownerReferences a
// map keyed by uid (items atomic), spec.cidrs atomic, status.conditions a map keyed by type.
const root = new TypedSchema({ ...commonSchemas, ...serviceCIDRs.schemas }).typeOf(serviceCIDRs.schemas[serviceCIDRs.schemaName]);
const cond = (type: string, status = 'True') => ({ type, status, reason: 'R', message: 'm', lastTransitionTime: '2026-01-01T00:00:00Z' });

describe('toFieldSet', () => {
  test('leaves, atomic lists, set items, keyed items with their fields', () => {
    const set = toFieldSet(
      {
        metadata: { labels: { a: '1' }, finalizers: ['x'], ownerReferences: [{ apiVersion: 'v1', kind: 'K', name: 'n', uid: 'u1' }] },
        spec: { cidrs: ['10.0.0.0/24'] },
        status: { conditions: [cond('Ready')] },
      },
      root,
    );
    assert.deepEqual(set.toFieldsV1(), {
      'f:metadata': {
        'f:finalizers': { 'v:"x"': {} },
        'f:labels': { 'f:a': {} },
        'f:ownerReferences': { 'k:{"uid":"u1"}': {} },
      },
      'f:spec': { 'f:cidrs': {} },
      'f:status': {
        'f:conditions': {
          'k:{"type":"Ready"}': { '.': {}, 'f:lastTransitionTime': {}, 'f:message': {}, 'f:reason': {}, 'f:status': {}, 'f:type': {} },
        },
      },
    });
  });

  test('an empty map is owned as itself; an empty list owns nothing', () => {
    assert.deepEqual(toFieldSet({ metadata: { labels: {}, finalizers: [] } }, root).paths(), [['f:metadata', 'f:labels']]);
  });
});

describe('compare', () => {
  const cases: { name: string; lhs: unknown; rhs: unknown; added: string[][]; modified: string[][]; removed: string[][] }[] = [
    {
      name: 'a new map adds itself and its keys; a changed leaf is modified',
      lhs: { metadata: { name: 'n' }, spec: { cidrs: ['10.0.0.0/24'] } },
      rhs: { metadata: { name: 'n', labels: { a: '1' } }, spec: { cidrs: ['10.0.0.0/24', 'fd00::/64'] } },
      added: [['f:metadata', 'f:labels'], ['f:metadata', 'f:labels', 'f:a']],
      modified: [['f:spec', 'f:cidrs']],
      removed: [],
    },
    {
      name: 'keyed list items compare by key, not position',
      lhs: { status: { conditions: [cond('A'), cond('B')] } },
      rhs: { status: { conditions: [cond('B', 'False'), cond('C')] } },
      added: [
        ['f:status', 'f:conditions', 'k:{"type":"C"}'],
        ...['lastTransitionTime', 'message', 'reason', 'status', 'type'].map((f) => ['f:status', 'f:conditions', 'k:{"type":"C"}', `f:${f}`]),
      ],
      modified: [['f:status', 'f:conditions', 'k:{"type":"B"}', 'f:status']],
      removed: [
        ['f:status', 'f:conditions', 'k:{"type":"A"}'],
        ...['lastTransitionTime', 'message', 'reason', 'status', 'type'].map((f) => ['f:status', 'f:conditions', 'k:{"type":"A"}', `f:${f}`]),
      ],
    },
    {
      name: 'set items are added and removed by value',
      lhs: { metadata: { finalizers: ['a', 'b'] } },
      rhs: { metadata: { finalizers: ['b', 'c'] } },
      added: [['f:metadata', 'f:finalizers', 'v:"c"']],
      modified: [],
      removed: [['f:metadata', 'f:finalizers', 'v:"a"']],
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const out = compare(c.lhs, c.rhs, root);
      assert.deepEqual(out.added.paths(), FieldSet.of(...c.added).paths(), 'added');
      assert.deepEqual(out.modified.paths(), FieldSet.of(...c.modified).paths(), 'modified');
      assert.deepEqual(out.removed.paths(), FieldSet.of(...c.removed).paths(), 'removed');
    });
  }
});

describe('merge', () => {
  test('maps merge key by key, atomic lists are replaced, sets and keyed lists merge', () => {
    const live = {
      metadata: { name: 'n', labels: { a: '1', b: '2' }, finalizers: ['x', 'y'] },
      spec: { cidrs: ['10.0.0.0/24', 'fd00::/64'] },
      status: { conditions: [cond('A'), cond('B')] },
    };
    const config = { metadata: { labels: { b: '3', c: '4' }, finalizers: ['z'] }, spec: { cidrs: ['10.9.0.0/24'] }, status: { conditions: [cond('B', 'False')] } };
    assert.deepEqual(merge(live, config, root), {
      metadata: { name: 'n', labels: { a: '1', b: '3', c: '4' }, finalizers: ['x', 'y', 'z'] },
      spec: { cidrs: ['10.9.0.0/24'] },
      status: { conditions: [cond('A'), cond('B', 'False')] },
    });
  });

  test('shared items follow the applied order; items only in live keep their place', () => {
    const out = merge({ metadata: { finalizers: ['a', 'live-only', 'b', 'c'] } }, { metadata: { finalizers: ['c', 'b', 'new'] } }, root);
    assert.deepEqual(out, { metadata: { finalizers: ['a', 'live-only', 'c', 'b', 'new'] } });
  });
});

describe('removeFields', () => {
  test('removes leaves, set items and keyed items; an emptied map disappears', () => {
    const value = { metadata: { name: 'n', labels: { a: '1' }, finalizers: ['x', 'y'] }, status: { conditions: [cond('A'), cond('B')] } };
    const out = removeFields(
      value,
      FieldSet.of(['f:metadata', 'f:labels', 'f:a'], ['f:metadata', 'f:finalizers', 'v:"x"'], ['f:status', 'f:conditions', 'k:{"type":"A"}']),
      root,
    );
    assert.deepEqual(out, { metadata: { name: 'n', finalizers: ['y'] }, status: { conditions: [cond('B')] } });
  });
});
