// The small memos on the write path answer exactly what the computation they skip answers:
// times formatted once a second (in any order of clocks), qualified names remembered only when
// valid, managedFields times normalized through a memo.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { rfc3339Now } from './object-meta.js';
import { isQualifiedName } from './validation/names.js';
import { decodeManagedFields } from './managed-fields/managed-fields-codec.js';

const direct = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

test('rfc3339Now gives the formatted second for any sequence of times', () => {
  // Near one another (same second, next second, backwards) and far apart (five-digit years).
  const time = fc.oneof(fc.integer({ min: 1_700_000_000_000, max: 1_700_000_003_000 }), fc.integer({ min: -8.64e15, max: 8.64e15 }));
  fc.assert(
    fc.property(fc.array(time, { minLength: 1, maxLength: 20 }), (ms) => {
      for (const t of ms) assert.equal(rfc3339Now(new Date(t)), direct(new Date(t)));
    }),
  );
  assert.throws(() => rfc3339Now(new Date(Number.NaN)), RangeError);
});

test('isQualifiedName answers the same the first time and every time after', () => {
  const name = fc.oneof(
    fc.constantFrom('bench', 'example.com/x', 'networking.platform.io/service-cidr-finalizer', '-bad', 'a/b/c', '/x', 'x/', 'a'.repeat(64), 'Ok.Name_1'),
    fc.string({ maxLength: 12 }),
  );
  fc.assert(
    fc.property(fc.array(name, { maxLength: 10 }), (names) => {
      const first = names.map((n) => isQualifiedName(n));
      const again = names.map((n) => isQualifiedName(n));
      assert.deepEqual(again, first);
      for (const errs of again) errs.push('callers may extend the list'); // never a shared array
      assert.deepEqual(names.map((n) => isQualifiedName(n)), first);
    }),
  );
});

test('managedFields times are normalized to seconds, also when seen before; bad ones are dropped', () => {
  const entry = (time: string) => [{ manager: 'm', operation: 'Update' as const, apiVersion: 'v1', time, fieldsType: 'FieldsV1' as const, fieldsV1: { 'f:spec': {} } }];
  for (let round = 0; round < 2; round++) {
    assert.equal([...decodeManagedFields(entry('2026-01-01T00:00:00.789Z')).values()][0]!.time, '2026-01-01T00:00:00Z');
    assert.equal([...decodeManagedFields(entry('2026-01-01T01:00:00+01:00')).values()][0]!.time, '2026-01-01T00:00:00Z');
    assert.equal([...decodeManagedFields(entry('not a time')).values()][0]!.time, undefined);
  }
});
