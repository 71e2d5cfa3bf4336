import { test } from 'node:test';
import assert from 'node:assert/strict';
import { humanDuration, translateTimestampSince } from './duration.js';

test('human durations as kubectl shows them', () => {
  const s = 1000;
  const m = 60 * s;
  const h = 60 * m;
  const d = 24 * h;
  const cases: [number, string][] = [
    [0, '0s'], [-500, '0s'], [-5 * s, '<invalid>'], [119 * s, '119s'], [2 * m, '2m'], [2 * m + 5 * s, '2m5s'], [10 * m, '10m'],
    [179 * m, '179m'], [3 * h + 4 * m, '3h4m'], [7 * h, '7h'], [20 * h, '20h'], [47 * h, '47h'], [2 * d + 3 * h, '2d3h'],
    [45 * d, '45d'], [2 * 365 * d + 30 * d, '2y30d'], [9 * 365 * d, '9y'],
  ];
  for (const [ms, want] of cases) assert.equal(humanDuration(ms), want, `${ms} ms`);
  assert.equal(translateTimestampSince(undefined, new Date()), '<unknown>');
  assert.equal(translateTimestampSince('2026-11-22T10:00:00Z', new Date('2026-11-22T10:00:57Z')), '57s');
});
