// findDuplicateKeys (small bodies) and parseJsonText (large ones, in slices) report exactly the
// keys repeated within one object, with their paths, in text order, and parseJsonText makes the
// value JSON.parse makes: checked over random JSON texts built with known repeats (escaped keys,
// keys that look like punctuation, random whitespace, nested arrays and objects).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { decodeBody, findDuplicateKeys } from './decode.js';
import { parseJsonText } from './json-text.js';
import { checkJsonShape, MAX_JSON_DEPTH } from './json-value.js';
import { isStatusError } from './status-error.js';

/** A JSON text's tree with members as written (repeats allowed). */
type Node = { kind: 'obj'; members: [string, Node][] } | { kind: 'arr'; items: Node[] } | { kind: 'leaf'; text: string };

const key = fc.constantFrom('a', 'b', 'é', 'x"y', 'back\\slash', '{', ':', ',', '[]', '__proto__', '');
const ws = fc.constantFrom('', ' ', '\n', '\t ', '\r\n');
const leaf = fc.constantFrom('1', 'true', 'null', 'false', '0', '-0', '1E+2', '0.5e-1', '123456789012345678901234', '"s"', '"a\\"b"', '"{[,:]}"', '"\\u00e9\\ud83d\\ude00\\/\\b\\f\\n\\r\\t"', '"\\ud800"', '-2.5e3').map((text): Node => ({ kind: 'leaf', text }));
const node = fc.letrec<{ n: Node }>((tie) => ({
  n: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(fc.tuple(key, tie('n')), { maxLength: 4 }).map((members): Node => ({ kind: 'obj', members })),
    fc.array(tie('n'), { maxLength: 3 }).map((items): Node => ({ kind: 'arr', items })),
  ),
})).n;

function write(n: Node, space: string): string {
  if (n.kind === 'leaf') return n.text;
  if (n.kind === 'arr') return `[${space}${n.items.map((i) => write(i, space)).join(`${space},${space}`)}${space}]`;
  return `{${space}${n.members.map(([k, v]) => `${JSON.stringify(k)}${space}:${space}${write(v, space)}`).join(`,${space}`)}${space}}`;
}

/** The repeats by construction, in text order. */
function expected(n: Node, path: string, out: string[] = []): string[] {
  if (n.kind === 'arr') n.items.forEach((item, i) => expected(item, `${path}[${i}]`, out));
  if (n.kind === 'obj') {
    const seen = new Set<string>();
    for (const [k, v] of n.members) {
      const p = path ? `${path}.${k}` : k;
      if (seen.has(k)) out.push(p);
      seen.add(k);
      expected(v, p, out);
    }
  }
  return out;
}

test('duplicate keys are found with their paths, in text order', () => {
  fc.assert(
    fc.property(node, ws, (n, space) => {
      const text = write(n, space);
      JSON.parse(text); // the texts are valid JSON, as findDuplicateKeys assumes
      assert.deepEqual(findDuplicateKeys(text), expected(n, ''));
    }),
    { numRuns: 3000 },
  );
});

test('parseJsonText: the value JSON.parse makes (own __proto__ keys included) and the same repeats', async () => {
  await fc.assert(
    fc.asyncProperty(node, ws, async (n, space) => {
      const text = `${space}${write(n, space)}${space}`;
      const parsed = await parseJsonText(text, MAX_JSON_DEPTH);
      assert.deepStrictEqual(parsed.value, JSON.parse(text));
      assert.deepEqual(parsed.duplicateFields, expected(n, ''));
    }),
    { numRuns: 3000 },
  );
});

test('a body with a repeated name and a repeated nested key', () => {
  assert.deepEqual(findDuplicateKeys('{"metadata":{"name":"a","name":"b"},"spec":{"cidrs":[{"x":1,"x":2}]}}'), ['metadata.name', 'spec.cidrs[0].x']);
});

test('nesting past the limit is refused naming the bracket that checkJsonShape names, small bodies and large', async () => {
  const nest = fc.array(fc.constantFrom('{"k":', '['), { minLength: MAX_JSON_DEPTH - 3, maxLength: MAX_JSON_DEPTH + 3 });
  await fc.assert(
    fc.asyncProperty(nest, fc.boolean(), async (openers, large) => {
      // Padding past the inline limit sends the text through the sliced reader.
      const text = openers.join('') + '1' + openers.map((o) => (o === '[' ? ']' : '}')).reverse().join('') + (large ? ' '.repeat(20_000) : '');
      const shape = checkJsonShape(JSON.parse(text));
      let refused: string | undefined;
      try {
        await decodeBody(Buffer.from(text), 'json');
      } catch (err) {
        refused = isStatusError(err) ? err.status.message : String(err);
      }
      if (shape?.kind === 'depth') assert.equal(refused, `couldn't get version/kind; json parse error: invalid character '${shape.opener}' exceeded max depth`);
      else assert.equal(refused, undefined);
    }),
    { numRuns: 200 },
  );
});
