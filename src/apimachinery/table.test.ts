import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTable, type TableColumnSource } from './table.js';
import type { KubeObject } from './object-meta.js';

const obj: KubeObject = { apiVersion: 'g/v1', kind: 'K', metadata: { name: 'a', labels: { x: 'y' } } };
const columns: TableColumnSource<KubeObject>[] = [
  { name: 'Name', type: 'string', format: 'name', description: 'the name', priority: 0, cell: (o) => o.metadata.name ?? '' },
  { name: 'Wide', type: 'string', format: '', description: 'only -o wide', priority: 1, cell: () => 'w' },
];

test('rows carry cells and PartialObjectMetadata by default, the object or nothing on request', () => {
  const t = buildTable(columns, [obj], { includeObject: 'Metadata', now: new Date(), apiVersion: 'meta.k8s.io/v1', listMeta: { resourceVersion: '7' } });
  assert.deepEqual(t, {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: { resourceVersion: '7' },
    columnDefinitions: [
      { name: 'Name', type: 'string', format: 'name', description: 'the name', priority: 0 },
      { name: 'Wide', type: 'string', format: '', description: 'only -o wide', priority: 1 },
    ],
    rows: [{ cells: ['a', 'w'], object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata } }],
  });
  assert.deepEqual(buildTable(columns, [obj], { includeObject: 'Object', now: new Date(), apiVersion: 'meta.k8s.io/v1' }).rows[0]?.object, obj);
  assert.equal('object' in buildTable(columns, [obj], { includeObject: 'None', now: new Date(), apiVersion: 'meta.k8s.io/v1' }).rows[0]!, false);
});
