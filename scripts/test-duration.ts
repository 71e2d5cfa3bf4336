// `npm test`'s pretest and posttest: before, say what the run does and how long to expect (the
// last full run's time on this machine, or the documented estimate); after a run that passed,
// say how long it took and remember it. The record lives in node_modules/.cache (never committed;
// TEST_RUNS_FILE names another file).
//
//   node --import tsx scripts/test-duration.ts start|end

import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const RECORD = process.env.TEST_RUNS_FILE || join(repo, 'node_modules', '.cache', 'platform-apiserver', 'test-runs.json');
/** README's figure for a full run on a 2-core machine. */
const ESTIMATE = '10-20 minutes on 2 cores';

interface RunRecord {
  /** When the current run started (ms since the epoch). */
  startedAt?: number;
  /** The last full run that passed: how long it took, and when it ended. */
  lastMs?: number;
  lastEndedAt?: number;
}

function read(): RunRecord {
  try {
    return JSON.parse(readFileSync(RECORD, 'utf8')) as RunRecord;
  } catch {
    return {};
  }
}

function write(r: RunRecord): void {
  mkdirSync(dirname(RECORD), { recursive: true });
  writeFileSync(RECORD, `${JSON.stringify(r)}\n`);
}

function minutes(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}

/** The test files npm test runs (its `find src test -name '*.test.ts'`). */
function countTestFiles(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) n += countTestFiles(join(dir, e.name));
    else if (e.name.endsWith('.test.ts')) n += 1;
  }
  return n;
}

const phase = process.argv[2];
const record = read();
if (phase === 'start') {
  const files = countTestFiles(join(repo, 'src')) + countTestFiles(join(repo, 'test'));
  const expect = record.lastMs ? `the last full run here took ${minutes(record.lastMs)} (${new Date(record.lastEndedAt!).toISOString().slice(0, 16).replace('T', ' ')} UTC)` : `no run recorded here yet: about ${ESTIMATE}`;
  process.stderr.write(`npm test: typecheck, layer rules, then ${files} test files, two at a time; ${expect}\n`);
  write({ ...record, startedAt: Date.now() });
} else if (phase === 'end') {
  if (record.startedAt) {
    const ms = Date.now() - record.startedAt;
    process.stderr.write(`npm test: passed in ${minutes(ms)}\n`);
    write({ lastMs: ms, lastEndedAt: Date.now() });
  }
} else {
  process.stderr.write('usage: test-duration.ts start|end\n');
  process.exit(2);
}
