// `npm run mutation -- --ci`: CI's mutation check, bounded in time (record.ts has the rules).
// Each critical module's fingerprint is compared with its entry in scores.json: a match is held to
// the floor by the recorded score; the modules that changed since their record are measured again
// in one Stryker run when its estimate fits the budget, and CI fails (naming the command that
// records them) when it does not; with nothing changed, one recorded module is audited. The run
// goes in a child process group that is ended at the budget, so the step never outlasts it.

import { execFileSync, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { criticalModules, MUTATION_FLOOR, type CriticalModule } from './modules.js';
import { planCi, type CiModule, type StaleModule } from './record.js';
import type { Args } from './run.js';
import { belowFloor, floorFor } from './scores.js';
import { currentFingerprints, lastScores, printScores, readRecordFile, ROOT } from './workspace.js';

/** A run's time before its first mutant: sandbox copy, tsc build, dry run, type checker start (60-95 s measured here under load). */
const SETUP_SECONDS = 120;
/** After SIGTERM, the run's processes get this long to clean up before SIGKILL. */
const KILL_GRACE_MS = 15_000;
/**
 * Kept free at the end of the budget: the grace above, removing the sandbox, the closing lines.
 * The run is planned and ended within the rest, so the whole step stays within the budget.
 */
const END_MARGIN_SECONDS = 30;

const minutes = (seconds: number): string => `${(seconds / 60).toFixed(1)} min`;

/** A number from the commit under test, so the audited module turns from one commit to the next. */
function auditSeed(): number {
  try {
    return parseInt(execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).slice(0, 8), 16) || 0;
  } catch {
    return 0;
  }
}

function describeRecord(m: CiModule, plan: { stale: StaleModule[] }): string {
  if (!m.record) return 'NOT YET RECORDED: not held to the floor until its first record';
  const stale = plan.stale.find((s) => s.module === m.module);
  const at = `${m.record.score.toFixed(2)}% measured ${m.record.measured}`;
  if (!stale) return `recorded ${at}`;
  const estimate = stale.estimate === undefined ? 'no estimate' : `≈ ${minutes(stale.estimate)} to measure`;
  return `changed since its record (${at}; ${estimate})`;
}

type Outcome = 'finished' | 'failed' | 'timeout';

/** Measures `modules` in a child run (no record written), ended when `ms` pass. */
function runBounded(modules: readonly CriticalModule[], concurrency: number, ms: number): Promise<Outcome> {
  return new Promise((resolvePromise) => {
    const script = join(ROOT, 'scripts/mutation/run.ts');
    const child = spawn(process.execPath, [...process.execArgv, script, ...modules.map((m) => m.name), '--no-record', '--concurrency', String(concurrency)], {
      cwd: ROOT,
      stdio: 'inherit',
      // Its own process group: Stryker's workers and the test processes end with it.
      detached: true,
    });
    let timedOut = false;
    const kill = (signal: NodeJS.Signals): void => {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        // already gone
      }
    };
    const forward = (): void => kill('SIGTERM');
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    const timer = setTimeout(() => {
      timedOut = true;
      console.log(`\nmutation: the run reached the budget; ending it`);
      kill('SIGTERM');
      setTimeout(() => kill('SIGKILL'), KILL_GRACE_MS).unref();
    }, Math.max(0, ms));
    child.on('exit', (code) => {
      clearTimeout(timer);
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolvePromise(timedOut ? 'timeout' : code === 0 || code === 1 ? 'finished' : 'failed');
    });
  });
}

export async function runCi(args: Args): Promise<number> {
  const started = Date.now();
  const budgetSeconds = args.budgetMinutes * 60;
  const usableSeconds = budgetSeconds - END_MARGIN_SECONDS;
  const record = readRecordFile();
  const fingerprints = currentFingerprints(criticalModules);
  const modules: CiModule[] = criticalModules.map((m) => ({ module: m, fingerprint: fingerprints.get(m.name)!, record: record[m.name] }));
  const plan = planCi(modules, { budgetSeconds: usableSeconds, setupSeconds: SETUP_SECONDS, concurrency: args.concurrency, auditSeed: auditSeed() });
  // Why CI fails, and the modules it fails.
  const failures: string[] = [];
  const failed = new Set<string>();
  const fail = (names: readonly string[], why: string): void => {
    failures.push(why);
    for (const n of names) failed.add(n);
  };
  const finish = (): number => {
    for (const f of failures) console.log(`\nmutation (CI): FAILED: ${f}`);
    // The plain closing line CI's log reader counts: modules at or above the floor, and below it.
    const unrecorded = plan.unrecorded.length;
    console.log(`mutation: ${criticalModules.length - failed.size - unrecorded} passed, ${failed.size} failed${unrecorded ? `, ${unrecorded} not yet recorded` : ''}`);
    return failures.length ? 1 : 0;
  };

  console.log(`mutation (CI): the record against the code (floor ${MUTATION_FLOOR}%; budget ${minutes(budgetSeconds)})\n`);
  const width = Math.max(...modules.map((m) => m.module.name.length));
  for (const m of modules) console.log(`  ${m.module.name.padEnd(width)}  ${describeRecord(m, plan)}`);
  for (const m of plan.recorded) {
    const floor = floorFor(m.module, MUTATION_FLOOR);
    if (m.record!.score < floor) fail([m.module.name], `${m.module.name}: recorded score ${m.record!.score}% is below its floor of ${floor}%`);
  }

  if (plan.unrecorded.length) {
    console.log(`\nmutation (CI): NOT YET UNDER THE FLOOR (no record; a first measurement exceeds CI's budget): ${plan.unrecorded.map((m) => m.module.name).join(', ')}. Record them with \`npm run mutation -- ${plan.unrecorded.map((m) => m.module.name).join(' ')}\` and commit scripts/mutation/scores.json.`);
  }
  const stale = plan.stale.map((s) => s.module.name);
  // Names exactly these: `--stale` would also measure every module never recorded (an hour or more).
  const measureCommand = `npm run mutation -- ${stale.join(' ')}`;
  if (plan.overBudget) {
    const what = `changed since their recorded score: ${stale.join(', ')}`;
    const why = plan.estimate === undefined ? 'a module has no measured time to estimate from' : `measuring them would take about ${minutes(plan.estimate)}, over CI's budget of ${minutes(budgetSeconds)}`;
    fail(stale, `not measured as they are now (${what}), and ${why}. Run \`${measureCommand}\` (it measures ${stale.join(', ')}) and commit scripts/mutation/scores.json.`);
    return finish();
  }

  const toRun = plan.stale.length ? plan.stale.map((s) => s.module) : plan.audit ? [plan.audit.module] : [];
  if (toRun.length === 0) {
    console.log(`\nmutation (CI): every record matches its code; no recorded module is small enough to audit within half the budget`);
    return finish();
  }
  const audit = plan.stale.length === 0;
  console.log(
    audit
      ? `\nmutation (CI): nothing changed since the record; auditing ${toRun[0]!.name}'s record by measuring it again`
      : `\nmutation (CI): measuring the changed modules (estimate ${minutes(plan.estimate!)}): ${stale.join(', ')}`,
  );
  const outcome = await runBounded(toRun, args.concurrency, usableSeconds * 1000 - (Date.now() - started));
  if (outcome !== 'finished') rmSync(join(ROOT, '.stryker-tmp'), { recursive: true, force: true });
  if (outcome === 'timeout') {
    if (audit) console.log(`mutation (CI): the audit of ${toRun[0]!.name} did not finish within the budget; its record stands unchecked this time`);
    else fail(stale, `the changed modules (${stale.join(', ')}) could not be measured within CI's budget of ${minutes(budgetSeconds)}. Run \`${measureCommand}\` (it measures ${stale.join(', ')}) and commit scripts/mutation/scores.json.`);
    return finish();
  }
  if (outcome === 'failed') {
    fail(audit ? [] : stale, `the Stryker run of ${toRun.map((m) => m.name).join(', ')} failed (its output is above)`);
    return finish();
  }
  const scores = lastScores(toRun);
  printScores(scores);
  for (const s of scores) {
    const entry = record[s.module.name];
    if (s.score === undefined) fail([s.module.name], `${s.module.name}: the run measured no mutant`);
    else if (belowFloor(s, MUTATION_FLOOR)) {
      fail([s.module.name], `${s.module.name}: measured ${s.score.toFixed(2)}%, below its floor of ${floorFor(s.module, MUTATION_FLOOR)}%${audit && entry ? ` (its record says ${entry.score}%)` : ''}`);
    } else if (!audit) console.log(`mutation (CI): ${s.module.name} passes; record it with \`npm run mutation -- ${s.module.name}\` so CI need not measure it again`);
  }
  return finish();
}
