import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError } from '../../apimachinery/status-error.js';
import { serviceCIDRs } from '../../resources/servicecidrs/index.js';
import { applyPatch } from './patch-types.js';

const jsonPatch = (doc: Record<string, unknown>, ops: unknown) => applyPatch('application/json-patch+json', doc, ops, serviceCIDRs as never);
const failure = (fn: () => unknown): { code: number; message: string } => {
  try {
    fn();
  } catch (err) {
    if (isStatusError(err)) return { code: err.code, message: err.status.message ?? '' };
    throw err;
  }
  assert.fail('expected a StatusError');
};

// The examples of RFC 6902 appendix A, as our own table of input → expected output.
const rfc6902: { name: string; doc: Record<string, unknown>; ops: unknown[]; out?: Record<string, unknown> }[] = [
  { name: 'A.1 add an object member', doc: { foo: 'bar' }, ops: [{ op: 'add', path: '/baz', value: 'qux' }], out: { foo: 'bar', baz: 'qux' } },
  { name: 'A.2 add an array element', doc: { foo: ['bar', 'baz'] }, ops: [{ op: 'add', path: '/foo/1', value: 'qux' }], out: { foo: ['bar', 'qux', 'baz'] } },
  { name: 'A.3 remove an object member', doc: { baz: 'qux', foo: 'bar' }, ops: [{ op: 'remove', path: '/baz' }], out: { foo: 'bar' } },
  { name: 'A.4 remove an array element', doc: { foo: ['bar', 'qux', 'baz'] }, ops: [{ op: 'remove', path: '/foo/1' }], out: { foo: ['bar', 'baz'] } },
  { name: 'A.5 replace a value', doc: { baz: 'qux', foo: 'bar' }, ops: [{ op: 'replace', path: '/baz', value: 'boo' }], out: { baz: 'boo', foo: 'bar' } },
  {
    name: 'A.6 move a value',
    doc: { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } },
    ops: [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }],
    out: { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } },
  },
  { name: 'A.7 move an array element', doc: { foo: ['all', 'grass', 'cows', 'eat'] }, ops: [{ op: 'move', from: '/foo/1', path: '/foo/3' }], out: { foo: ['all', 'cows', 'eat', 'grass'] } },
  {
    name: 'A.8 test a value: success',
    doc: { baz: 'qux', foo: ['a', 2, 'c'] },
    ops: [{ op: 'test', path: '/baz', value: 'qux' }, { op: 'test', path: '/foo/1', value: 2 }],
    out: { baz: 'qux', foo: ['a', 2, 'c'] },
  },
  { name: 'A.9 test a value: error', doc: { baz: 'qux' }, ops: [{ op: 'test', path: '/baz', value: 'bar' }] },
  { name: 'A.10 add a nested member object', doc: { foo: 'bar' }, ops: [{ op: 'add', path: '/child', value: { grandchild: {} } }], out: { foo: 'bar', child: { grandchild: {} } } },
  { name: 'A.11 ignore unrecognized elements', doc: { foo: 'bar' }, ops: [{ op: 'add', path: '/baz', value: 'qux', xyz: 123 }], out: { foo: 'bar', baz: 'qux' } },
  { name: 'A.12 add to a nonexistent target', doc: { foo: 'bar' }, ops: [{ op: 'add', path: '/baz/bat', value: 'qux' }] },
  { name: 'A.14 ~ escape ordering', doc: { '/': 9, '~1': 10 }, ops: [{ op: 'test', path: '/~01', value: 10 }], out: { '/': 9, '~1': 10 } },
  { name: 'A.15 comparing strings and numbers', doc: { '/': 9, '~1': 10 }, ops: [{ op: 'test', path: '/~01', value: '10' }] },
  { name: 'A.16 add an array value', doc: { foo: ['bar'] }, ops: [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }], out: { foo: ['bar', ['abc', 'def']] } },
  { name: 'copy', doc: { a: { b: 1 } }, ops: [{ op: 'copy', from: '/a', path: '/c' }], out: { a: { b: 1 }, c: { b: 1 } } },
];

describe('JSON patch (RFC 6902)', () => {
  for (const c of rfc6902) {
    test(c.name, () => {
      const before = structuredClone(c.doc);
      if (c.out) assert.deepEqual(jsonPatch(c.doc, c.ops), c.out);
      else assert.equal(failure(() => jsonPatch(c.doc, c.ops)).code, 422);
      assert.deepEqual(c.doc, before, 'the current object is never modified');
    });
  }

  test('a failed test names the path', () => {
    assert.deepEqual(failure(() => jsonPatch({ a: 1 }, [{ op: 'test', path: '/a', value: 2 }])), { code: 422, message: 'testing value /a failed: test failed' });
  });

  test('copies adding up to more than 3 MiB are refused before they are made', () => {
    const doc = { metadata: { annotations: { big: 'x'.repeat(512 * 1024) } } };
    // Each copy doubles the object: 40 of them would need terabytes.
    const bomb = Array.from({ length: 40 }, (_, i) => ({ op: 'copy', from: '/metadata', path: `/m${i}` }));
    const f = failure(() => jsonPatch(doc, bomb));
    assert.equal(f.code, 422);
    assert.match(f.message, /^Unable to complete the copy, the accumulated size increase of copy is \d+, exceeding the limit 3145728$/);
  });

  test('more than 10,000 operations are a 413', () => {
    const ops = Array.from({ length: 10_001 }, () => ({ op: 'test', path: '/a', value: 1 }));
    assert.deepEqual(failure(() => jsonPatch({ a: 1 }, ops)), { code: 413, message: 'The allowed maximum operations in a JSON patch is 10000, got 10001' });
  });
});
