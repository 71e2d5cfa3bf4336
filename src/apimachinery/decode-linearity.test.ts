// Every body decoder is linear in the body: the work for an input four times larger is compared
// with the work for the input (growth in test/support/growth.ts: linear grows about 4×, the
// quadratic scans these tests were written against about 16×), and the large-body readers give
// the event loop turns while they work.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { growth } from '../../test/support/growth.js';
import { decodeBody, parseJson } from './decode.js';
import { parseJsonText } from './json-text.js';
import { MAX_JSON_DEPTH } from './json-value.js';
import { TurnSlices } from './turn-slices.js';
import { yamlDepthExceeds } from './yaml-depth.js';

/** Linear work measured on a shared machine: well under the 16× of quadratic work. */
const LINEAR = 8;
const check = (what: string, g: { n: number; small: number; large: number; ratio: number }) =>
  assert.ok(g.ratio < LINEAR, `${what}: ${g.small.toFixed(1)} ms at n=${g.n}, ${g.large.toFixed(1)} ms at 4n (×${g.ratio.toFixed(1)})`);

test('the YAML depth pre-scan: many short lines, comments, block scalars', async () => {
  check('a sequence of short lines', await growth((n) => `a:\n${'- x\n'.repeat(n)}`, (t) => yamlDepthExceeds(t, MAX_JSON_DEPTH), { start: 1000, maxN: 4_000_000 }));
  check('lines with comments', await growth((n) => `a:\n${'  b: 1 # c\n'.repeat(n)}`, (t) => yamlDepthExceeds(t, MAX_JSON_DEPTH), { start: 1000, maxN: 2_000_000 }));
  check('block scalars', await growth((n) => `a:\n${'- |\n  text\n'.repeat(n)}`, (t) => yamlDepthExceeds(t, MAX_JSON_DEPTH), { start: 1000, maxN: 2_000_000 }));
  check('nested 900 deep, then wide', await growth((n) => `${Array.from({ length: 900 }, (_, i) => `${' '.repeat(i)}a:`).join('\n')}\n${' '.repeat(900)}- x\n`.repeat(1) + `${' '.repeat(900)}- x\n`.repeat(n), (t) => yamlDepthExceeds(t, MAX_JSON_DEPTH), { start: 1000, maxN: 2_000_000 }));
});

test('JSON in slices: wide arrays, many keys, repeated keys deep down, long strings', async () => {
  const run = (t: string) => parseJsonText(t, MAX_JSON_DEPTH);
  check('an array of empty objects', await growth((n) => `[${'{},'.repeat(n)}{}]`, run, { start: 1000, maxN: 4_000_000 }));
  check('an object of many keys', await growth((n) => `{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}}`, run, { start: 1000, maxN: 1_000_000 }));
  const deep = (n: number) => `${'{"x":'.repeat(900)}{${'"d":1,'.repeat(n)}"d":1}${'}'.repeat(900)}`;
  check('repeated keys 900 levels down', await growth(deep, run, { start: 1000, maxN: 1_000_000 }));
  check('a string with escapes', await growth((n) => `"${'ab\\n'.repeat(n)}"`, run, { start: 1000, maxN: 256_000, measurableMs: 10 }));
});

test('decodeBody and patches: large JSON, and YAML through the decoding thread', async () => {
  check('JSON body', await growth((n) => Buffer.from(`{"a":[${'{"b":[1,"x"]},'.repeat(n)}{}]}`), (b) => decodeBody(b, 'json'), { start: 1000, maxN: 1_000_000 }));
  check('a JSON patch', await growth((n) => JSON.stringify(Array.from({ length: n }, (_, i) => ({ op: 'add', path: `/metadata/labels/l${i}`, value: 'v' }))), (t) => parseJson(t), { start: 1000, maxN: 500_000 }));
  const managedFields = (n: number) =>
    Buffer.from(
      `metadata:\n  managedFields:\n${Array.from({ length: n }, (_, i) => `  - manager: m${i}\n    operation: Update\n    fieldsV1:\n      f:metadata:\n        f:labels:\n          f:l${i}: {}\n`).join('')}`,
    );
  check('YAML managedFields', await growth(managedFields, (b) => decodeBody(b, 'yaml'), { start: 200, maxN: 100_000, measurableMs: 100, runs: 3 }));
});

test('a large JSON text is read in slices: the event loop gets turns, and the value is the same', async () => {
  let pauses = 0;
  class Counting extends TurnSlices {
    override due(): boolean {
      return true;
    }
    override async pause(): Promise<void> {
      pauses++;
      await super.pause();
    }
  }
  const text = `{"a":[${'{"b":"c"},'.repeat(200_000)}{}],"s":"${'x'.repeat(1_000_000)}"}`;
  const { value } = await parseJsonText(text, MAX_JSON_DEPTH, new Counting());
  assert.deepEqual(value, JSON.parse(text));
  assert.ok(pauses > 100, `${pauses} turns given`);
});
