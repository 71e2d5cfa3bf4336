// A critical module's fingerprint: a SHA-256 over everything its recorded score was measured from
// (scores.json): the contents of the sources Stryker mutates and of the test files that cover
// them, the module's entry in modules.ts, and the mutation setup (the Stryker options that decide
// which mutants exist and how each is judged, the versions of Stryker, its plugins and TypeScript,
// and tsconfig.json). When it matches the record, the recorded score still holds for this code;
// when it differs, the score must be measured again. What the tests import (helpers, the code
// around the module) is not in it: docs/testing.md says what that leaves to full runs.

import { createHash } from 'node:crypto';
import { matchesList } from './globs.js';
import type { CriticalModule } from './modules.js';

export interface ModuleFiles {
  sources: string[];
  tests: string[];
}

/** The files a module mutates and the test files it runs, among `files` (repository paths). */
export function moduleFiles(m: CriticalModule, files: readonly string[]): ModuleFiles {
  return {
    sources: files.filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && matchesList(f, m.mutate)),
    tests: files.filter((f) => f.endsWith('.test.ts') && matchesList(f, m.tests)),
  };
}

/** JSON with object keys sorted, so that equal values hash alike whatever their key order. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

/** The packages whose versions change what a run measures. */
export const TOOL_PACKAGES = ['@stryker-mutator/core', '@stryker-mutator/tap-runner', '@stryker-mutator/typescript-checker', 'typescript'] as const;

/** Their versions as package-lock.json pins them (what `npm ci` installs). */
export function toolVersions(lock: { packages?: Record<string, { version?: string }> }): Record<string, string> {
  return Object.fromEntries(TOOL_PACKAGES.map((p) => [p, lock.packages?.[`node_modules/${p}`]?.version ?? 'missing']));
}

export interface Setup {
  /** The Stryker options that decide which mutants exist and how each is judged. */
  options: unknown;
  versions: Record<string, string>;
  tsconfig: string;
}

export const setupFingerprint = (setup: Setup): string => sha256(stableJson(setup));

export function moduleFingerprint(m: CriticalModule, files: ModuleFiles, read: (file: string) => string | Buffer, setup: string): string {
  const h = createHash('sha256');
  h.update(`setup ${setup}\n`);
  h.update(`module ${stableJson({ name: m.name, mutate: m.mutate, tests: m.tests })}\n`);
  for (const f of [...new Set([...files.sources, ...files.tests])].sort()) h.update(`file ${f} ${sha256(read(f))}\n`);
  return h.digest('hex');
}
