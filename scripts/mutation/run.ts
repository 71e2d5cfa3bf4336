// `npm run mutation`: Stryker over the critical modules (modules.ts), then each module's score
// against the floor, and the record of the scores (scores.json, record.ts) that CI checks.
// docs/testing.md explains how to run it and read the results.
//
//   npm run mutation                         every critical module
//   npm run mutation -- authorization ...    the named modules only
//   npm run mutation -- --stale              the modules whose record no longer matches their code
//   npm run mutation -- --ci [--budget <m>]  CI's check (ci.ts): the record, and a run of what changed
//   npm run mutation -- --report             score the last report again, without running Stryker
//   --concurrency <n>                        Stryker's processes (default: cores + 2)
//   --incremental                            reuse the last run of the same modules where nothing changed
//   --no-record                              leave scores.json as it is
//
// One Stryker run covers the selected modules: one sandbox, one build, one type checker. Its tests
// run as compiled JavaScript (the sandbox builds with tsc after Stryker instruments the sources),
// several times faster per mutant than loading TypeScript through tsx. Per-test coverage makes
// each mutant run only the listed test files that executed its code. The type checker sees only
// the mutated files (and what they import), so mutants in unrelated files are checked together.
// After the run, each module that passes gets its entry in scores.json: score, fingerprint of what
// was measured (taken before the run), and its time.
// Exit status: 0 when every selected module is at or above the floor, 1 below it, 2 on a usage or
// Stryker error.

import { availableParallelism } from 'node:os';
import { runCi } from './ci.js';
import { criticalModules, MUTATION_FLOOR, type CriticalModule } from './modules.js';
import { estimateSeconds } from './record.js';
import { belowFloor, floorFor, type ModuleScore } from './scores.js';
import { currentFingerprints, lastScores, lastSeconds, printScores, readRecordFile, reportExists, runStryker, writeRecordFile } from './workspace.js';

export interface Args {
  names: string[];
  stale: boolean;
  ci: boolean;
  budgetMinutes: number;
  reportOnly: boolean;
  record: boolean;
  incremental: boolean;
  concurrency: number;
}

/** CI's time for the mutation step, by default (docs/testing.md). */
const CI_BUDGET_MINUTES = 6;

function parseArgs(argv: string[]): Args {
  // Stryker gives half its processes to the type checker and half to test runners; a check is
  // much lighter than a test run, so two more than the cores keeps every core running tests.
  const args: Args = { names: [], stale: false, ci: false, budgetMinutes: CI_BUDGET_MINUTES, reportOnly: false, record: true, incremental: false, concurrency: availableParallelism() + 2 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--stale') args.stale = true;
    else if (a === '--ci') args.ci = true;
    else if (a === '--budget') args.budgetMinutes = Number(argv[++i]);
    else if (a === '--report') args.reportOnly = true;
    else if (a === '--no-record') args.record = false;
    else if (a === '--incremental') args.incremental = true;
    else if (a === '--concurrency') args.concurrency = Number(argv[++i]);
    else if (a.startsWith('-')) throw new Error(`unknown option ${a}`);
    else args.names.push(a);
  }
  if (!Number.isInteger(args.concurrency) || args.concurrency < 1) throw new Error('--concurrency needs a positive integer');
  if (!(args.budgetMinutes > 0)) throw new Error('--budget needs a positive number of minutes');
  if (args.ci && (args.names.length || args.stale || args.reportOnly)) throw new Error('--ci chooses its modules itself');
  for (const name of args.names) {
    if (!criticalModules.some((m) => m.name === name)) throw new Error(`no critical module "${name}"; the modules are: ${criticalModules.map((m) => m.name).join(', ')}`);
  }
  return args;
}

function selectModules(args: Args): CriticalModule[] {
  if (args.stale) {
    const record = readRecordFile();
    const now = currentFingerprints(criticalModules);
    const stale = criticalModules.filter((m) => record[m.name]?.fingerprint !== now.get(m.name));
    console.log(`mutation: modules whose record does not match their code: ${stale.map((m) => m.name).join(', ') || 'none'}`);
    const known = stale.filter((m) => record[m.name]);
    if (known.length) {
      const seconds = known.reduce((t, m) => t + (estimateSeconds(record[m.name], args.concurrency) ?? 0), 0);
      const unknown = stale.length - known.length;
      console.log(`mutation: their last measurements add up to about ${Math.ceil(seconds / 60)} min at concurrency ${args.concurrency}, plus a minute or two of setup${unknown ? ` and ${unknown} module(s) never measured` : ''}`);
    }
    return stale;
  }
  if (args.names.length) return criticalModules.filter((m) => args.names.includes(m.name));
  return [...criticalModules];
}

/** Writes the entries of the modules that passed, measured from the code as it was at `before`. */
function record(scores: readonly ModuleScore[], before: Map<string, string>, seconds: Map<string, number>, concurrency: number): void {
  const after = currentFingerprints(scores.map((s) => s.module));
  const entries = readRecordFile();
  const today = new Date().toISOString().slice(0, 10);
  for (const s of scores) {
    const name = s.module.name;
    if (s.score === undefined) continue;
    if (belowFloor(s, MUTATION_FLOOR)) {
      console.log(`mutation: ${name} not recorded: below its floor of ${floorFor(s.module, MUTATION_FLOOR)}%`);
      continue;
    }
    if (after.get(name) !== before.get(name)) {
      console.log(`mutation: ${name} not recorded: its files changed during the run; run it again`);
      continue;
    }
    entries[name] = {
      score: Math.floor(s.score * 100) / 100,
      killed: s.killed, timeout: s.timeout, survived: s.survived, noCoverage: s.noCoverage, errors: s.errors, ignored: s.ignored,
      seconds: seconds.get(name) ?? 0, concurrency, measured: today, fingerprint: before.get(name)!,
    };
    if (s.module.heldAt !== undefined && s.score >= MUTATION_FLOOR) console.log(`mutation: ${name} is at the floor now: remove its heldAt from modules.ts`);
    else if (s.module.heldAt !== undefined && s.score >= s.module.heldAt + 1) console.log(`mutation: ${name} measured ${s.score.toFixed(1)}%: raise its heldAt in modules.ts`);
  }
  writeRecordFile(entries);
  console.log('mutation: scores recorded in scripts/mutation/scores.json (commit it with the change)');
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  if (args.ci) return runCi(args);
  const modules = selectModules(args);
  if (args.reportOnly) {
    if (!reportExists()) throw new Error('no report in reports/mutation/: run npm run mutation first');
    const failing = printScores(lastScores(modules).filter((s) => s.score !== undefined));
    return failing.length ? 1 : 0;
  }
  if (modules.length === 0) {
    console.log('mutation: no critical module to run');
    return 0;
  }
  console.log(`mutation: ${modules.map((m) => m.name).join(', ')} (concurrency ${args.concurrency})`);
  const before = currentFingerprints(modules);
  const started = Date.now();
  await runStryker(modules, { concurrency: args.concurrency, incremental: args.incremental });
  const scores = lastScores(modules);
  const failing = printScores(scores);
  if (args.record) record(scores, before, lastSeconds(modules, Math.round((Date.now() - started) / 1000 / modules.length)), args.concurrency);
  // The plain closing line CI's log reader counts: modules at or above the floor, and below it.
  console.log(`mutation: ${scores.filter((s) => s.score !== undefined).length - failing.length} passed, ${failing.length} failed`);
  return failing.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`mutation: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(2);
  },
);
