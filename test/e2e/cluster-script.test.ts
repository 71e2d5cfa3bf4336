// `npm run cluster` (scripts/cluster.ts) as a user runs it, in its own process group as a
// terminal runs it: each step is told as it starts and ends, the replicas serve with the printed
// kubeconfigs, and Ctrl-C (SIGINT to npm's whole process group), after start-up or in the middle
// of it, stops every process it started and removes its temp dir.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { requireEtcd } from '../support/etcd-process.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

interface Cluster {
  npm: ChildProcess;
  stderr(): string;
  stdout(): string;
  /** Resolves once `what` matches the output (stderr and stdout), bounded. */
  waitFor(what: RegExp, timeoutMs: number): Promise<RegExpExecArray>;
  exited: Promise<void>;
}

function startCluster(replicas: number): Cluster {
  // detached: its own process group, as a shell's job is; Ctrl-C signals the whole group.
  const env: NodeJS.ProcessEnv = { ...process.env, CLUSTER_REPLICAS: String(replicas) };
  delete env.CLUSTER_DIR;
  const npm = spawn('npm', ['run', '--silent', 'cluster'], { cwd: repo, detached: true, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const waiters = new Set<() => void>();
  const changed = (): void => waiters.forEach((w) => w());
  npm.stdout!.on('data', (c: Buffer) => ((out += c.toString()), changed()));
  npm.stderr!.on('data', (c: Buffer) => ((err += c.toString()), changed()));
  const exited = new Promise<void>((resolve) => npm.once('exit', () => resolve()));
  return {
    npm,
    stderr: () => err,
    stdout: () => out,
    exited,
    waitFor: (what, timeoutMs) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          const m = what.exec(err + out);
          if (m) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(m);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no ${what} within ${timeoutMs} ms; stderr:\n${err}\nstdout:\n${out}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
  };
}

/** The pids still in the process group (ps lists none once every member exited). */
function groupMembers(pgid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '-g', String(pgid)], { encoding: 'utf8' }).split('\n').map(Number).filter(Boolean);
  } catch {
    return []; // ps exits 1 when it lists nothing
  }
}

/** Ctrl-C: SIGINT to the whole group; resolves once npm exited (bounded), with the group's leftovers. */
async function interrupt(c: Cluster): Promise<number[]> {
  const pgid = c.npm.pid!;
  process.kill(-pgid, 'SIGINT');
  const stopped = await Promise.race([c.exited.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), 60_000))]);
  assert.ok(stopped, `npm run cluster still running 60 s after SIGINT; stderr:\n${c.stderr()}`);
  // Members exit right after npm; give them a moment, bounded.
  for (let i = 0; i < 50 && groupMembers(pgid).length; i++) await new Promise((r) => setTimeout(r, 100));
  return groupMembers(pgid);
}

/** Whatever a failed test left: killed, and its dir removed. */
function cleanUp(c: Cluster, dir: string | undefined): void {
  const pgid = c.npm.pid!;
  if (groupMembers(pgid).length) process.kill(-pgid, 'SIGKILL');
  if (dir) rmSync(dir, { recursive: true, force: true });
}

function getReadyz(url: string, kubeconfigPath: string): Promise<number> {
  const kc = parseYaml(readFileSync(kubeconfigPath, 'utf8'));
  const ca = Buffer.from(kc.clusters[0].cluster['certificate-authority-data'], 'base64').toString();
  return new Promise((resolve, reject) => {
    https
      .get(`${url}/readyz`, { ca, headers: { Authorization: `Bearer ${kc.users[0].user.token}` }, timeout: 30_000 }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      })
      .on('error', reject);
  });
}

describe('npm run cluster', () => {
  test('tells each step; the replicas serve; Ctrl-C to the process group stops everything and removes the files', async () => {
    if (!requireEtcd('npm run cluster starts a 3-member etcd')) return;
    const c = startCluster(2);
    let dir: string | undefined;
    try {
      dir = (await c.waitFor(/^cluster: files under (\S+) \(removed on exit\)$/m, 120_000))[1]!;
      await c.waitFor(/Ctrl-C stops everything\./, 300_000);
      const steps = c.stderr().split('\n').filter((l) => l.startsWith('cluster: ')).map((l) => l.replace(/\(\d+\.\d s\)/, '(T)').replace(/https?:\/\/127\.0\.0\.1:\d+/g, 'URL'));
      assert.deepEqual(steps.slice(0, 5), [
        `cluster: files under ${dir} (removed on exit)`,
        `cluster: etcd: starting 3 members in ${join(dir, 'etcd')}...`,
        'cluster: etcd: 3 members healthy at URL,URL,URL (T)',
        'cluster: certificates: one CA, serving certificate and admin token for every replica',
        'cluster: replicas: starting 2 (URL, URL)...',
      ]);
      assert.deepEqual(steps.slice(5).sort(), ['cluster: replica 0 ready at URL (T)', 'cluster: replica 1 ready at URL (T)']);
      for (const m of c.stdout().matchAll(/^replica \d: (https:\S+) {3}KUBECONFIG=(\S+)$/gm)) assert.equal(await getReadyz(m[1]!, m[2]!), 200);
      const left = await interrupt(c);
      assert.deepEqual(left, [], 'no process of the group is left');
      assert.equal(existsSync(dir), false, 'the temp dir is removed');
      assert.match(c.stderr(), /cluster: stopping replicas and etcd\.\.\.\ncluster: stopped\n/);
    } finally {
      cleanUp(c, dir);
    }
  });

  test('Ctrl-C while the replicas start stops what was started, leaving no process or file', async () => {
    if (!requireEtcd('npm run cluster starts a 3-member etcd')) return;
    const c = startCluster(1);
    let dir: string | undefined;
    try {
      dir = (await c.waitFor(/^cluster: files under (\S+) \(removed on exit\)$/m, 120_000))[1]!;
      await c.waitFor(/^cluster: replicas: starting/m, 180_000);
      const left = await interrupt(c);
      assert.deepEqual(left, [], 'no process of the group is left');
      assert.equal(existsSync(dir), false, 'the temp dir is removed');
      assert.doesNotMatch(c.stdout(), /Ctrl-C stops everything/, 'stopped before it was up');
    } finally {
      cleanUp(c, dir);
    }
  });
});
