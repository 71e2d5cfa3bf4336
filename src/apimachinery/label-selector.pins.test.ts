// Label selector cases that mutation testing found unpinned (issue #35): Gt and Lt are strict,
// and a trailing comma is refused with apimachinery's message.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLabelSelector } from './label-selector.js';
import { isStatusError } from './status-error.js';

const matches = (selector: string, labels: Record<string, string>) => parseLabelSelector(selector).matches(labels);

describe('label selector pins', () => {
  test('n>5 does not match 5, nor does n<5; each matches past the bound', () => {
    assert.equal(matches('n>5', { n: '5' }), false);
    assert.equal(matches('n>5', { n: '6' }), true);
    assert.equal(matches('n<5', { n: '5' }), false);
    assert.equal(matches('n<5', { n: '4' }), true);
    assert.equal(matches('n>5', { n: '10' }), true, 'compared as numbers, not as text');
  });

  test('Gt and Lt never match a missing or non-integer label', () => {
    assert.equal(matches('n>5', {}), false);
    assert.equal(matches('n<5', {}), false);
    assert.equal(matches('n<5', { n: 'four' }), false);
    assert.equal(matches('n>5', { n: '6.5' }), false);
  });

  test("a trailing comma is a 400: found '', expected: identifier after ','", () => {
    assert.throws(
      () => parseLabelSelector('env=prod,'),
      (e: unknown) => isStatusError(e) && e.code === 400 && e.reason === 'BadRequest' && e.message === "unable to parse requirement: found '', expected: identifier after ','",
    );
  });
});

describe('label selector Gt and Lt values', () => {
  test('a value that is neither an integer nor a label value gets both errors, as apimachinery reports them', () => {
    assert.throws(
      () => parseLabelSelector('n>a_'),
      (e: unknown) =>
        isStatusError(e) &&
        e.code === 400 &&
        e.message ===
          "unable to parse requirement: [values[0]: Invalid value: \"a_\": for 'Gt', 'Lt' operators, the value must be an integer, values[0]: Invalid value: \"a_\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue', or 'my_value', or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')]",
    );
  });
});
