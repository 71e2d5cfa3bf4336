import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkJsonShape, getOwn, setOwn, sortKeysDeep, textOf } from './json-value.js';

const nested = (levels: number): unknown => JSON.parse(`${'{"x":'.repeat(levels - 1)}{"x":1}${'}'.repeat(levels - 1)}`);

describe('JSON values', () => {
  test('own keys only: inherited members are absent, __proto__ is stored as data', () => {
    const m: Record<string, unknown> = {};
    assert.equal(getOwn(m, 'constructor'), undefined);
    assert.equal(getOwn(m, '__proto__'), undefined);
    setOwn(m, '__proto__', { polluted: true });
    assert.equal(Object.getPrototypeOf(m), Object.prototype);
    assert.deepEqual(getOwn(m, '__proto__'), { polluted: true });
    assert.equal(JSON.stringify(m), '{"__proto__":{"polluted":true}}');
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(JSON.stringify(sortKeysDeep(JSON.parse('{"b":1,"__proto__":{"x":1}}'))), '{"__proto__":{"x":1},"b":1}');
  });

  test('depth: exactly the limit passes, one more names the bracket that opened it', () => {
    assert.equal(checkJsonShape(nested(10), 10), undefined);
    assert.deepEqual(checkJsonShape(nested(11), 10), { kind: 'depth', opener: '{' });
    assert.deepEqual(checkJsonShape(JSON.parse('[[[[]]]]'), 3), { kind: 'depth', opener: '[' });
    assert.equal(checkJsonShape('scalar', 0), undefined);
    // Far deeper than the stack could follow recursively.
    assert.deepEqual(checkJsonShape(nested(200_000)), { kind: 'depth', opener: '{' });
  });

  test('shared containers are measured once but by their deepest use; cycles are found', () => {
    const leaf = nested(6);
    const shared = { a: leaf, b: { c: leaf } };
    assert.equal(checkJsonShape(shared, 8), undefined);
    assert.deepEqual(checkJsonShape(shared, 7), { kind: 'depth', opener: '{' });
    // 2^40 paths through 40 levels of one shared pair: linear, not exponential.
    let dag: unknown = 1;
    for (let i = 0; i < 40; i++) dag = [dag, dag];
    assert.equal(checkJsonShape(dag, 100), undefined);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = [cyclic];
    assert.deepEqual(checkJsonShape(cyclic), { kind: 'cycle' });
  });

  test('textOf never calls a client-controlled toString', () => {
    const hostile = JSON.parse('{"toString":{"x":1},"valueOf":1}');
    assert.throws(() => String(hostile));
    assert.equal(textOf(hostile), '{"toString":{"x":1},"valueOf":1}');
    assert.equal(textOf('s'), 's');
    assert.equal(textOf(undefined), 'undefined');
    assert.equal(textOf(null), 'null');
  });
});
