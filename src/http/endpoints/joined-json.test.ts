import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { JoinedJson } from './joined-json.js';
import { bufferBody } from '../transport/paced-body.js';

const json = fc.jsonValue().map((v) => Buffer.from(`${JSON.stringify(v)}\n`));
const all = (it: Iterator<Buffer>): Buffer[] => {
  const out: Buffer[] = [];
  for (let r = it.next(); !r.done; r = it.next()) out.push(r.value);
  return out;
};

test('a joined list is JSON.stringify of the list, whole or in slices of any size', () => {
  fc.assert(
    fc.property(fc.array(fc.jsonValue(), { maxLength: 30 }), fc.integer({ min: 1, max: 200 }), (values, size) => {
      const items = values.map((v) => Buffer.from(`${JSON.stringify(v)}\n`));
      const body = new JoinedJson(Buffer.from('{"kind":"L","items":['), items, Buffer.from(']}\n'));
      const expected = `${JSON.stringify({ kind: 'L', items: values })}\n`;
      assert.equal(body.length, Buffer.byteLength(expected));
      assert.equal(body.whole().toString(), expected);
      const slices = all(body.slices(size));
      assert.equal(Buffer.concat(slices).toString(), expected);
      // Every slice but the last is full; none is empty.
      slices.forEach((s, i) => assert.ok(i === slices.length - 1 ? s.length > 0 && s.length <= size : s.length === size, `slice ${i}: ${s.length}`));
    }),
    { seed: 7, numRuns: 300 },
  );
});

test('slices are new memory: a slice kept is not changed by the next', () => {
  const body = new JoinedJson(Buffer.from('['), [Buffer.from('"aaaa"\n'), Buffer.from('"bbbb"\n')], Buffer.from(']'));
  const it = body.slices(4);
  const first = it.next().value as Buffer;
  const copy = Buffer.from(first);
  all(it);
  assert.deepEqual(first, copy);
});

test('a Buffer body is sliced without copying', () => {
  fc.assert(
    fc.property(json, fc.integer({ min: 1, max: 64 }), (bytes, size) => {
      const body = bufferBody(bytes);
      const slices = all(body.slices(size));
      assert.deepEqual(Buffer.concat(slices), bytes);
      for (const s of slices) assert.equal(s.buffer, bytes.buffer, 'a view of the same memory');
      assert.equal(body.whole(), bytes);
    }),
    { seed: 7, numRuns: 200 },
  );
});
