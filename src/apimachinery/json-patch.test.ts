// RFC 6902 JSON patch on its own: every operation, pointer escapes, array indexes, and each
// failure with the Go json-patch library's message (what kube-apiserver answers 422 with).

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { applyJsonPatch, JsonPatchCopyLimitError, JsonPatchError } from './json-patch.js';

const patch = (doc: unknown, ops: unknown[], maxCopyBytes = 1 << 20) => applyJsonPatch(doc, ops, { maxCopyBytes });
const fails = (doc: unknown, ops: unknown[], message: string) =>
  assert.throws(() => patch(doc, ops), (e: unknown) => e instanceof JsonPatchError && e.message === message);

describe('JSON patch operations', () => {
  test('add: a member, an array index, the end of an array, the whole document', () => {
    assert.deepEqual(patch({ a: 1 }, [{ op: 'add', path: '/b', value: { c: [1] } }]), { a: 1, b: { c: [1] } });
    assert.deepEqual(patch({ a: 1 }, [{ op: 'add', path: '/a', value: 2 }]), { a: 2 });
    assert.deepEqual(patch({ l: [1, 3] }, [{ op: 'add', path: '/l/1', value: 2 }]), { l: [1, 2, 3] });
    assert.deepEqual(patch({ l: [1] }, [{ op: 'add', path: '/l/1', value: 2 }]), { l: [1, 2] });
    assert.deepEqual(patch({ l: [1] }, [{ op: 'add', path: '/l/-', value: 2 }]), { l: [1, 2] });
    assert.deepEqual(patch({ l: [1] }, [{ op: 'add', path: '/l/0', value: 0 }]), { l: [0, 1] });
    assert.deepEqual(patch({ a: 1 }, [{ op: 'add', path: '', value: [7] }]), [7]);
  });

  test('remove: a member, an array item', () => {
    assert.deepEqual(patch({ a: 1, b: 2 }, [{ op: 'remove', path: '/a' }]), { b: 2 });
    assert.deepEqual(patch({ l: [1, 2, 3] }, [{ op: 'remove', path: '/l/1' }]), { l: [1, 3] });
    assert.deepEqual(patch({ l: [1, 2, 3] }, [{ op: 'remove', path: '/l/0' }]), { l: [2, 3] });
  });

  test('replace: a member, an array item, the whole document', () => {
    assert.deepEqual(patch({ a: 1, b: 2 }, [{ op: 'replace', path: '/a', value: 9 }]), { a: 9, b: 2 });
    assert.deepEqual(patch({ l: [1, 2, 3] }, [{ op: 'replace', path: '/l/1', value: 9 }]), { l: [1, 9, 3] });
    assert.deepEqual(patch({ a: 1 }, [{ op: 'replace', path: '', value: { z: 1 } }]), { z: 1 });
  });

  test('move: between members and within an array', () => {
    assert.deepEqual(patch({ a: 1, b: { c: 2 } }, [{ op: 'move', from: '/a', path: '/b/d' }]), { b: { c: 2, d: 1 } });
    assert.deepEqual(patch({ l: [1, 2, 3] }, [{ op: 'move', from: '/l/0', path: '/l/2' }]), { l: [2, 3, 1] });
    // A path that only shares a prefix with from is not its child.
    assert.deepEqual(patch({ a: 1, ab: 2 }, [{ op: 'move', from: '/a', path: '/ab' }]), { ab: 1 });
    // Onto itself: not into its own child, and changes nothing.
    assert.deepEqual(patch({ a: { b: 1 } }, [{ op: 'move', from: '/a', path: '/a' }]), { a: { b: 1 } });
  });

  test('copy: a deep copy, not a shared value', () => {
    const out = patch({ a: { x: [1] } }, [
      { op: 'copy', from: '/a', path: '/b' },
      { op: 'add', path: '/b/x/-', value: 2 },
    ]);
    assert.deepEqual(out, { a: { x: [1] }, b: { x: [1, 2] } });
  });

  test('test: equal values pass; a missing path is null', () => {
    assert.deepEqual(patch({ a: { b: [1] } }, [{ op: 'test', path: '/a', value: { b: [1] } }]), { a: { b: [1] } });
    assert.deepEqual(patch({ a: 1 }, [{ op: 'test', path: '/missing', value: null }]), { a: 1 });
    fails({ a: 1 }, [{ op: 'test', path: '/a', value: 2 }], 'testing value /a failed: test failed');
    fails({ a: 1 }, [{ op: 'test', path: '/missing', value: 0 }], 'testing value /missing failed: test failed');
    fails({ a: 1 }, [{ op: 'test', path: '/a' }], 'test operation does not apply: missing value');
  });

  test('pointers: ~1 is a slash and ~0 a tilde, in that order', () => {
    assert.deepEqual(patch({ 'a/b': 1, 'c~d': 2, '~1': 3 }, [{ op: 'remove', path: '/a~1b' }, { op: 'remove', path: '/c~0d' }, { op: 'remove', path: '/~01' }]), {});
    fails({}, [{ op: 'remove', path: '/a~1b' }], 'Unable to remove nonexistent key: a/b: missing value');
    fails({ a: 1 }, [{ op: 'test', path: '/x~1y~0', value: 1 }], 'testing value /x~1y~0 failed: test failed');
  });

  test('the document and the values in the operations are left as they were', () => {
    const doc = { a: { b: 1 } };
    const value = { c: [1] };
    const out = patch(doc, [{ op: 'add', path: '/a/v', value }, { op: 'add', path: '/a/v/c/-', value: 2 }]);
    assert.deepEqual(doc, { a: { b: 1 } });
    assert.deepEqual(value, { c: [1] });
    assert.deepEqual(out, { a: { b: 1, v: { c: [1, 2] } } });
  });

  test('inherited names are not members: constructor and __proto__ name nothing', () => {
    fails({ a: {} }, [{ op: 'remove', path: '/a/constructor' }], 'Unable to remove nonexistent key: constructor: missing value');
    fails({ a: {} }, [{ op: 'add', path: '/a/constructor/assign', value: 1 }], 'add operation does not apply: doc is missing path: "/a/constructor/assign": missing value');
    assert.deepEqual(patch({ a: 1 }, [{ op: 'test', path: '/toString', value: null }]), { a: 1 });
  });
});

describe('JSON patch failures', () => {
  test('malformed operations', () => {
    fails({}, ['add'], 'Unexpected kind: a patch operation must be an object');
    fails({}, [{ op: 'frobnicate', path: '/a' }], 'Unexpected kind: frobnicate');
    fails({}, [{ op: 7, path: '/a' }], 'Unexpected kind: 7');
    fails({}, [{ path: '/a' }], 'Unexpected kind: undefined');
    fails({}, [{ op: 'add', value: 1 }], 'add operation failed to decode path: missing value');
    fails({}, [{ op: 'add', path: 'a', value: 1 }], 'add operation does not apply: invalid JSON pointer "a"');
    fails({}, [{ op: 'add', path: '/a' }], 'add operation does not apply: missing value');
    fails({}, [{ op: 'replace', path: '/a' }], 'replace operation does not apply: missing value');
    fails({ a: 1 }, [{ op: 'move', path: '/b' }], 'move operation failed to decode from: missing value');
    fails({ a: 1 }, [{ op: 'copy', path: '/b', from: 'a' }], 'copy operation does not apply: invalid JSON pointer "a"');
  });

  test('missing targets', () => {
    fails({}, [{ op: 'remove', path: '/a' }], 'Unable to remove nonexistent key: a: missing value');
    fails({}, [{ op: 'replace', path: '/a', value: 1 }], 'replace operation does not apply: doc is missing key: /a: missing value');
    fails({}, [{ op: 'add', path: '/a/b', value: 1 }], 'add operation does not apply: doc is missing path: "/a/b": missing value');
    fails({ a: 'text' }, [{ op: 'add', path: '/a/b', value: 1 }], 'add operation does not apply: doc is missing path: "/a/b": missing value');
    fails({}, [{ op: 'remove', path: '/a/b' }], 'remove operation does not apply: doc is missing path: "/a/b": missing value');
    fails({}, [{ op: 'move', from: '/a', path: '/b' }], 'move operation does not apply: doc is missing from path: /a: missing value');
    fails({}, [{ op: 'copy', from: '/a', path: '/b' }], 'copy operation does not apply: doc is missing from path: /a: missing value');
    fails({ a: { b: 1 } }, [{ op: 'move', from: '/a', path: '/a/b/c' }], 'move operation does not apply: cannot move /a into its own child /a/b/c');
  });

  test('array indexes: decimal, no leading zeros, within bounds', () => {
    fails({ l: [1] }, [{ op: 'add', path: '/l/2', value: 0 }], 'Unable to access invalid index: 2: invalid index referenced');
    fails({ l: [1] }, [{ op: 'add', path: '/l/01', value: 0 }], 'Unable to access invalid index: 01: invalid index referenced');
    fails({ l: [1] }, [{ op: 'add', path: '/l/x', value: 0 }], 'Unable to access invalid index: x: invalid index referenced');
    fails({ l: [1] }, [{ op: 'remove', path: '/l/1' }], 'Unable to access invalid index: 1: invalid index referenced');
    fails({ l: [1] }, [{ op: 'remove', path: '/l/-1' }], 'Unable to access invalid index: -1: invalid index referenced');
    fails({ l: [1] }, [{ op: 'replace', path: '/l/1', value: 0 }], 'replace operation does not apply: doc is missing key: /l/1: missing value');
    fails({ l: [[1]] }, [{ op: 'test', path: '/l/1/0', value: 0 }], 'testing value /l/1/0 failed: test failed');
    assert.deepEqual(patch({ l: [[1]] }, [{ op: 'test', path: '/l/0/0', value: 1 }]), { l: [[1]] });
    assert.deepEqual(patch({ l: [[1]] }, [{ op: 'test', path: '/l/0/x', value: null }]), { l: [[1]] });
  });

  test('copies are limited by their total size as JSON', () => {
    const doc = { a: 'x'.repeat(10) }; // "xxxxxxxxxx" is 12 bytes of JSON
    assert.deepEqual(patch(doc, [{ op: 'copy', from: '/a', path: '/b' }], 12), { a: doc.a, b: doc.a });
    assert.throws(
      () => patch(doc, [{ op: 'copy', from: '/a', path: '/b' }, { op: 'copy', from: '/a', path: '/c' }], 23),
      (e: unknown) => e instanceof JsonPatchCopyLimitError && e.message === 'Unable to complete the copy, the accumulated size increase of copy is 24, exceeding the limit 23',
    );
  });
});
