// The mutation-testing setup (scripts/mutation/): every critical module names real sources and
// tests, no source is scored twice, the glob dialect reads as Stryker's does for the patterns
// used, and a report is scored as Stryker scores it.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listFiles, matchesGlob, matchesList } from '../../scripts/mutation/globs.js';
import { criticalModules, MUTATION_FLOOR } from '../../scripts/mutation/modules.js';
import { belowFloor, formatScoreTable, scoreModules, type MutationReport, type ReportMutant } from '../../scripts/mutation/scores.js';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const files = listFiles(repo, ['src', 'test']);

describe('critical modules', () => {
  test('each names at least one source file and one test file that exist', () => {
    for (const m of criticalModules) {
      const sources = files.filter((f) => !f.endsWith('.test.ts') && f.endsWith('.ts') && matchesList(f, m.mutate));
      const tests = files.filter((f) => f.endsWith('.test.ts') && matchesList(f, m.tests));
      assert.ok(sources.length > 0, `${m.name}: no source matches ${m.mutate.join(' ')}`);
      assert.ok(tests.length > 0, `${m.name}: no test matches ${m.tests.join(' ')}`);
      for (const glob of m.tests) {
        assert.ok(files.some((f) => f.endsWith('.test.ts') && matchesGlob(f, glob)), `${m.name}: test glob ${glob} matches nothing`);
      }
    }
  });

  test('no source file belongs to two modules, and names are unique', () => {
    const owners = new Map<string, string>();
    for (const m of criticalModules) {
      for (const f of files.filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && matchesList(f, m.mutate))) {
        assert.equal(owners.get(f), undefined, `${f} is in ${owners.get(f)} and ${m.name}`);
        owners.set(f, m.name);
      }
    }
    assert.equal(new Set(criticalModules.map((m) => m.name)).size, criticalModules.length);
  });
});

describe('globs', () => {
  test('*, **/, {a,b} and ! as the module list uses them', () => {
    assert.equal(matchesGlob('src/auth/rbac/rule-matching.ts', 'src/auth/rbac/{rule-matching,rbac-authorizer}.ts'), true);
    assert.equal(matchesGlob('src/auth/rbac/policy-file.ts', 'src/auth/rbac/{rule-matching,rbac-authorizer}.ts'), false);
    assert.equal(matchesGlob('src/http/filters/a.ts', 'src/http/filters/*.ts'), true);
    assert.equal(matchesGlob('src/http/filters/x/a.ts', 'src/http/filters/*.ts'), false);
    assert.equal(matchesGlob('src/resources/servicecidrs/a.test.ts', 'src/resources/servicecidrs/**/*.test.ts'), true);
    assert.equal(matchesGlob('src/resources/servicecidrs/x/y/a.test.ts', 'src/resources/servicecidrs/**/*.test.ts'), true);
    assert.equal(matchesGlob('src/resourcesXservicecidrs/a.test.ts', 'src/resources/servicecidrs/**/*.test.ts'), false);
    assert.equal(matchesList('src/http/filters/test-state.ts', ['src/http/filters/*.ts', '!src/http/filters/{impersonation,test-state}.ts']), false);
    assert.equal(matchesList('src/http/filters/audit.ts', ['src/http/filters/*.ts', '!src/http/filters/{impersonation,test-state}.ts']), true);
  });
});

describe('scores', () => {
  const mutant = (status: ReportMutant['status']): ReportMutant => ({ id: status, mutatorName: 'X', status, location: { start: { line: 1, column: 1 }, end: { line: 1, column: 2 } } });
  const module = criticalModules.find((m) => m.name === 'attest-admission')!;
  const report = (statuses: ReportMutant['status'][]): MutationReport => ({
    files: { 'src/auth/ctb-attest-admission.ts': { source: '', mutants: statuses.map(mutant) }, 'src/other.ts': { source: '', mutants: [mutant('Survived')] } },
  });

  test('killed + timeout over valid mutants: errors and ignored ones do not count, no coverage does', () => {
    const [s] = scoreModules(report(['Killed', 'Killed', 'Timeout', 'Survived', 'NoCoverage', 'CompileError', 'RuntimeError', 'Ignored']), [module]);
    assert.equal(s!.score, 60);
    assert.deepEqual([s!.killed, s!.timeout, s!.survived, s!.noCoverage, s!.errors, s!.ignored], [2, 1, 1, 1, 2, 1]);
    assert.equal(s!.undetected.length, 2);
    assert.equal(belowFloor(s!, MUTATION_FLOOR), true);
    assert.match(formatScoreTable([s!], MUTATION_FLOOR), /attest-admission\s+60\.00.*BELOW 85%/);
  });

  test('at the floor passes; a module with no mutant in the report was not run', () => {
    const [at] = scoreModules(report([...Array(17).fill('Killed'), 'Survived', 'Survived', 'Survived']), [module]);
    assert.equal(at!.score, 85);
    assert.equal(belowFloor(at!, MUTATION_FLOOR), false);
    const [none] = scoreModules({ files: {} }, [module]);
    assert.equal(none!.score, undefined);
    assert.equal(belowFloor(none!, MUTATION_FLOOR), false);
  });
});

describe('modules held below the floor', () => {
  const mutant = (status: ReportMutant['status']): ReportMutant => ({ id: status, mutatorName: 'X', status, location: { start: { line: 1, column: 1 }, end: { line: 1, column: 2 } } });
  const base = criticalModules.find((m) => m.name === 'attest-admission')!;
  const report: MutationReport = { files: { 'src/auth/ctb-attest-admission.ts': { source: '', mutants: [...Array(7).fill('Killed'), ...Array(3).fill('Survived')].map(mutant) } } };

  test('a module held at its measured score passes at it and fails below it; the table says it is held', () => {
    const [at] = scoreModules(report, [{ ...base, heldAt: 70 }]);
    assert.equal(belowFloor(at!, MUTATION_FLOOR), false);
    assert.match(formatScoreTable([at!], MUTATION_FLOOR), /70\.00.*held at 70%, floor 85%/);
    const [under] = scoreModules(report, [{ ...base, heldAt: 71 }]);
    assert.equal(belowFloor(under!, MUTATION_FLOOR), true);
    // A held score above the floor never raises it.
    const [over] = scoreModules(report, [{ ...base, heldAt: 99 }]);
    assert.match(formatScoreTable([over!], MUTATION_FLOOR), /BELOW 85%/);
  });
});
