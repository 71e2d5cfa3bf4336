// The committed record of each critical module's last measured score (scripts/mutation/scores.json)
// and what CI does with it (`npm run mutation -- --ci`, docs/testing.md).
//
// `npm run mutation` writes a module's entry when the module passes: its score and counts, the
// fingerprint of what was measured (fingerprint.ts), and the time the module took. CI then needs
// to run Stryker only where the code moved on: a module whose fingerprint matches its entry is
// held to the floor by the recorded score; one whose fingerprint differs is measured again, when
// the estimate of that run fits the time budget; when it does not, CI fails and names the command
// that measures it, so that the change arrives with its record. A module with no entry yet (its
// first measurement takes longer than CI's budget) is named as not yet under the floor, and comes
// under it with its first record (docs/testing.md lists those still to record). With
// nothing to re-measure, CI audits one recorded module by measuring it again (which one turns with
// the commit), so that a record is never trusted unseen for long.
//
// The file holds one line per module with blank lines between them: two branches that measured
// different modules merge without a conflict.

import type { CriticalModule } from './modules.js';

export const RECORD_FILE = 'scripts/mutation/scores.json';

export interface ModuleRecord {
  /** Killed + timeout over valid mutants, in percent (two decimals). */
  score: number;
  killed: number;
  timeout: number;
  survived: number;
  noCoverage: number;
  errors: number;
  ignored: number;
  /** The module's share of the run's time (timing.ts), at `concurrency`; CI's estimate of a re-run starts from it. */
  seconds: number;
  concurrency: number;
  /** The day it was measured (UTC). */
  measured: string;
  fingerprint: string;
}

export type ScoreRecord = Record<string, ModuleRecord>;

const COMMENT = 'Written by npm run mutation for each module that passes; CI checks it (docs/testing.md). Do not edit by hand.';

export function parseRecord(text: string): ScoreRecord {
  const parsed = JSON.parse(text) as { modules?: unknown };
  if (typeof parsed !== 'object' || parsed === null || typeof parsed.modules !== 'object' || parsed.modules === null) {
    throw new Error(`${RECORD_FILE}: no "modules" object`);
  }
  return parsed.modules as ScoreRecord;
}

/** The record as the file holds it: modules in `order` (then any others), one line each. */
export function formatRecord(record: ScoreRecord, order: readonly string[]): string {
  const names = [...order.filter((n) => record[n]), ...Object.keys(record).filter((n) => !order.includes(n)).sort()];
  const fields: (keyof ModuleRecord)[] = ['score', 'killed', 'timeout', 'survived', 'noCoverage', 'errors', 'ignored', 'seconds', 'concurrency', 'measured', 'fingerprint'];
  const line = (n: string): string => `    ${JSON.stringify(n)}: {${fields.map((f) => `${JSON.stringify(f)}: ${JSON.stringify(record[n]![f])}`).join(', ')}}`;
  return `{\n  "$comment": ${JSON.stringify(COMMENT)},\n  "modules": {\n${names.map(line).join(',\n\n')}\n  }\n}\n`;
}

/** Test runner processes Stryker starts for a concurrency (half of it, at least one; the rest check types). */
export const testRunners = (concurrency: number): number => Math.max(1, Math.floor(concurrency / 2));

/**
 * What a module's re-run should take at `concurrency`: its recorded seconds, longer when CI has
 * fewer test runners than the measurement had, never credited for more (a 2-core machine does not
 * run twice as fast with two more processes). Undefined when there is nothing to estimate from.
 */
export function estimateSeconds(record: ModuleRecord | undefined, concurrency: number): number | undefined {
  if (!record || !(record.seconds >= 0)) return undefined;
  return record.seconds * Math.max(1, testRunners(record.concurrency) / testRunners(concurrency));
}

export interface CiModule {
  module: CriticalModule;
  fingerprint: string;
  record: ModuleRecord | undefined;
}

export interface StaleModule extends CiModule {
  reason: 'changed';
  estimate: number | undefined;
}

export interface CiPlan {
  /** Fingerprint matches: the recorded score stands for the module. */
  recorded: CiModule[];
  /** Changed since the record: to measure again. */
  stale: StaleModule[];
  /** Never recorded: not yet held to the floor; named, not measured (a first run exceeds the budget). */
  unrecorded: CiModule[];
  /** The run's estimate (setup included), when every stale module has one. */
  estimate: number | undefined;
  /** The stale modules cannot be measured within the budget: CI fails and names the command. */
  overBudget: boolean;
  /** With nothing stale: the recorded module measured again to check its record. */
  audit: CiModule | undefined;
}

export interface CiOptions {
  budgetSeconds: number;
  /** A run's fixed cost before the first mutant: sandbox, build, type checker. */
  setupSeconds: number;
  concurrency: number;
  /** Picks the audited module among those that fit (the commit's hash, as a number). */
  auditSeed: number;
}

export function planCi(modules: readonly CiModule[], o: CiOptions): CiPlan {
  const recorded = modules.filter((m) => m.record?.fingerprint === m.fingerprint);
  const unrecorded = modules.filter((m) => !m.record);
  const stale: StaleModule[] = modules
    .filter((m) => m.record && !recorded.includes(m))
    .map((m) => ({ ...m, reason: 'changed', estimate: estimateSeconds(m.record, o.concurrency) }));
  const known = stale.every((m) => m.estimate !== undefined);
  const estimate = stale.length === 0 ? 0 : known ? o.setupSeconds + stale.reduce((t, m) => t + m.estimate!, 0) : undefined;
  const overBudget = stale.length > 0 && (estimate === undefined || estimate > o.budgetSeconds);
  let audit: CiModule | undefined;
  if (stale.length === 0) {
    // An audit takes at most half the budget: it checks a record, it should not double CI's time.
    const fits = recorded.filter((m) => o.setupSeconds + (estimateSeconds(m.record, o.concurrency) ?? Infinity) <= o.budgetSeconds / 2);
    audit = fits.length ? fits[o.auditSeed % fits.length] : undefined;
  }
  return { recorded, stale, unrecorded, estimate, overBudget, audit };
}
