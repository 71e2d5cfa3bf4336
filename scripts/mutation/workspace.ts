// What run.ts and ci.ts share about this checkout: its modules' fingerprints now, the record file,
// one Stryker run, and the score table of the last report.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { moduleFiles, moduleFingerprint, setupFingerprint, toolVersions } from './fingerprint.js';
import { listFiles } from './globs.js';
import { criticalModules, MUTATION_FLOOR, type CriticalModule } from './modules.js';
import { formatRecord, parseRecord, RECORD_FILE, type ScoreRecord } from './record.js';
import { belowFloor, formatScoreTable, formatUndetected, held, scoreModules, type ModuleScore, type MutationReport } from './scores.js';
import { HTML_REPORT, JSON_REPORT, SCORING_OPTIONS, strykerOptions, TIMING_LOG, type RunOptions } from './stryker-options.js';
import { moduleSeconds, type TimingLog } from './timing.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Undetected mutants listed per module below the floor (the HTML report has them all). */
const UNDETECTED_SHOWN = 40;

/** Each module's fingerprint over the files as they are now. */
export function currentFingerprints(modules: readonly CriticalModule[]): Map<string, string> {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as Parameters<typeof toolVersions>[0];
  const setup = setupFingerprint({ options: SCORING_OPTIONS, versions: toolVersions(lock), tsconfig: readFileSync(join(ROOT, 'tsconfig.json'), 'utf8') });
  const files = listFiles(ROOT, ['src', 'test']);
  const read = (f: string): Buffer => readFileSync(join(ROOT, f));
  return new Map(modules.map((m) => [m.name, moduleFingerprint(m, moduleFiles(m, files), read, setup)]));
}

export function readRecordFile(): ScoreRecord {
  const path = join(ROOT, RECORD_FILE);
  return existsSync(path) ? parseRecord(readFileSync(path, 'utf8')) : {};
}

export function writeRecordFile(record: ScoreRecord): void {
  writeFileSync(join(ROOT, RECORD_FILE), formatRecord(record, criticalModules.map((m) => m.name)));
}

/** One Stryker run over `modules` (in this process); the report lands in reports/mutation/. */
export async function runStryker(modules: readonly CriticalModule[], o: RunOptions): Promise<void> {
  const { Stryker } = await import('@stryker-mutator/core');
  process.chdir(ROOT);
  await new Stryker(strykerOptions(ROOT, modules, o)).runMutationTest();
}

export function reportExists(): boolean {
  return existsSync(join(ROOT, JSON_REPORT));
}

/** The last report's scores for `modules`. */
export function lastScores(modules: readonly CriticalModule[]): ModuleScore[] {
  return scoreModules(JSON.parse(readFileSync(join(ROOT, JSON_REPORT), 'utf8')) as MutationReport, modules);
}

/** Seconds per module from the last run's timing log, or `fallback` each when the log is missing. */
export function lastSeconds(modules: readonly CriticalModule[], fallback: number): Map<string, number> {
  const path = join(ROOT, TIMING_LOG);
  if (!existsSync(path)) return new Map(modules.map((m) => [m.name, fallback]));
  return moduleSeconds(JSON.parse(readFileSync(path, 'utf8')) as TimingLog, modules, ROOT);
}

/** Prints the score table and the undetected mutants of modules short of the floor; returns the failing ones. */
export function printScores(scores: readonly ModuleScore[]): ModuleScore[] {
  console.log(`\nMutation score per critical module (floor ${MUTATION_FLOOR}%: killed + timeout over valid mutants)\n`);
  console.log(formatScoreTable(scores, MUTATION_FLOOR));
  const failing = scores.filter((s) => belowFloor(s, MUTATION_FLOOR));
  for (const s of [...failing, ...scores.filter((x) => held(x, MUTATION_FLOOR))]) {
    console.log(`\n${s.module.name} is below the floor; undetected mutants (file:line:column mutator → replacement):`);
    console.log(formatUndetected(s, UNDETECTED_SHOWN));
  }
  console.log(`\nReport: ${JSON_REPORT} (open ${HTML_REPORT} in a browser to see each mutant in its source)`);
  const short = scores.filter((s) => held(s, MUTATION_FLOOR)).length;
  if (short) console.log(`mutation: ${short} module(s) still short of the ${MUTATION_FLOOR}% floor, held at their measured scores (modules.ts heldAt)`);
  return failing;
}
