// The options of one Stryker run over the selected critical modules (run.ts): what it mutates, the
// compiled test files it runs, the TypeScript checker's project, and the reports it writes. The
// options that decide which mutants exist and how each is judged are apart (SCORING_OPTIONS): they
// are part of every module's fingerprint (fingerprint.ts), so changing one re-measures everything.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { listFiles, matchesList } from './globs.js';
import { criticalModules, MUTATION_FLOOR, slowTests, type CriticalModule } from './modules.js';

const REPORT_DIR = 'reports/mutation';
export const JSON_REPORT = `${REPORT_DIR}/mutation.json`;
export const HTML_REPORT = `${REPORT_DIR}/mutation.html`;
/** Written by timing-reporter.mjs (its TIMING_FILE). */
export const TIMING_LOG = `${REPORT_DIR}/timing.json`;
const CHECKER_TSCONFIG = `${REPORT_DIR}/checker.tsconfig.json`;

/**
 * What decides the mutants and their verdicts; the rest of the options only say which files, how
 * many processes, and where the reports go.
 */
export const SCORING_OPTIONS = {
  testRunner: 'tap',
  tap: {
    // `-r hook` is Stryker's coverage and mutant switch.
    nodeArgs: ['-r', '{{hookFile}}', '--test-reporter=tap', '{{testFile}}'],
    // A failed assertion ends the file at once: the mutant is killed, the rest would be wasted.
    forceBail: true,
  },
  // Runs before Stryker links node_modules into the sandbox; the sandbox sits inside the
  // repository (.stryker-tmp/), so tsc and the build find the packages in the folder above.
  buildCommand: 'tsc -p tsconfig.json',
  checkers: ['typescript'],
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  coverageAnalysis: 'perTest',
  // Loaded machines stretch a test file's time; a mutant that loops still ends within this.
  timeoutMS: 5_000,
  timeoutFactor: 2,
  // The sandbox needs the sources, tests and configuration; not the build, benchmarks or data.
  ignorePatterns: ['/dist', '/bench', '/data', '/.kube-cache', '*.log'],
} as const;

export interface RunOptions {
  concurrency: number;
  /** Stryker's incremental mode: reuse the last run's verdicts for mutants and tests that did not change. */
  incremental: boolean;
}

export function strykerOptions(root: string, modules: readonly CriticalModule[], o: RunOptions): Record<string, unknown> {
  const sources = listFiles(root, ['src', 'test']);
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
  mkdirSync(join(root, REPORT_DIR), { recursive: true });
  const checkerTsconfig = { extends: '../../tsconfig.json', include: [], files: mutateFiles.map((f) => `../../${f}`) };
  writeFileSync(join(root, CHECKER_TSCONFIG), `${JSON.stringify(checkerTsconfig, null, 2)}\n`);
  // One incremental file per selection: a run of other modules would drop these modules' verdicts.
  const selection = modules.length === criticalModules.length ? 'all' : modules.map((m) => m.name).sort().join('+');
  return {
    ...SCORING_OPTIONS,
    mutate: mutateFiles,
    // The compiled test files.
    tap: { ...SCORING_OPTIONS.tap, testFiles: testFiles.map((f) => `dist/${f.replace(/\.ts$/, '.js')}`) },
    tsconfigFile: CHECKER_TSCONFIG,
    checkerNodeArgs: ['--require', join(root, 'scripts/mutation/ts-watch-without-delay.cjs')],
    concurrency: o.concurrency,
    incremental: o.incremental,
    incrementalFile: `${REPORT_DIR}/incremental/${selection}.json`,
    plugins: ['@stryker-mutator/*', join(root, 'scripts/mutation/timing-reporter.mjs')],
    reporters: ['json', 'html', process.stdout.isTTY ? 'progress' : 'progress-append-only', 'clear-text', 'module-timing'],
    clearTextReporter: { reportMutants: false, reportTests: false, allowColor: process.stdout.isTTY },
    jsonReporter: { fileName: JSON_REPORT },
    htmlReporter: { fileName: HTML_REPORT },
    thresholds: { high: 95, low: MUTATION_FLOOR, break: null },
    tempDirName: '.stryker-tmp',
    cleanTempDir: true,
    logLevel: 'info',
    fileLogLevel: 'off',
  };
}
