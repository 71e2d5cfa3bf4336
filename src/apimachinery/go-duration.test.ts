import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseGoDuration } from './go-duration.js';

test('parses Go durations to milliseconds', () => {
  assert.equal(parseGoDuration('0'), 0);
  assert.equal(parseGoDuration('250ms'), 250);
  assert.equal(parseGoDuration('1m30s'), 90_000);
  assert.equal(parseGoDuration('1.5h'), 5_400_000);
  assert.equal(parseGoDuration('2000000ns'), 2);
  assert.equal(parseGoDuration('-5s'), -5000);
  assert.equal(parseGoDuration('.5s'), 500);
});

test('refuses what Go refuses, with its messages', () => {
  assert.throws(() => parseGoDuration('abc'), { message: 'time: invalid duration "abc"' });
  assert.throws(() => parseGoDuration('5'), { message: 'time: missing unit in duration "5"' });
  assert.throws(() => parseGoDuration('5x'), { message: 'time: unknown unit "x" in duration "5x"' });
  assert.throws(() => parseGoDuration(''), /invalid duration/);
  assert.throws(() => parseGoDuration('-'), /invalid duration/);
});
