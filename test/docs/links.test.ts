// The documentation points only at files a clone has: every relative link of the README and
// docs/ resolves, every `src/…`, `test/…`, `bench/…` or `scripts/…` path they name exists, and
// nothing in src/, docs/ or the README cites the shared planning documents the repository lacks.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

const markdownFiles = (): string[] => ['README.md', 'bench/README.md', ...readdirSync(join(repo, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

function sourceFiles(dir: string): string[] {
  return readdirSync(join(repo, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(`${dir}/${e.name}`) : e.name.endsWith('.ts') ? [`${dir}/${e.name}`] : []));
}

test('every relative link of the README and docs/ resolves', () => {
  const broken: string[] = [];
  for (const file of markdownFiles()) {
    const text = readFileSync(join(repo, file), 'utf8');
    for (const m of text.matchAll(/\]\(([^)#\s]+)(#[^)\s]*)?\)/g)) {
      const target = m[1]!;
      if (/^[a-z]+:/.test(target)) continue;
      const path = relative(repo, resolve(repo, dirname(file), target));
      if (!existsSync(join(repo, path))) broken.push(`${file}: ${target}`);
    }
  }
  assert.deepEqual(broken, []);
});

test('every repository path the README and docs/ name exists', () => {
  const missing: string[] = [];
  for (const file of markdownFiles()) {
    const text = readFileSync(join(repo, file), 'utf8');
    for (const m of text.matchAll(/`((?:src|test|bench|scripts)\/[\w./-]+\.(?:ts|md|cjs))`/g)) {
      if (!existsSync(join(repo, m[1]!))) missing.push(`${file}: ${m[1]}`);
    }
  }
  assert.deepEqual(missing, []);
});

test('nothing cites the planning documents a clone does not have', () => {
  const cited: string[] = [];
  for (const file of [...markdownFiles(), ...sourceFiles('src'), '.dependency-cruiser.cjs']) {
    const text = readFileSync(join(repo, file), 'utf8');
    for (const name of ['DESIGN.md', 'decisions.md', 'reference/resources.md', '../shared']) if (text.includes(name)) cited.push(`${file}: ${name}`);
  }
  assert.deepEqual(cited, []);
});
