import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeBody } from './decode.js';
import { decodeYamlText } from './yaml-text.js';
import { isStatusError } from './status-error.js';
import { yamlDepthExceeds } from './yaml-depth.js';

const blockMappings = (n: number): string => `${Array.from({ length: n }, (_, i) => `${' '.repeat(i)}a:`).join('\n')} 1\n`;
const compactSequences = (n: number): string => `${'- '.repeat(n)}1\n`;
/** `a:` / `- b:` alternating, the sequence at its key's column: two levels per two columns. */
const alternating = (pairs: number): string => Array.from({ length: pairs }, (_, i) => `${' '.repeat(2 * i)}a:\n${' '.repeat(2 * i)}- `).join('\n').replace(/- $/, '- 1') + '\n';

/** Runs `f` with `frames` more frames on the stack. */
const onDeepStack = <T>(frames: number, f: () => T): T => (frames === 0 ? f() : onDeepStack(frames - 1, f));

describe('yamlDepthExceeds', () => {
  test('block nesting past the limit: indented mappings, compact sequences (2,000 and 100,000), alternating', () => {
    assert.equal(yamlDepthExceeds(blockMappings(2000), 1000), true);
    assert.equal(yamlDepthExceeds(compactSequences(2000), 1000), true);
    assert.equal(yamlDepthExceeds(compactSequences(100_000), 1000), true);
    assert.equal(yamlDepthExceeds(alternating(600), 1000), true);
    assert.equal(yamlDepthExceeds(`- ${'[ '.repeat(600)}${' ]'.repeat(600)}\n${'- '.repeat(600)}1\n`, 1000), true, 'block and flow add up');
  });

  test('within the limit: the same shapes shallower, wide indentation, block scalars holding dashes', () => {
    assert.equal(yamlDepthExceeds(blockMappings(500), 1000), false);
    assert.equal(yamlDepthExceeds(compactSequences(900), 1000), false);
    assert.equal(yamlDepthExceeds(alternating(400), 1000), false);
    assert.equal(yamlDepthExceeds(`a:\n${' '.repeat(5000)}b: 1\n`, 1000), false, 'one level, however far indented');
    assert.equal(yamlDepthExceeds(`a: |\n  ${'- '.repeat(5000)}x\n  ${'['.repeat(10)}\nb: >-\n  ${'- '.repeat(5000)}\nc: 1\n`, 1000), false, 'text in block scalars');
    const manifest = 'apiVersion: networking.platform.io/v1\nkind: ServiceCIDR\nmetadata:\n  name: x\n  labels:\n    a: "b"\nspec:\n  cidrs:\n  - 10.0.0.0/24\n  - "fd00::/64"\n---\n- - a\n  - b\n';
    assert.equal(yamlDepthExceeds(manifest, 1000), false);
    assert.equal(yamlDepthExceeds(manifest, 3), true, 'the manifest is 4 levels deep (bounded from above)');
  });
});

describe('YAML bombs, whatever the stack', () => {
  // Once at a shallow stack first, as the server's first YAML body is: V8 compiles a regular
  // expression on its first use, and compiling one on a nearly exhausted stack aborts the process.
  decodeYamlText('a: [b, {c: "d"}]\nk: |\n  x\n');
  const tooDeep = (err: unknown) => isStatusError(err) && err.status.code === 400 && err.status.message === 'error converting YAML to JSON: yaml: exceeded max depth of 1000';

  test('2,000 and 100,000 levels are the same 400 at any stack depth, never a RangeError (decoded inline)', () => {
    for (const text of [blockMappings(2000), compactSequences(2000), compactSequences(100_000)]) {
      for (const frames of [0, 1000, 4000, 8000]) {
        assert.throws(() => onDeepStack(frames, () => decodeYamlText(text)), tooDeep, `${text.length} chars at ${frames} frames`);
      }
    }
  });

  test('within the limit on a deep stack: decoded or that 400, never a RangeError', () => {
    for (const frames of [0, 2000, 6000, 9000]) {
      try {
        onDeepStack(frames, () => decodeYamlText(compactSequences(950)));
      } catch (err) {
        assert.ok(isStatusError(err) && err.status.code === 400, `${frames} frames: ${String(err)}`);
      }
    }
  });

  test('the same 400 from a body large enough to be decoded on a decoding thread', async () => {
    for (const text of [blockMappings(2000), compactSequences(100_000)]) {
      await assert.rejects(decodeBody(Buffer.from(text), 'yaml'), tooDeep, `${text.length} chars`);
    }
    const ok = await decodeBody(Buffer.from(`a:\n${'  - b\n'.repeat(2000)}c: {d: 1, d: 2}\n`), 'yaml');
    assert.equal((ok.value as { a: string[] }).a.length, 2000);
    assert.deepEqual(ok.duplicateFields, ['c.d']);
  });
});
