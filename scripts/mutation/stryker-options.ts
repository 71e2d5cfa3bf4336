// The options of one Stryker run over the selected critical modules (run.ts): what it mutates, the
// compiled test files it runs, the TypeScript checker's project, and the reports it writes.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { listFiles, matchesList } from './globs.js';
import { MUTATION_FLOOR, slowTests, type CriticalModule } from './modules.js';

const REPORT_DIR = 'reports/mutation';
export const JSON_REPORT = `${REPORT_DIR}/mutation.json`;
export const HTML_REPORT = `${REPORT_DIR}/mutation.html`;
const CHECKER_TSCONFIG = `${REPORT_DIR}/checker.tsconfig.json`;

export function strykerOptions(ROOT: string, modules: readonly CriticalModule[], concurrency: number): Record<string, unknown> {
  const sources = listFiles(ROOT, ['src', 'test']);
  const mutateFiles = sources.filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && modules.some((m) => matchesList(f, m.mutate)));
  // In the order each mutant will run them (Stryker keeps the order of the first run): the slow
  // files last.
  const slowness = (f: string): number => slowTests.indexOf(f);
  const testFiles = sources
    .filter((f) => f.endsWith('.test.ts') && modules.some((m) => matchesList(f, m.tests)))
    .sort((a, b) => slowness(a) - slowness(b));
  for (const m of modules) {
    if (!sources.some((f) => matchesList(f, m.mutate))) throw new Error(`module ${m.name}: no source file matches ${m.mutate.join(' ')}`);
  }
  // The type checker's project: the mutated files alone (their imports come along as dependencies).
  mkdirSync(join(ROOT, REPORT_DIR), { recursive: true });
  const checkerTsconfig = { extends: '../../tsconfig.json', include: [], files: mutateFiles.map((f) => `../../${f}`) };
  writeFileSync(join(ROOT, CHECKER_TSCONFIG), `${JSON.stringify(checkerTsconfig, null, 2)}\n`);
  return {
    mutate: mutateFiles,
    testRunner: 'tap',
    tap: {
      // The compiled test files; `-r hook` is Stryker's coverage and mutant switch.
      testFiles: testFiles.map((f) => `dist/${f.replace(/\.ts$/, '.js')}`),
      nodeArgs: ['-r', '{{hookFile}}', '--test-reporter=tap', '{{testFile}}'],
      // A failed assertion ends the file at once: the mutant is killed, the rest would be wasted.
      forceBail: true,
    },
    // Runs before Stryker links node_modules into the sandbox; the sandbox sits inside the
    // repository (.stryker-tmp/), so tsc and the build find the packages in the folder above.
    buildCommand: 'tsc -p tsconfig.json',
    checkers: ['typescript'],
    tsconfigFile: CHECKER_TSCONFIG,
    typescriptChecker: { prioritizePerformanceOverAccuracy: true },
    checkerNodeArgs: ['--require', join(ROOT, 'scripts/mutation/ts-watch-without-delay.cjs')],
    coverageAnalysis: 'perTest',
    concurrency,
    // Loaded machines stretch a test file's time; a mutant that loops still ends within this.
    timeoutMS: 5_000,
    timeoutFactor: 2,
    reporters: ['json', 'html', process.stdout.isTTY ? 'progress' : 'progress-append-only', 'clear-text'],
    clearTextReporter: { reportMutants: false, reportTests: false, allowColor: process.stdout.isTTY },
    jsonReporter: { fileName: JSON_REPORT },
    htmlReporter: { fileName: HTML_REPORT },
    thresholds: { high: 95, low: MUTATION_FLOOR, break: null },
    // The sandbox needs the sources, tests and configuration; not the build, benchmarks or data.
    ignorePatterns: ['/dist', '/bench', '/data', '/.kube-cache', '*.log'],
    tempDirName: '.stryker-tmp',
    cleanTempDir: true,
    logLevel: 'info',
    fileLogLevel: 'off',
  };
}
