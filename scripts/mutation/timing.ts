// A run's time per critical module, from the timing reporter's log (timing-reporter.mjs): the dry
// run's time of each test file the module lists, and its share of the mutation phase, where the
// time between one mutant's result and the one before goes to the module of that mutant (the test
// runners work in parallel, so the gaps add up to the phase's wall time). The record keeps it as
// the module's `seconds`; CI estimates a re-run from it. An estimate, not a measurement of the
// module alone: a run's fixed setup (sandbox, build, type checker) is not in it.

import { matchesList } from './globs.js';
import type { CriticalModule } from './modules.js';

export interface TimingLog {
  started: number;
  dryRunEnded: number;
  planReady: number;
  ended: number;
  dryRunTests: { file: string; ms: number }[];
  /** [mutated file, time its result came], in arrival order. */
  mutants: [string, number][];
}

/** A file Stryker names (absolute, in the sandbox, or compiled) as the repository path of its TypeScript source. */
export function repoPath(file: string, root: string): string {
  let p = file.replaceAll('\\', '/');
  const sandbox = /\/\.stryker-tmp\/sandbox-[^/]+\//.exec(p);
  if (sandbox) p = p.slice(sandbox.index + sandbox[0].length);
  else if (p.startsWith(`${root}/`)) p = p.slice(root.length + 1);
  if (p.startsWith('dist/')) p = p.slice('dist/'.length).replace(/\.js$/, '.ts');
  return p;
}

/** Seconds per module, for the modules of the run. */
export function moduleSeconds(log: TimingLog, modules: readonly CriticalModule[], root: string): Map<string, number> {
  const ms = new Map<string, number>(modules.map((m) => [m.name, 0]));
  const add = (m: CriticalModule, t: number): void => void ms.set(m.name, ms.get(m.name)! + t);
  for (const t of log.dryRunTests) {
    const file = repoPath(t.file, root);
    for (const m of modules) if (matchesList(file, m.tests)) add(m, t.ms);
  }
  let previous = log.planReady || log.dryRunEnded;
  for (const [file, at] of [...log.mutants].sort((a, b) => a[1] - b[1])) {
    const owner = modules.find((m) => matchesList(repoPath(file, root), m.mutate));
    if (owner) add(owner, Math.max(0, at - previous));
    previous = at;
  }
  return new Map([...ms].map(([name, t]) => [name, Math.round(t / 1000)]));
}
