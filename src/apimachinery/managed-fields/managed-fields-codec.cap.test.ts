// The ownership table's order and its cap at its edges (kube's managedFields sort and
// capManagersManager): entries without a time first, equal times by manager, the cap's buckets
// one per apiVersion, a bucket that already exists absorbing the next oldest, ties broken by
// identity; and decoding that keeps each entry's parts. Pinned here (issue #35).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ManagedFieldsEntry } from '../object-meta.js';
import { FieldSet } from './field-set.js';
import { capUpdateManagers, decodeManagedFields, encodeManagedFields, managerIdentifier, ManagedFieldsDecodeError, type Ownership, type OwnershipTable } from './managed-fields-codec.js';

const labels = (...names: string[]) => FieldSet.of(...names.map((n) => ['f:metadata', 'f:labels', `f:${n}`]));
const at = (s: number) => `2026-01-01T00:00:${String(s).padStart(2, '0')}Z`;
const own = (manager: string, o: Partial<Ownership> = {}): Ownership => ({ manager, operation: 'Update', apiVersion: 'v1', subresource: '', set: labels(manager), ...o });
const tableOf = (...owners: Ownership[]): OwnershipTable => new Map(owners.map((o) => [managerIdentifier(o), o]));
const summary = (t: OwnershipTable) =>
  [...t.values()]
    .map((o) => `${o.manager}/${o.apiVersion}${o.subresource ? `/${o.subresource}` : ''}@${o.time ?? '-'}:${o.set.paths().map((p) => p[2]!.slice(2)).join(',')}`)
    .sort();

test('an entry without a time sorts before timed ones; equal times by manager; the operation first', () => {
  const out = encodeManagedFields(
    tableOf(own('b', { time: at(5) }), own('a', { time: at(5) }), own('timeless'), own('early', { time: at(1) }), own('applier', { operation: 'Apply', time: at(9) }), own('applier0', { operation: 'Apply' })),
  );
  assert.deepEqual(out.map((e) => e.manager), ['applier0', 'applier', 'timeless', 'early', 'a', 'b']);
  assert.deepEqual(
    encodeManagedFields(tableOf(own('z', { time: at(1) }), own('y', { time: at(2) }))).map((e) => e.manager),
    ['z', 'y'],
    'time before manager',
  );
  assert.deepEqual(
    encodeManagedFields(tableOf(own('m', { time: at(1), apiVersion: 'v2' }), own('m', { time: at(1), apiVersion: 'v1', subresource: 'status' }))).map((e) => [e.apiVersion, e.subresource]),
    [
      ['v1', 'status'],
      ['v2', undefined],
    ],
    'apiVersion before subresource',
  );
  assert.deepEqual(
    encodeManagedFields(tableOf(own('m', { time: at(1), subresource: 'status' }), own('m', { time: at(1), subresource: 'scale' }))).map((e) => e.subresource),
    ['scale', 'status'],
  );
});

test('past ten updaters, one bucket per apiVersion, each seeded by its oldest; appliers are never folded', () => {
  const t = tableOf(...Array.from({ length: 12 }, (_, i) => own(`m${String(i).padStart(2, '0')}`, { time: at(i), apiVersion: i % 2 ? 'v2' : 'v1' })), own('applier', { operation: 'Apply', time: at(0) }));
  capUpdateManagers(t);
  assert.deepEqual(summary(t), [
    `ancient-changes/v1@${at(2)}:m00,m02`,
    `ancient-changes/v2@${at(3)}:m01,m03`,
    `applier/v1@${at(0)}:applier`,
    ...Array.from({ length: 8 }, (_, i) => `m${String(i + 4).padStart(2, '0')}/${i % 2 ? 'v2' : 'v1'}@${at(i + 4)}:m${String(i + 4).padStart(2, '0')}`),
  ]);
});

test('eleven updaters: the two oldest become the bucket; it takes the subresource-less identity and the newer time', () => {
  const t = tableOf(own('older', { time: at(1) }), own('old', { time: at(0), subresource: 'status' }), ...Array.from({ length: 9 }, (_, i) => own(`n${i}`, { time: at(10 + i) })));
  capUpdateManagers(t);
  assert.equal(t.size, 10);
  const bucket = t.get(managerIdentifier({ manager: 'ancient-changes', operation: 'Update', apiVersion: 'v1', subresource: '' }))!;
  assert.deepEqual([bucket.manager, bucket.subresource, bucket.time, bucket.set.paths().map((p) => p[2])], ['ancient-changes', '', at(1), ['f:old', 'f:older']]);
  assert.equal(t.has(managerIdentifier(own('older'))), false);
  assert.equal(t.has(managerIdentifier(own('old', { subresource: 'status' }))), false);
});

test('a folded updater without a time leaves the bucket the time it had; equal times fold in identity order', () => {
  const t = tableOf(own('a', { time: at(0) }), own('b'), own('c'), ...Array.from({ length: 9 }, (_, i) => own(`n${i}`, { time: at(10 + i) })));
  capUpdateManagers(t);
  // Untimed entries count as the oldest: b (seed) then c, then a.
  assert.deepEqual(summary(t).filter((s) => s.startsWith('ancient')), [`ancient-changes/v1@${at(0)}:a,b,c`]);
  const same = tableOf(...['k', 'e', 'x', 'a', 'q', 'b', 'z', 'c', 'y', 'd', 'w'].map((m) => own(m, { time: at(3) })));
  capUpdateManagers(same);
  assert.deepEqual(summary(same).filter((s) => s.startsWith('ancient')), [`ancient-changes/v1@${at(3)}:a,b`]);
  assert.deepEqual(summary(same).length, 10);
});

test('a bucket that already exists absorbs the next oldest of its apiVersion, and keeps its own fields', () => {
  const existing = own('ancient-changes', { time: at(0), set: labels('kept') });
  const t = tableOf(existing, ...Array.from({ length: 10 }, (_, i) => own(`m${i}`, { time: at(1 + i) })));
  capUpdateManagers(t);
  assert.equal(t.size, 10);
  assert.deepEqual(summary(t)[0], `ancient-changes/v1@${at(1)}:kept,m0`);
  assert.deepEqual(existing.set.paths().map((p) => p[2]), ['f:kept', 'f:m0']);
  // The oldest is untimed, so it seeds; the next (untimed too) goes into the existing bucket,
  // which then has no time, as kube leaves it (the time of the update folded in last).
  const timed = own('ancient-changes', { time: at(5), set: labels('kept') });
  const u = tableOf(timed, own('x'), own('y'), ...Array.from({ length: 8 }, (_, i) => own(`n${i}`, { time: at(10 + i) })));
  capUpdateManagers(u);
  assert.deepEqual(summary(u).slice(0, 2), ['ancient-changes/v1@-:kept,y', 'n0/v1@2026-01-01T00:00:10Z:n0']);
  assert.equal(u.has(managerIdentifier(own('x'))), true, 'the seed stays when its bucket exists');
});

test('the first bucket is a copy: the oldest manager’s own set is not grown', () => {
  const oldest = own('oldest', { time: at(0) });
  const t = tableOf(oldest, ...Array.from({ length: 10 }, (_, i) => own(`m${i}`, { time: at(1 + i) })));
  capUpdateManagers(t);
  assert.deepEqual(oldest.set.paths().map((p) => p[2]), ['f:oldest']);
});

test('decoding keeps manager, operation, apiVersion and subresource; a later entry of the same identity replaces an earlier', () => {
  const e = (over: Partial<ManagedFieldsEntry>): ManagedFieldsEntry => ({ manager: 'm', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': {} }, ...over });
  const t = decodeManagedFields([e({ fieldsV1: { 'f:a': {} } }), e({ fieldsV1: { 'f:b': {} } }), e({ apiVersion: 'v2' }), e({ operation: 'Apply', apiVersion: 'v3' })]);
  assert.deepEqual(
    [...t.values()].map((o) => [o.manager, o.operation, o.apiVersion, o.subresource, o.set.paths().map((p) => p.join('.')).join()]),
    [
      ['m', 'Update', 'v1', '', 'f:b'],
      ['m', 'Update', 'v2', '', 'f:metadata'],
      ['m', 'Apply', 'v3', '', 'f:metadata'],
    ],
  );
  assert.throws(() => decodeManagedFields(null as never), ManagedFieldsDecodeError);
  assert.throws(() => decodeManagedFields([e({ operation: undefined })]), /operation must be `Apply` or `Update`/);
  assert.throws(() => decodeManagedFields([e({}), e({ apiVersion: undefined })]), /apiVersion must not be empty/);
  assert.throws(() => decodeManagedFields([e({}), e({ fieldsType: '' as never })]), /^ManagedFieldsDecodeError: missing fieldsType in managed fields entry 1$/);
  assert.throws(() => decodeManagedFields([e({ fieldsV1: [] as never })]), /error decoding versioned set from .*FieldsV1 must be a JSON object/);
});

test('times are kept to the second however they come, the same text read alike each time', () => {
  const e = (time: string): ManagedFieldsEntry => ({ manager: 'm', operation: 'Update', apiVersion: 'v1', time, fieldsType: 'FieldsV1', fieldsV1: {} });
  for (let k = 0; k < 2; k++) {
    assert.equal([...decodeManagedFields([e('2026-03-04T05:06:07.999Z')]).values()][0]!.time, '2026-03-04T05:06:07Z');
    assert.equal([...decodeManagedFields([e('2026-03-04T07:06:07+02:00')]).values()][0]!.time, '2026-03-04T05:06:07Z');
    assert.equal([...decodeManagedFields([e('garbage')]).values()][0]!.time, undefined);
  }
  // Many distinct times (more than are remembered) are each read right.
  for (let i = 0; i < 1100; i++) {
    const t = new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString();
    assert.equal([...decodeManagedFields([e(t)]).values()][0]!.time, t.replace(/\.000Z$/, 'Z'));
  }
});
