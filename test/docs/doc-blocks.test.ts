// The docs' blocks keep the convention of docs/docs-tests.md, so that nothing a reader may run
// escapes the tests: every fenced block names its language; a shell block is run unless marked
// not-run with a reason; an output block follows a block that runs; a block marked as an example
// file is exactly that file; and the package tarball the docs name is this version's.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { consoleCommands, readBlocks, SHELL_LANGS } from './doc-blocks.js';
import { coveredPages, repo } from './pages.js';

const blocks = coveredPages().flatMap((page) => readBlocks(repo, page));
const at = (b: { page: string; line: number }): string => `${b.page}:${b.line}`;

test('the pages have blocks to check', () => {
  assert.ok(blocks.length > 30, `${blocks.length} blocks`);
  assert.ok(blocks.filter((b) => SHELL_LANGS.has(b.lang) && b.marker?.kind !== 'not-run').length >= 10);
});

test('every fenced block names its language (sh and console blocks are run)', () => {
  assert.deepEqual(blocks.filter((b) => b.lang === '').map(at), []);
});

test('every marker is one of not-run: REASON, output, file: PATH', () => {
  assert.deepEqual(blocks.filter((b) => b.badMarker).map((b) => `${at(b)} ${b.badMarker}`), []);
});

test('not-run marks shell blocks only', () => {
  assert.deepEqual(blocks.filter((b) => b.marker?.kind === 'not-run' && !SHELL_LANGS.has(b.lang)).map(at), []);
});

test('an output block follows a block that runs, in the same page', () => {
  const wrong: string[] = [];
  for (const [i, b] of blocks.entries()) {
    if (b.marker?.kind !== 'output') continue;
    if (SHELL_LANGS.has(b.lang)) wrong.push(`${at(b)}: an output block is not itself a shell block`);
    const before = blocks.slice(0, i).reverse().find((p) => p.page === b.page && SHELL_LANGS.has(p.lang));
    if (!before || before.marker?.kind === 'not-run') wrong.push(`${at(b)}: no run block before it`);
  }
  assert.deepEqual(wrong, []);
});

test('console blocks start with a command', () => {
  const wrong: string[] = [];
  for (const b of blocks.filter((x) => x.lang === 'console')) {
    try {
      assert.ok(consoleCommands(b).length > 0, `${at(b)}: no "$ " command`);
    } catch (err) {
      wrong.push(err instanceof Error ? err.message : String(err));
    }
  }
  assert.deepEqual(wrong, []);
});

test('a block marked as an example file is exactly that file', () => {
  const wrong: string[] = [];
  for (const b of blocks) {
    if (b.marker?.kind !== 'file') continue;
    const path = b.marker.path;
    if (!path.startsWith('examples/') || !existsSync(join(repo, path))) wrong.push(`${at(b)}: ${path} is no file under examples/`);
    else if (readFileSync(join(repo, path), 'utf8') !== `${b.text}\n`) wrong.push(`${at(b)}: differs from ${path}`);
  }
  assert.deepEqual(wrong, []);
});

test('the tarball the docs name is this version’s', () => {
  const { version } = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { version: string };
  const wrong: string[] = [];
  for (const page of coveredPages()) {
    for (const m of readFileSync(join(repo, page), 'utf8').matchAll(/platform-apiserver-(\d+\.\d+\.\d+[\w.-]*?)\.tgz/g)) if (m[1] !== version) wrong.push(`${page}: ${m[0]}`);
  }
  assert.deepEqual(wrong, []);
});
