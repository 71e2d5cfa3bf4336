// `npm run mutation`: Stryker over the critical modules (modules.ts), then each module's score
// against the floor. docs/testing.md explains how to run it and read the results.
//
//   npm run mutation                         every critical module
//   npm run mutation -- authorization ...    the named modules only
//   npm run mutation -- --changed [<ref>]    the modules whose sources or tests changed since the
//                                            merge base with <ref> (default: $MUTATION_BASE, else
//                                            HEAD^, the first parent; CI uses this)
//   npm run mutation -- --report             score the last report again, without running Stryker
//   --concurrency <n>                        Stryker's processes (default: cores + 2)
//
// One Stryker run covers the selected modules: one sandbox, one build, one type checker. Its tests
// run as compiled JavaScript (the sandbox builds with tsc after Stryker instruments the sources),
// several times faster per mutant than loading TypeScript through tsx. Per-test coverage makes
// each mutant run only the listed test files that executed its code. The type checker sees only
// the mutated files (and what they import), so mutants in unrelated files are checked together.
// Exit status: 0 when every selected module is at or above the floor, 1 below it, 2 on a usage or
// Stryker error.

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { matchesList } from './globs.js';
import { criticalModules, MUTATION_FLOOR, type CriticalModule } from './modules.js';
import { belowFloor, formatScoreTable, formatUndetected, held, scoreModules, type MutationReport } from './scores.js';
import { HTML_REPORT, JSON_REPORT, strykerOptions } from './stryker-options.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Undetected mutants listed per module below the floor (the HTML report has them all). */
const UNDETECTED_SHOWN = 40;

interface Args {
  names: string[];
  changed: string | true | undefined;
  reportOnly: boolean;
  concurrency: number;
}

function parseArgs(argv: string[]): Args {
  // Stryker gives half its processes to the type checker and half to test runners; a check is
  // much lighter than a test run, so two more than the cores keeps every core running tests.
  const args: Args = { names: [], changed: undefined, reportOnly: false, concurrency: availableParallelism() + 2 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--changed') {
      const next = argv[i + 1];
      args.changed = next !== undefined && !next.startsWith('-') && !isModuleName(next) ? argv[++i] : true;
    } else if (a === '--report') args.reportOnly = true;
    else if (a === '--concurrency') args.concurrency = Number(argv[++i]);
    else if (a.startsWith('-')) throw new Error(`unknown option ${a}`);
    else args.names.push(a);
  }
  if (!Number.isInteger(args.concurrency) || args.concurrency < 1) throw new Error('--concurrency needs a positive integer');
  for (const name of args.names) {
    if (!isModuleName(name)) throw new Error(`no critical module "${name}"; the modules are: ${criticalModules.map((m) => m.name).join(', ')}`);
  }
  return args;
}

const isModuleName = (name: string): boolean => criticalModules.some((m) => m.name === name);

const git = (...args: string[]): string => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** The files changed since the merge base with `ref`, or undefined when the base cannot be found. */
function changedSince(ref: string): string[] | undefined {
  let base: string;
  try {
    base = git('merge-base', ref, 'HEAD');
  } catch {
    return undefined;
  }
  // Against the work tree: committed changes and uncommitted ones alike.
  const diff = git('diff', '--name-only', base);
  const untracked = git('ls-files', '--others', '--exclude-standard');
  return [...diff.split('\n'), ...untracked.split('\n')].filter(Boolean);
}

function selectModules(args: Args): CriticalModule[] {
  if (args.changed !== undefined) {
    const ref = args.changed === true ? process.env.MUTATION_BASE || 'HEAD^' : args.changed;
    const files = changedSince(ref);
    if (files === undefined) {
      console.log(`mutation: no merge base with ${ref} (a shallow clone or a first commit): every critical module runs`);
      return [...criticalModules];
    }
    // A change to the mutation setup itself (this folder, Stryker's version) re-runs everything.
    if (files.some((f) => f.startsWith('scripts/mutation/') || f === 'package-lock.json')) {
      console.log(`mutation: the mutation setup changed since ${ref}: every critical module runs`);
      return [...criticalModules];
    }
    const touched = criticalModules.filter((m) => files.some((f) => matchesList(f, m.mutate) || (f.endsWith('.test.ts') && matchesList(f, m.tests))));
    console.log(`mutation: ${files.length} file(s) changed since ${ref}; modules touched: ${touched.map((m) => m.name).join(', ') || 'none'}`);
    return touched;
  }
  if (args.names.length) return criticalModules.filter((m) => args.names.includes(m.name));
  return [...criticalModules];
}

function reportScores(modules: readonly CriticalModule[]): number {
  const report = JSON.parse(readFileSync(join(ROOT, JSON_REPORT), 'utf8')) as MutationReport;
  const scores = scoreModules(report, modules);
  console.log(`\nMutation score per critical module (floor ${MUTATION_FLOOR}%: killed + timeout over valid mutants)\n`);
  console.log(formatScoreTable(scores, MUTATION_FLOOR));
  const failing = scores.filter((s) => belowFloor(s, MUTATION_FLOOR));
  for (const s of [...failing, ...scores.filter((x) => held(x, MUTATION_FLOOR))]) {
    console.log(`\n${s.module.name} is below the floor; undetected mutants (file:line:column mutator → replacement):`);
    console.log(formatUndetected(s, UNDETECTED_SHOWN));
  }
  console.log(`\nReport: ${JSON_REPORT} (open ${HTML_REPORT} in a browser to see each mutant in its source)`);
  // The plain closing line CI's log reader counts: modules at or above the floor, and below it.
  const scored = scores.filter((s) => s.score !== undefined);
  const short = scores.filter((s) => held(s, MUTATION_FLOOR)).length;
  if (short) console.log(`mutation: ${short} module(s) still short of the ${MUTATION_FLOOR}% floor, held at their measured scores (modules.ts heldAt)`);
  console.log(`mutation: ${scored.length - failing.length} passed, ${failing.length} failed`);
  return failing.length ? 1 : 0;
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  const modules = selectModules(args);
  if (args.reportOnly) {
    if (!existsSync(join(ROOT, JSON_REPORT))) throw new Error(`no report at ${JSON_REPORT}: run npm run mutation first`);
    return reportScores(modules);
  }
  if (modules.length === 0) {
    console.log('mutation: no critical module to run');
    return 0;
  }
  console.log(`mutation: ${modules.map((m) => m.name).join(', ')} (concurrency ${args.concurrency})`);
  const { Stryker } = await import('@stryker-mutator/core');
  process.chdir(ROOT);
  await new Stryker(strykerOptions(ROOT, modules, args.concurrency)).runMutationTest();
  return reportScores(modules);
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`mutation: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(2);
  },
);
