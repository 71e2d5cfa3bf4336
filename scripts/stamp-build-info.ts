// `npm run build`'s last step (so `npm pack`, whose prepare builds, stamps too): writes
// dist/build-info.json, which src/version.ts reads: our version (package.json's), the git commit
// and tree state (clean, or dirty with uncommitted or untracked files, as kube's build says), and
// the build date (UTC, seconds; SOURCE_DATE_EPOCH when set, for reproducible builds). A packed
// tarball has no .git: it carries this file. Outside a git checkout the git fields are ''.
//
//   node dist/scripts/stamp-build-info.js [--repo DIR] [--out FILE]   (defaults: ., DIR/dist/build-info.json)

import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { BUILD_INFO_FILE, type BuildInfo } from '../src/version.js';

/** git's answer in `repo`, or undefined when there is no git or no checkout. */
function git(repo: string, args: string[]): string | undefined {
  try {
    return execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 30_000 });
  } catch {
    return undefined;
  }
}

function buildDate(): string {
  const epoch = process.env.SOURCE_DATE_EPOCH;
  const date = epoch && /^\d+$/.test(epoch) ? new Date(Number(epoch) * 1000) : new Date();
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function buildInfo(repo: string): BuildInfo {
  const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { version?: string };
  if (!pkg.version) throw new Error(`${join(repo, 'package.json')} has no version`);
  const commit = git(repo, ['rev-parse', 'HEAD'])?.trim() ?? '';
  const status = commit ? git(repo, ['status', '--porcelain']) : undefined;
  return { version: pkg.version, gitCommit: commit, gitTreeState: status === undefined ? '' : status.trim() ? 'dirty' : 'clean', buildDate: buildDate() };
}

function main(): void {
  const { values } = parseArgs({ options: { repo: { type: 'string' }, out: { type: 'string' } } });
  const repo = resolve(values.repo ?? '.');
  const out = resolve(values.out ?? join(repo, 'dist', BUILD_INFO_FILE));
  const info = buildInfo(repo);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(`${out}.tmp`, `${JSON.stringify(info, null, 2)}\n`);
  renameSync(`${out}.tmp`, out);
}

main();
