// Label selectors on their own: the grammar as apimachinery's lexer and parser read it, each
// parse error in its words, key and value validation, and matching for every operator.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLabelSelector } from './label-selector.js';
import { isStatusError } from './status-error.js';

const rejects = (input: string, message: string) =>
  assert.throws(() => parseLabelSelector(input), (e: unknown) => isStatusError(e) && e.code === 400 && e.reason === 'BadRequest' && e.message === `unable to parse requirement: ${message}`);
const parsed = (input: string) => parseLabelSelector(input).requirements;

describe('label selector grammar', () => {
  test('each operator, with whitespace anywhere between tokens', () => {
    assert.deepEqual(parsed(' a = b , c==d,e != f'), [
      { key: 'a', operator: '=', values: ['b'] },
      { key: 'c', operator: '==', values: ['d'] },
      { key: 'e', operator: '!=', values: ['f'] },
    ]);
    assert.deepEqual(parsed('a in (x, y),b notin (z)'), [
      { key: 'a', operator: 'in', values: ['x', 'y'] },
      { key: 'b', operator: 'notin', values: ['z'] },
    ]);
    assert.deepEqual(parsed('a,!b'), [
      { key: 'a', operator: 'exists', values: [] },
      { key: 'b', operator: '!', values: [] },
    ]);
    assert.deepEqual(parsed('n>1,m<2'), [
      { key: 'n', operator: 'gt', values: ['1'] },
      { key: 'm', operator: 'lt', values: ['2'] },
    ]);
    assert.deepEqual(parsed(''), []);
    assert.equal(parseLabelSelector('').empty, true);
    assert.equal(parseLabelSelector('a').empty, false);
    assert.equal(parseLabelSelector(undefined).empty, true);
  });

  test('empty values: a=, and empty members of a set', () => {
    assert.deepEqual(parsed('a='), [{ key: 'a', operator: '=', values: [''] }]);
    assert.deepEqual(parsed('a=,b'), [
      { key: 'a', operator: '=', values: [''] },
      { key: 'b', operator: 'exists', values: [] },
    ]);
    assert.deepEqual(parsed('a in (,x)'), [{ key: 'a', operator: 'in', values: ['', 'x'] }]);
    assert.deepEqual(parsed('a in (x,)'), [{ key: 'a', operator: 'in', values: ['x'] }]);
  });

  test('a qualified key with a prefix', () => {
    assert.deepEqual(parsed('example.com/app=web'), [{ key: 'example.com/app', operator: '=', values: ['web'] }]);
  });

  test('parse errors in apimachinery words', () => {
    rejects('a b', "found 'b', expected: '=', '!=', '==', 'in', notin'");
    rejects('a=b c', "found 'c', expected: ',' or 'end of string'");
    rejects('!a=b', "found '=', expected: ',' or 'end of string'");
    rejects('a in (x y)', "found 'y', expected: ',', ')'");
    rejects('a in (x', "found '', expected: ',', ')'");
    rejects('a in (=)', "found '=', expected: ',', ')' or identifier");
    rejects('a notin x', "found 'x', expected: '('");
    rejects('a foo b', "found 'foo', expected: '=', '!=', '==', 'in', notin'");
    rejects('a=(', "found '(', expected: identifier");
    rejects(',a', "found ',', expected: identifier");
    rejects('a,', "found '', expected: identifier after ','");
    rejects('a!b', "found '!', expected: '=', '!=', '==', 'in', notin'");
    rejects('n>x5', "values[0]: Invalid value: \"x5\": for 'Gt', 'Lt' operators, the value must be an integer");
    rejects('n>5x', "values[0]: Invalid value: \"5x\": for 'Gt', 'Lt' operators, the value must be an integer");
  });

  test('keys and values are validated as apimachinery validates them', () => {
    rejects('-a=b', 'key: Invalid value: "-a": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\', or \'my.name\', or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')');
    rejects('a in (b_)', 'values[0]: Invalid value: "b_": a valid label must be an empty string or consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyValue\', or \'my_value\', or \'12345\', regex used for validation is \'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?\')');
    rejects('n>x', "values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators, the value must be an integer");
    rejects('n<', "values[0]: Invalid value: \"\": for 'Gt', 'Lt' operators, the value must be an integer");
    rejects('a notin ()', "values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty");
  });
});

describe('label selector matching', () => {
  const labels = { env: 'prod', n: '10' };
  const matches = (s: string, l: Record<string, string> | undefined = labels) => parseLabelSelector(s).matches(l);

  test('equality and sets need the label; inequality and notin are met by its absence', () => {
    assert.equal(matches('env=prod'), true);
    assert.equal(matches('env==dev'), false);
    assert.equal(matches('missing=prod'), false);
    assert.equal(matches('missing='), false);
    assert.equal(matches('env!=dev'), true);
    assert.equal(matches('missing!=dev'), true);
    assert.equal(matches('env in (dev,prod)'), true);
    assert.equal(matches('missing in (dev)'), false);
    assert.equal(matches('env notin (dev)'), true);
    assert.equal(matches('env notin (prod)'), false);
    assert.equal(matches('missing notin (prod)'), true);
  });

  test('exists and !, on own keys only', () => {
    assert.equal(matches('env'), true);
    assert.equal(matches('!env'), false);
    assert.equal(matches('toString'), false);
    assert.equal(matches('!toString'), true);
    assert.equal(matches('constructor=x', {}), false);
  });

  test('every requirement must hold; no labels is an empty set', () => {
    assert.equal(matches('env=prod,n>5'), true);
    assert.equal(matches('env=prod,n>50'), false);
    assert.equal(parseLabelSelector('!env').matches(undefined), true);
    assert.equal(parseLabelSelector('env').matches(undefined), false);
    assert.equal(parseLabelSelector('').matches(undefined), true);
  });
});
