// Per-module mutation scores from Stryker's JSON report (the mutation-testing-report-schema that
// reports/mutation/mutation.json holds), and the floor check. The score is Stryker's: killed +
// timeout over valid mutants (everything but compile errors, runtime errors and the mutants
// marked with a `Stryker disable` comment), so a mutant no test reaches counts against it.

import { matchesList } from './globs.js';
import type { CriticalModule } from './modules.js';

export type MutantStatus = 'Killed' | 'Survived' | 'NoCoverage' | 'Timeout' | 'CompileError' | 'RuntimeError' | 'Ignored' | 'Pending';

export interface ReportMutant {
  id: string;
  mutatorName: string;
  replacement?: string;
  status: MutantStatus;
  location: { start: { line: number; column: number }; end: { line: number; column: number } };
}

export interface MutationReport {
  files: Record<string, { source: string; mutants: ReportMutant[] }>;
}

export interface ModuleScore {
  module: CriticalModule;
  files: string[];
  killed: number;
  timeout: number;
  survived: number;
  noCoverage: number;
  /** Compile and runtime errors: not valid mutants, so not in the score. */
  errors: number;
  ignored: number;
  /** Percent, or undefined when the module had no valid mutant in the report. */
  score: number | undefined;
  /** Survivors and mutants no test reached, for the summary. */
  undetected: { file: string; mutant: ReportMutant }[];
}

export function scoreModules(report: MutationReport, modules: readonly CriticalModule[]): ModuleScore[] {
  const fileNames = Object.keys(report.files);
  return modules.map((module) => {
    const s: ModuleScore = { module, files: [], killed: 0, timeout: 0, survived: 0, noCoverage: 0, errors: 0, ignored: 0, score: undefined, undetected: [] };
    for (const file of fileNames) {
      if (!matchesList(file, module.mutate)) continue;
      s.files.push(file);
      for (const mutant of report.files[file].mutants) {
        switch (mutant.status) {
          case 'Killed': s.killed++; break;
          case 'Timeout': s.timeout++; break;
          case 'Survived': s.survived++; s.undetected.push({ file, mutant }); break;
          case 'NoCoverage': s.noCoverage++; s.undetected.push({ file, mutant }); break;
          case 'CompileError': case 'RuntimeError': s.errors++; break;
          case 'Ignored': s.ignored++; break;
          case 'Pending': break;
        }
      }
    }
    const valid = s.killed + s.timeout + s.survived + s.noCoverage;
    s.score = valid === 0 ? undefined : (100 * (s.killed + s.timeout)) / valid;
    return s;
  });
}

/** The score a module must reach: the floor, or the score a module not yet there is held at. */
export const floorFor = (m: CriticalModule, floor: number): number => Math.min(floor, m.heldAt ?? floor);

export const floorOf = (s: ModuleScore, floor: number): number => floorFor(s.module, floor);

export const belowFloor = (s: ModuleScore, floor: number): boolean => s.score !== undefined && s.score < floorOf(s, floor);

/** At or above its own held score, but still short of the floor. */
export const held = (s: ModuleScore, floor: number): boolean => s.score !== undefined && !belowFloor(s, floor) && s.score < floor;

export function formatScoreTable(scores: readonly ModuleScore[], floor: number): string {
  const rows = [['module', 'score', 'killed', 'timeout', 'survived', 'no cov', 'errors', 'ignored', '']];
  for (const s of scores) {
    rows.push([
      s.module.name,
      s.score === undefined ? 'n/a' : s.score.toFixed(2),
      String(s.killed), String(s.timeout), String(s.survived), String(s.noCoverage), String(s.errors), String(s.ignored),
      s.score === undefined ? 'not run' : belowFloor(s, floor) ? `BELOW ${floorOf(s, floor)}%` : held(s, floor) ? `held at ${floorOf(s, floor)}%, floor ${floor}%` : 'ok',
    ]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ').trimEnd()).join('\n');
}

/** One line per undetected mutant: where, which mutator, what it wrote instead. */
export function formatUndetected(s: ModuleScore, limit: number): string {
  const lines = s.undetected.slice(0, limit).map(({ file, mutant }) => {
    const at = `${file}:${mutant.location.start.line}:${mutant.location.start.column}`;
    const replacement = (mutant.replacement ?? '').replace(/\s+/g, ' ').slice(0, 100);
    return `  ${mutant.status === 'NoCoverage' ? 'no coverage' : 'survived'}  ${at}  ${mutant.mutatorName}  → ${replacement}`;
  });
  if (s.undetected.length > limit) lines.push(`  … and ${s.undetected.length - limit} more (reports/mutation/mutation.html)`);
  return lines.join('\n');
}
