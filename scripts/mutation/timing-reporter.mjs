// A Stryker reporter plugin (stryker-options.ts adds it): when each phase of the run began and
// when each mutant's result came in, written to reports/mutation/timing.json for timing.ts to
// share the run's time out among the critical modules (the record's `seconds`, from which CI
// estimates what a re-run costs). Plain JavaScript: Stryker's worker processes load every plugin
// module too, without the TypeScript loader.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { declareClassPlugin, PluginKind } from '@stryker-mutator/api/plugin';

export const TIMING_FILE = 'reports/mutation/timing.json';

class ModuleTimingReporter {
  static inject = [];
  started = Date.now();
  dryRunEnded = 0;
  /** Each test file of the dry run and its time. */
  dryRunTests = [];
  planReady = 0;
  /** [file, time] per mutant result, in the order they came. */
  mutants = [];

  onDryRunCompleted(event) {
    this.dryRunEnded = Date.now();
    this.dryRunTests = event.result.tests.map((t) => ({ file: t.fileName ?? t.id, ms: t.timeSpentMs }));
  }

  onMutationTestingPlanReady() {
    this.planReady = Date.now();
  }

  onMutantTested(result) {
    this.mutants.push([result.fileName, Date.now()]);
  }

  wrapUp() {
    const log = { started: this.started, dryRunEnded: this.dryRunEnded, planReady: this.planReady, ended: Date.now(), dryRunTests: this.dryRunTests, mutants: this.mutants };
    mkdirSync(dirname(TIMING_FILE), { recursive: true });
    writeFileSync(TIMING_FILE, JSON.stringify(log));
  }
}

export const strykerPlugins = [declareClassPlugin(PluginKind.Reporter, 'module-timing', ModuleTimingReporter)];
