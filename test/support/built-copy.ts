// A private copy of this checkout's build (dist/src and the stamp), for tests that run the built
// server as `npm start` does. Private because `npm pack` (test/packaging/install.test.ts, which
// may run meanwhile) rebuilds dist/ in place, removing it first. The copy sits under
// node_modules/.cache so that its imports resolve to the checkout's node_modules.
//
// dist/build-info.json is written last by `npm run build`: a copy taken while it existed and had
// the same modification time before and after is one whole build. A build older than the sources
// (a working tree edited since `npm ci`) is rebuilt first.

import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface BuiltCopy {
  /** The copy's dist/src/main.js. */
  main: string;
  /** The copy's root (holding dist/). */
  dir: string;
  remove(): void;
}

const BUILD_TIMEOUT_MS = 5 * 60_000;
/** How long a build under way elsewhere may take to finish before this gives up. */
const WAIT_FOR_BUILD_MS = 10 * 60_000;

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

const stampTime = (repo: string): number | undefined => {
  try {
    return statSync(join(repo, 'dist', 'build-info.json')).mtimeMs;
  } catch {
    return undefined;
  }
};

function build(repo: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('npm', ['run', 'build', '--silent'], { cwd: repo, timeout: BUILD_TIMEOUT_MS }, (err, _out, stderr) => (err ? reject(new Error(`npm run build failed: ${stderr || err.message}`)) : resolve()));
  });
}

export async function builtCopy(repo: string): Promise<BuiltCopy> {
  const stamp = stampTime(repo);
  if (stamp === undefined ? !existsSync(join(repo, 'dist')) : stamp < newest(join(repo, 'src'))) await build(repo);
  const cache = join(repo, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, 'platform-apiserver-built-'));
  const deadline = Date.now() + WAIT_FOR_BUILD_MS;
  for (;;) {
    const before = stampTime(repo);
    if (before !== undefined) {
      try {
        rmSync(join(dir, 'dist'), { recursive: true, force: true });
        cpSync(join(repo, 'dist', 'src'), join(dir, 'dist', 'src'), { recursive: true, filter: (p) => !p.endsWith('.map') });
        cpSync(join(repo, 'dist', 'build-info.json'), join(dir, 'dist', 'build-info.json'));
        // package.json too, so that `npm start` runs in the copy as in the checkout.
        cpSync(join(repo, 'package.json'), join(dir, 'package.json'));
        if (stampTime(repo) === before) break;
      } catch {
        // dist/ went away while being copied: a build started; wait for it below
      }
    }
    if (Date.now() > deadline) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`no whole build in ${join(repo, 'dist')} within ${WAIT_FOR_BUILD_MS / 60_000} min`);
    }
    await sleep(2000);
  }
  return { dir, main: join(dir, 'dist', 'src', 'main.js'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}
