// The documentation points only at files a clone has: every relative link of the README, docs/,
// bench/README.md and examples/README.md resolves; every file they name in backticks exists: a
// repository path (`src/…`, `test/…`, `bench/…`, `scripts/…`, `examples/…`, `docs/…`) at that
// path, a shorter one (`transport/exchange.ts`, `chain.ts`: a page names files beside the one it
// is about) as the end of some file's path; and nothing in src/, docs/ or the README cites the
// shared planning documents the repository lacks. A renamed file breaks this test.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

const markdownFiles = (): string[] =>
  ['README.md', 'bench/README.md', 'examples/README.md', ...readdirSync(join(repo, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)].filter((f) => existsSync(join(repo, f)));

function sourceFiles(dir: string): string[] {
  return readdirSync(join(repo, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(`${dir}/${e.name}`) : e.name.endsWith('.ts') ? [`${dir}/${e.name}`] : []));
}

/** GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fence = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(`{3,}|~{3,})/.test(line)) fence = !fence;
    const m = fence ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const slug = m[1]!.toLowerCase().replace(/[^\p{L}\p{N}_\- ]/gu, '').replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n ? `${slug}-${n}` : slug);
  }
  return out;
}

test('every relative link of the pages resolves, to a heading where it names one', () => {
  const broken: string[] = [];
  for (const file of markdownFiles()) {
    const text = readFileSync(join(repo, file), 'utf8');
    for (const m of text.matchAll(/\]\(([^)#\s]*)(?:#([^)\s]*))?\)/g)) {
      const target = m[1]!;
      if (/^[a-z]+:/.test(target)) continue;
      const path = target ? relative(repo, resolve(repo, dirname(file), target)) : file;
      if (!existsSync(join(repo, path))) broken.push(`${file}: ${target}`);
      else if (m[2] !== undefined && path.endsWith('.md') && !anchors(readFileSync(join(repo, path), 'utf8')).has(m[2])) broken.push(`${file}: ${target}#${m[2]}`);
    }
  }
  assert.deepEqual(broken, []);
});

/** Every file of the repository a page may name (sources, tests, docs, examples, the root's). */
const repositoryFiles = (): string[] => [
  ...readdirSync(repo, { withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name),
  ...['src', 'test', 'bench', 'scripts', 'examples', 'docs'].flatMap((dir) => allFiles(dir)),
];

function allFiles(dir: string): string[] {
  return readdirSync(join(repo, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? allFiles(`${dir}/${e.name}`) : [`${dir}/${e.name}`]));
}

const ROOTS = /^(?:src|test|bench|scripts|examples|docs)\//;

test('every file the pages name in backticks exists', () => {
  const files = repositoryFiles();
  const missing: string[] = [];
  for (const page of markdownFiles()) {
    const text = readFileSync(join(repo, page), 'utf8');
    for (const m of text.matchAll(/`([\w./@-]+\.(?:ts|mjs|cjs|js|md|yaml|yml|json|csv))`/g)) {
      const name = m[1]!;
      // Absolute paths are the reader's machine's; dist/ is what `npm run build` makes.
      if (name.startsWith('/') || name.startsWith('dist/')) continue;
      const found = ROOTS.test(name)
        ? existsSync(join(repo, name))
        : !/^\.\.?\//.test(name) && files.some((f) => f === name || f.endsWith(`/${name}`));
      if (!found) missing.push(`${page}: ${name}`);
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
