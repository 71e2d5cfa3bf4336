// CI's incremental mutation check (scripts/mutation/{fingerprint,record,timing}.ts): a module's
// fingerprint moves exactly when what its score was measured from moves, the record file
// round-trips and merges line by line, CI's plan re-measures only what changed and only within its
// budget, and a run's time is shared out among its modules.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { moduleFiles, moduleFingerprint, setupFingerprint, stableJson, toolVersions, type Setup } from '../../scripts/mutation/fingerprint.js';
import type { CriticalModule } from '../../scripts/mutation/modules.js';
import { estimateSeconds, formatRecord, parseRecord, planCi, type CiModule, type ModuleRecord } from '../../scripts/mutation/record.js';
import { moduleSeconds, repoPath, type TimingLog } from '../../scripts/mutation/timing.js';

const cidr: CriticalModule = { name: 'cidr', what: '', mutate: ['src/cidr/*.ts'], tests: ['src/cidr/*.test.ts'] };
const rbac: CriticalModule = { name: 'rbac', what: '', mutate: ['src/rbac/rules.ts'], tests: ['src/rbac/*.test.ts', 'test/integration/rbac.test.ts'] };

describe('fingerprint', () => {
  const tree = new Map<string, string>([
    ['src/cidr/cidr.ts', 'parse'],
    ['src/cidr/cidr.test.ts', 'test parse'],
    ['src/cidr/README.md', 'docs'],
    ['src/rbac/rules.ts', 'rules'],
    ['src/rbac/other.ts', 'not mutated'],
    ['src/rbac/rules.test.ts', 'test rules'],
    ['test/integration/rbac.test.ts', 'integration'],
  ]);
  const setup: Setup = { options: { timeoutMS: 5000, tap: { forceBail: true } }, versions: { typescript: '5.9.3' }, tsconfig: '{}' };
  const fp = (m: CriticalModule, files: Map<string, string> = tree, s: Setup = setup): string =>
    moduleFingerprint(m, moduleFiles(m, [...files.keys()].sort()), (f) => files.get(f)!, setupFingerprint(s));
  const edited = (path: string, content: string | undefined): Map<string, string> => {
    const copy = new Map(tree);
    if (content === undefined) copy.delete(path);
    else copy.set(path, content);
    return copy;
  };

  test('a module is the sources it mutates and the test files that cover it', () => {
    assert.deepEqual(moduleFiles(rbac, [...tree.keys()].sort()), { sources: ['src/rbac/rules.ts'], tests: ['src/rbac/rules.test.ts', 'test/integration/rbac.test.ts'] });
    assert.deepEqual(moduleFiles(cidr, [...tree.keys()].sort()), { sources: ['src/cidr/cidr.ts'], tests: ['src/cidr/cidr.test.ts'] });
  });

  test('changes with a mutated source, a test file, a test file added or removed', () => {
    const base = fp(rbac);
    assert.equal(fp(rbac), base, 'the same files hash alike');
    assert.notEqual(fp(rbac, edited('src/rbac/rules.ts', 'rules!')), base);
    assert.notEqual(fp(rbac, edited('test/integration/rbac.test.ts', 'integration!')), base);
    assert.notEqual(fp(rbac, edited('src/rbac/more.test.ts', 'new test')), base);
    assert.notEqual(fp(rbac, edited('src/rbac/rules.test.ts', undefined)), base);
    // A file moved keeps its content but not its name.
    const moved = edited('src/rbac/rules.test.ts', undefined);
    moved.set('src/rbac/rules2.test.ts', 'test rules');
    assert.notEqual(fp(rbac, moved), base);
  });

  test('not with files outside the module, nor with another module', () => {
    const base = fp(rbac);
    assert.equal(fp(rbac, edited('src/rbac/other.ts', 'changed')), base);
    assert.equal(fp(rbac, edited('src/cidr/cidr.ts', 'changed')), base);
    assert.equal(fp(rbac, edited('src/rbac/notes.md', 'new')), base);
  });

  test("changes with the module's entry and with the setup: options, tool versions, tsconfig", () => {
    const base = fp(rbac);
    assert.notEqual(fp({ ...rbac, tests: ['src/rbac/*.test.ts'] }), base);
    assert.notEqual(fp({ ...rbac, name: 'rbac2' }), base);
    assert.notEqual(fp(rbac, tree, { ...setup, options: { timeoutMS: 6000, tap: { forceBail: true } } }), base);
    assert.notEqual(fp(rbac, tree, { ...setup, versions: { typescript: '5.9.4' } }), base);
    assert.notEqual(fp(rbac, tree, { ...setup, tsconfig: '{"strict":true}' }), base);
    // What is not about scoring stays out: heldAt and the description.
    assert.equal(fp({ ...rbac, heldAt: 50, what: 'RBAC' }), base);
    // Key order is not content.
    assert.equal(fp(rbac, tree, { ...setup, options: { tap: { forceBail: true }, timeoutMS: 5000 } }), base);
  });

  test('stableJson sorts keys at every depth and drops undefined ones; toolVersions reads the lock', () => {
    assert.equal(stableJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: undefined } }), '{"a":{"d":[2,{"e":0,"f":1}]},"b":1}');
    const lock = { packages: { 'node_modules/typescript': { version: '5.9.3' }, 'node_modules/@stryker-mutator/core': { version: '9.6.1' } } };
    assert.deepEqual(toolVersions(lock), { '@stryker-mutator/core': '9.6.1', '@stryker-mutator/tap-runner': 'missing', '@stryker-mutator/typescript-checker': 'missing', typescript: '5.9.3' });
  });
});

const entry = (over: Partial<ModuleRecord> = {}): ModuleRecord => ({
  score: 90, killed: 90, timeout: 0, survived: 10, noCoverage: 0, errors: 3, ignored: 1, seconds: 120, concurrency: 2, measured: '2025-01-02', fingerprint: 'f', ...over,
});

describe('the record file', () => {
  test('round-trips, modules in the given order, one line each with a blank line between', () => {
    const record = { rbac: entry({ fingerprint: 'r' }), cidr: entry({ score: 98.47 }), gone: entry() };
    const text = formatRecord(record, ['cidr', 'rbac']);
    assert.deepEqual(parseRecord(text), record);
    const lines = text.split('\n');
    const at = (name: string): number => lines.findIndex((l) => l.trimStart().startsWith(`"${name}": {`));
    assert.ok(at('cidr') < at('rbac') && at('rbac') < at('gone'), 'listed modules first, then others by name');
    assert.equal(at('rbac') - at('cidr'), 2);
    assert.equal(lines[at('cidr') + 1], '', 'a blank line between two modules');
  });

  test('a file without modules is refused', () => {
    assert.throws(() => parseRecord('{"cidr": {}}'), /no "modules" object/);
  });
});

describe("CI's plan", () => {
  const options = { budgetSeconds: 480, setupSeconds: 90, concurrency: 4, auditSeed: 0 };
  const mod = (name: string, fingerprint: string, record?: ModuleRecord): CiModule => ({ module: { name, what: '', mutate: [], tests: [] }, fingerprint, record });

  test('a module whose fingerprint matches is recorded; a changed one is stale; one never recorded is named apart', () => {
    const plan = planCi([mod('a', 'x', entry({ fingerprint: 'x' })), mod('b', 'y', entry({ fingerprint: 'old', seconds: 100 })), mod('c', 'z')], options);
    assert.deepEqual(plan.recorded.map((m) => m.module.name), ['a']);
    assert.deepEqual(plan.stale.map((m) => [m.module.name, m.reason]), [['b', 'changed']]);
    assert.deepEqual(plan.unrecorded.map((m) => m.module.name), ['c']);
    // The unrecorded module has no estimate and is not part of the run: the changed one fits.
    assert.equal(plan.estimate, 90 + 100);
    assert.equal(plan.overBudget, false);
    assert.equal(plan.audit, undefined, 'no audit while something is stale');
    const onlyUnrecorded = planCi([mod('a', 'x', entry({ fingerprint: 'x', seconds: 50 })), mod('c', 'z')], options);
    assert.deepEqual([onlyUnrecorded.stale.length, onlyUnrecorded.overBudget, onlyUnrecorded.audit?.module.name], [0, false, 'a']);
  });

  test('stale modules run when setup and their estimates fit the budget, not when they exceed it', () => {
    const fits = planCi([mod('a', 'x', entry({ fingerprint: 'old', seconds: 200 })), mod('b', 'y', entry({ fingerprint: 'old', seconds: 190 }))], options);
    assert.equal(fits.estimate, 90 + 200 + 190);
    assert.equal(fits.overBudget, false);
    const over = planCi([mod('a', 'x', entry({ fingerprint: 'old', seconds: 200 })), mod('b', 'y', entry({ fingerprint: 'old', seconds: 191 }))], options);
    assert.equal(over.estimate, 481);
    assert.equal(over.overBudget, true);
    const none = planCi([mod('a', 'x', entry({ fingerprint: 'x' }))], options);
    assert.deepEqual([none.stale.length, none.estimate, none.overBudget], [0, 0, false]);
  });

  test('a measurement with more test runners than CI has costs more; one with fewer is not credited', () => {
    assert.equal(estimateSeconds(entry({ seconds: 100, concurrency: 8 }), 4), 200);
    assert.equal(estimateSeconds(entry({ seconds: 100, concurrency: 2 }), 4), 100);
    assert.equal(estimateSeconds(entry({ seconds: 100, concurrency: 4 }), 4), 100);
    assert.equal(estimateSeconds(undefined, 4), undefined);
  });

  test('with nothing stale, one recorded module that fits half the budget is audited, turning with the seed', () => {
    const modules = [
      mod('a', 'x', entry({ fingerprint: 'x', seconds: 100 })),
      mod('big', 'y', entry({ fingerprint: 'y', seconds: 151 })),
      mod('c', 'z', entry({ fingerprint: 'z', seconds: 150 })),
    ];
    const audited = [0, 1, 2, 3].map((auditSeed) => planCi(modules, { ...options, auditSeed }).audit?.module.name);
    assert.deepEqual(audited, ['a', 'c', 'a', 'c'], 'big needs 90 + 151 s, over half of 480');
    assert.equal(planCi([modules[1]!], options).audit, undefined);
  });
});

describe('timing', () => {
  const root = '/work/repo';
  test('paths Stryker gives are read as repository paths of the TypeScript sources', () => {
    assert.equal(repoPath('/work/repo/.stryker-tmp/sandbox-AB12/dist/src/cidr/cidr.test.js', root), 'src/cidr/cidr.test.ts');
    assert.equal(repoPath('/work/repo/dist/test/integration/rbac.test.js', root), 'test/integration/rbac.test.ts');
    assert.equal(repoPath('/work/repo/src/rbac/rules.ts', root), 'src/rbac/rules.ts');
    assert.equal(repoPath('src/rbac/rules.ts', root), 'src/rbac/rules.ts');
  });

  test("each module gets its test files' dry-run time and the gaps before its mutants' results", () => {
    const log: TimingLog = {
      started: 0, dryRunEnded: 50_000, planReady: 60_000, ended: 200_000,
      dryRunTests: [
        { file: `${root}/dist/src/cidr/cidr.test.js`, ms: 1_000 },
        { file: `${root}/dist/test/integration/rbac.test.js`, ms: 4_000 },
        { file: `${root}/dist/src/elsewhere.test.js`, ms: 9_000 },
      ],
      // Out of order on purpose: results are sorted by time first.
      mutants: [
        [`${root}/src/rbac/rules.ts`, 100_000],
        [`${root}/src/cidr/cidr.ts`, 70_000],
        [`${root}/src/cidr/cidr.ts`, 80_000],
        [`${root}/src/unlisted.ts`, 110_000],
        [`${root}/src/rbac/rules.ts`, 130_000],
      ],
    };
    const seconds = moduleSeconds(log, [cidr, rbac], root);
    // cidr: 1 s dry run + (70-60) + (80-70); rbac: 4 s + (100-80) + (130-110).
    assert.deepEqual([...seconds], [['cidr', 21], ['rbac', 44]]);
  });
});
