// Field selectors on their own: apimachinery's operators, escapes, empty terms and errors, and
// what a parsed selector matches.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFieldSelector } from './field-selector.js';
import { isStatusError } from './status-error.js';

const rejects = (input: string, message: string) =>
  assert.throws(() => parseFieldSelector(input), (e: unknown) => isStatusError(e) && e.code === 400 && e.reason === 'BadRequest' && e.message === message);

describe('field selectors', () => {
  test('=, == and != with their fields trimmed; the first operator wins', () => {
    assert.deepEqual(parseFieldSelector(' metadata.name = a').requirements, [{ field: 'metadata.name', operator: '=', value: ' a' }]);
    assert.deepEqual(parseFieldSelector('a==b').requirements, [{ field: 'a', operator: '==', value: 'b' }]);
    assert.deepEqual(parseFieldSelector('a!=b').requirements, [{ field: 'a', operator: '!=', value: 'b' }]);
    // != is found first, so the = after it is part of the value, which may not hold one.
    rejects('a!==b', "invalid field selector: invalid selector: 'a!==b'; can't understand '=b'");
  });

  test('escapes: \\, \\= and \\\\ in values; an escaped character is never an operator or a separator', () => {
    assert.deepEqual(parseFieldSelector('a=x\\,y\\=z\\\\').requirements, [{ field: 'a', operator: '=', value: 'x,y=z\\' }]);
    assert.deepEqual(parseFieldSelector('a\\=b=c').requirements, [{ field: 'a\\=b', operator: '=', value: 'c' }]);
    assert.deepEqual(parseFieldSelector('a=b\\,c,d=e').requirements.map((r) => r.value), ['b,c', 'e']);
  });

  test('empty input and empty terms select everything', () => {
    for (const input of [undefined, '', '   ', ',', 'a=b,,']) {
      const s = parseFieldSelector(input);
      if (input === 'a=b,,') assert.equal(s.requirements.length, 1);
      else assert.equal(s.empty, true);
    }
    assert.equal(parseFieldSelector('a=b').empty, false);
  });

  test('errors in apimachinery words', () => {
    rejects('metadata.name', "invalid field selector: invalid selector: 'metadata.name'; can't understand 'metadata.name'");
    rejects('a=b,c', "invalid field selector: invalid selector: 'a=b,c'; can't understand 'c'");
    rejects('a=b=c', "invalid field selector: invalid selector: 'a=b=c'; can't understand 'b=c'");
    rejects('a=\\x', 'invalid field selector: invalid escape sequence: \\x');
    rejects('a=b\\', 'invalid field selector: invalid escape sequence: \\');
  });

  test('matching: every term; != matches an absent field; exactValue reads = and ==, never !=', () => {
    const s = parseFieldSelector('metadata.name=a,spec.signerName!=x');
    assert.equal(s.matches({ 'metadata.name': 'a', 'spec.signerName': 'y' }), true);
    assert.equal(s.matches({ 'metadata.name': 'a', 'spec.signerName': 'x' }), false);
    assert.equal(s.matches({ 'metadata.name': 'b', 'spec.signerName': 'y' }), false);
    assert.equal(s.matches({ 'metadata.name': 'a' }), true);
    assert.equal(s.exactValue('metadata.name'), 'a');
    assert.equal(s.exactValue('spec.signerName'), undefined);
    assert.equal(parseFieldSelector('metadata.name==b').exactValue('metadata.name'), 'b');
    assert.equal(parseFieldSelector('').matches({}), true);
  });
});
