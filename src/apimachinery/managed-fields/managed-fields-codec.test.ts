// metadata.managedFields and the ownership table: kube's manager identities, decoding with its
// errors, times kept to the second, kube's entry order, the reset request, and the cap on Update
// managers.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ManagedFieldsEntry } from '../object-meta.js';
import { FieldSet } from './field-set.js';
import {
  capUpdateManagers,
  decodeManagedFields,
  encodeManagedFields,
  isResetRequest,
  managerIdentifier,
  ManagedFieldsDecodeError,
  MAX_UPDATE_MANAGERS,
  type Ownership,
  type OwnershipTable,
} from './managed-fields-codec.js';

const fields = { 'f:metadata': { 'f:labels': { 'f:a': {} } } };
const entry = (over: Partial<ManagedFieldsEntry> = {}): ManagedFieldsEntry => ({ manager: 'm', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: fields, ...over });
const decodeFails = (entries: unknown, message: string) =>
  assert.throws(() => decodeManagedFields(entries as ManagedFieldsEntry[]), (e: unknown) => e instanceof ManagedFieldsDecodeError && e.message === message);

describe('managerIdentifier', () => {
  test("kube's identity: appliers without apiVersion, empty parts left out, in a fixed order", () => {
    assert.equal(managerIdentifier({ manager: 'm', operation: 'Update', apiVersion: 'v1', subresource: 'status' }), '{"manager":"m","operation":"Update","apiVersion":"v1","subresource":"status"}');
    assert.equal(managerIdentifier({ manager: 'm', operation: 'Apply', apiVersion: 'v1', subresource: '' }), '{"manager":"m","operation":"Apply"}');
    assert.equal(managerIdentifier({ manager: '', operation: 'Update', apiVersion: '', subresource: '' }), '{"operation":"Update"}');
  });
});

describe('decodeManagedFields', () => {
  test('each entry becomes an ownership keyed by its identity, time kept to the second', () => {
    const table = decodeManagedFields([entry({ time: '2026-11-22T10:00:00.123Z', subresource: 'status' }), entry({ manager: undefined, operation: 'Apply', time: 'not a time' })]);
    assert.deepEqual([...table.keys()], ['{"manager":"m","operation":"Update","apiVersion":"v1","subresource":"status"}', '{"operation":"Apply"}']);
    const [first, second] = [...table.values()] as [Ownership, Ownership];
    assert.equal(first.time, '2026-11-22T10:00:00Z');
    assert.equal(first.subresource, 'status');
    assert.deepEqual(first.set.toFieldsV1(), fields);
    assert.equal(second.manager, '');
    assert.equal(second.subresource, '');
    assert.equal('time' in second, false);
    assert.equal(decodeManagedFields(undefined).size, 0);
    assert.equal(decodeManagedFields([entry({ fieldsV1: undefined })]).size, 1);
  });

  test('malformed entries are errors in kube words', () => {
    decodeFails({}, 'managedFields must be a list');
    decodeFails([null], 'managed fields entry 0 is not an object');
    decodeFails([entry(), 'x'], 'managed fields entry 1 is not an object');
    decodeFails([entry({ operation: 'Patch' as never })], 'operation must be `Apply` or `Update`');
    decodeFails([entry({ apiVersion: '' })], 'apiVersion must not be empty');
    decodeFails([entry({ fieldsType: undefined })], 'missing fieldsType in managed fields entry 0');
    decodeFails([entry({ fieldsType: 'FieldsV2' as never })], 'invalid fieldsType "FieldsV2" in managed fields entry 0');
    assert.throws(() => decodeManagedFields([entry({ fieldsV1: { 'x:bad': {} } as never })]), (e: unknown) => e instanceof ManagedFieldsDecodeError && e.message.startsWith('error decoding versioned set from {'));
  });
});

describe('encodeManagedFields', () => {
  const own = (o: Partial<Ownership>): Ownership => ({ manager: 'm', operation: 'Update', apiVersion: 'v1', subresource: '', set: FieldSet.fromFieldsV1(fields), ...o });
  const table = (...owners: Ownership[]): OwnershipTable => new Map(owners.map((o) => [managerIdentifier(o), o]));

  test('Apply before Update, then by time, manager, apiVersion, subresource; empty sets left out', () => {
    const out = encodeManagedFields(
      table(
        own({ manager: 'late', time: '2026-01-01T00:00:02Z' }),
        own({ manager: 'b', time: '2026-01-01T00:00:01Z' }),
        own({ manager: 'a', time: '2026-01-01T00:00:01Z', apiVersion: 'v2' }),
        own({ manager: 'a', time: '2026-01-01T00:00:01Z', apiVersion: 'v1', subresource: 'status' }),
        own({ manager: 'a', time: '2026-01-01T00:00:01Z', apiVersion: 'v1' }),
        own({ manager: 'applier', operation: 'Apply', time: '2026-01-01T00:00:09Z' }),
        own({ manager: 'empty', set: new FieldSet() }),
      ),
    );
    assert.deepEqual(out.map((e) => [e.manager, e.operation, e.apiVersion, e.subresource]), [
      ['applier', 'Apply', 'v1', undefined],
      ['a', 'Update', 'v1', undefined],
      ['a', 'Update', 'v1', 'status'],
      ['a', 'Update', 'v2', undefined],
      ['b', 'Update', 'v1', undefined],
      ['late', 'Update', 'v1', undefined],
    ]);
  });

  test('an entry as kube writes it: keys in order, no empty manager, time or subresource', () => {
    const [e] = encodeManagedFields(table(own({ manager: '' })));
    assert.equal(JSON.stringify(e), JSON.stringify({ operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: fields }));
    const [full] = encodeManagedFields(table(own({ time: '2026-01-01T00:00:00Z', subresource: 'status' })));
    assert.deepEqual(Object.keys(full!), ['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1', 'subresource']);
  });
});

describe('isResetRequest', () => {
  test('[] and [{}] reset; anything else does not', () => {
    assert.equal(isResetRequest([]), true);
    assert.equal(isResetRequest([{}]), true);
    assert.equal(isResetRequest(undefined), false);
    assert.equal(isResetRequest([{}, {}]), false);
    assert.equal(isResetRequest([{ manager: 'm' }]), false);
    assert.equal(isResetRequest([null as never]), false);
    assert.equal(isResetRequest({} as never), false);
  });
});

describe('capUpdateManagers', () => {
  const updater = (i: number, apiVersion = 'v1'): Ownership => ({
    manager: `m${String(i).padStart(2, '0')}`,
    operation: 'Update',
    apiVersion,
    subresource: '',
    time: `2026-01-01T00:00:${String(i).padStart(2, '0')}Z`,
    set: FieldSet.fromFieldsV1({ 'f:metadata': { 'f:labels': { [`f:l${i}`]: {} } } }),
  });

  test('up to ten Update managers are kept; appliers never count', () => {
    const t: OwnershipTable = new Map();
    for (let i = 0; i < MAX_UPDATE_MANAGERS; i++) t.set(`u${i}`, updater(i));
    t.set('apply', { ...updater(99), operation: 'Apply' });
    capUpdateManagers(t);
    assert.equal(t.size, MAX_UPDATE_MANAGERS + 1);
  });

  test('past ten, the oldest fold into ancient-changes with their fields and the newest of their times', () => {
    const t: OwnershipTable = new Map();
    for (let i = 0; i < 12; i++) {
      const o = updater(i);
      t.set(managerIdentifier(o), o);
    }
    capUpdateManagers(t);
    const managers = [...t.values()].map((o) => o.manager).sort();
    assert.equal(t.size, MAX_UPDATE_MANAGERS);
    assert.deepEqual(managers, ['ancient-changes', 'm03', 'm04', 'm05', 'm06', 'm07', 'm08', 'm09', 'm10', 'm11']);
    const ancient = [...t.values()].find((o) => o.manager === 'ancient-changes')!;
    assert.deepEqual(ancient.set.toFieldsV1(), { 'f:metadata': { 'f:labels': { 'f:l0': {}, 'f:l1': {}, 'f:l2': {} } } });
    assert.equal(ancient.time, '2026-01-01T00:00:02Z');
    assert.equal(ancient.subresource, '');
  });
});
