import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLabelSelector } from './label-selector.js';
import { parseFieldSelector } from './field-selector.js';
import { isStatusError } from './status-error.js';

const badRequest = (fn: () => unknown, message: RegExp) =>
  assert.throws(fn, (e: unknown) => isStatusError(e) && e.code === 400 && e.reason === 'BadRequest' && message.test(e.message));

describe('label selectors', () => {
  const labels = { env: 'prod', tier: 'web', n: '5' };
  const matches = (s: string) => parseLabelSelector(s).matches(labels);

  test('the whole grammar', () => {
    assert.equal(matches(''), true);
    assert.equal(matches('env=prod'), true);
    assert.equal(matches('env==prod,tier=web'), true);
    assert.equal(matches('env!=prod'), false);
    assert.equal(matches('missing!=x'), true);
    assert.equal(matches('env in (dev, prod)'), true);
    assert.equal(matches('env notin (prod)'), false);
    assert.equal(matches('tier'), true);
    assert.equal(matches('!tier'), false);
    assert.equal(matches('!missing'), true);
    assert.equal(matches('n>4,n<6'), true);
    assert.equal(matches('env='), false);
  });

  test('errors are 400 with upstream wording', () => {
    badRequest(() => parseLabelSelector('env in prod'), /^unable to parse requirement: found 'prod', expected: '\('$/);
    badRequest(() => parseLabelSelector('=x'), /^unable to parse requirement: found '=', expected: identifier$/);
    badRequest(() => parseLabelSelector('env=bad value'), /found 'value', expected: ',' or 'end of string'/);
    badRequest(() => parseLabelSelector('env=a_-'), /values\[0\]: Invalid value: "a_-": a valid label must be an empty string/);
    badRequest(() => parseLabelSelector('env in ()'), /values: Invalid value: \[\]: for 'in', 'notin' operators, values set can't be empty/);
  });
});

describe('field selectors', () => {
  test('terms, operators and escapes', () => {
    const s = parseFieldSelector('metadata.name=a\\,b,spec.signerName!=x');
    assert.deepEqual(s.requirements, [
      { field: 'metadata.name', operator: '=', value: 'a,b' },
      { field: 'spec.signerName', operator: '!=', value: 'x' },
    ]);
    assert.equal(s.matches({ 'metadata.name': 'a,b', 'spec.signerName': '' }), true);
    assert.equal(s.exactValue('metadata.name'), 'a,b');
    assert.equal(parseFieldSelector('spec.signerName=').matches({ 'spec.signerName': '' }), true);
    assert.equal(parseFieldSelector('').empty, true);
  });

  test('a term without an operator is a 400', () => {
    badRequest(() => parseFieldSelector('metadata.name'), /^invalid field selector: invalid selector: 'metadata.name'; can't understand 'metadata.name'$/);
  });
});
