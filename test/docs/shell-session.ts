// One page's shell session (docs/docs-tests.md): one bash process for the whole page, so that
// variables, `export`s and `cd` carry from one command to the next as they do for a reader, in a
// fresh temp dir of its own (HOME too) where `examples/` is the checkout's and `platform-apiserver`
// on PATH is the built server. Each command is one
// unit sourced by test/docs/prelude.sh, which reports its exit status on a pipe of its own;
// every wait is bounded, and close() stops every process the page started (its own process
// group: bash and all it started), then removes the dir.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';

export interface UnitResult {
  status: number;
  output: string;
}

export interface RunOptions {
  /** Bound on the whole command (the prelude bounds its own waits below this). */
  timeoutMs?: number;
  /**
   * For a command run until interrupted (`__docs_for_a_while`): called with its output so far;
   * once it returns true the command is stopped.
   */
  enough?: (output: string) => boolean;
}

/** Environment variables of the test process a reader's shell would not have. */
const DROPPED_ENV = ['KUBECONFIG', 'NODE_TEST_CONTEXT', 'NODE_OPTIONS', 'CLUSTER_DIR', 'CLUSTER_REPLICAS', 'KUBECACHEDIR'];

export class ShellSession {
  private units = 0;
  private statusBuffer = '';
  private readonly waiters = new Set<() => void>();
  private exited = false;
  /** A command still runs (it timed out): the shell cannot take the polite stop. */
  private busy = false;
  private bashOutput = '';

  private constructor(
    readonly work: string,
    private readonly bash: ChildProcess,
  ) {
    const status = bash.stdio[3] as Readable;
    status.on('data', (c: Buffer) => {
      this.statusBuffer += c.toString();
      this.notify();
    });
    for (const stream of [bash.stdout!, bash.stderr!]) stream.on('data', (c: Buffer) => (this.bashOutput += c.toString()));
    bash.once('exit', () => {
      this.exited = true;
      this.notify();
    });
  }

  static start(repo: string, main: string, name: string): ShellSession {
    const work = mkdtempSync(join(tmpdir(), `platform-docs-${name.replace(/\W+/g, '-')}-`));
    const dir = join(work, '.docs');
    mkdirSync(join(dir, 'bin'), { recursive: true });
    mkdirSync(join(work, 'home'));
    symlinkSync(join(repo, 'examples'), join(work, 'examples'));
    // The bin the package puts on PATH, from this checkout's build.
    writeFileSync(join(dir, 'bin', 'platform-apiserver'), `#!/bin/sh\nexec '${process.execPath}' '${main}' "$@"\n`, { mode: 0o755 });
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const k of DROPPED_ENV) delete env[k];
    Object.assign(env, {
      HOME: join(work, 'home'),
      PATH: `${join(dir, 'bin')}:${process.env.PATH ?? ''}`,
      DOCS_REPO: repo,
      DOCS_WORK: work,
      DOCS_NODE: process.execPath,
      DOCS_MAIN: main,
      DOCS_STATUS: '3',
      LC_ALL: 'C.UTF-8',
    });
    // detached: bash leads a process group of its own, which every process of the page joins.
    const bash = spawn('bash', ['--noprofile', '--norc'], { cwd: work, env, detached: true, stdio: ['pipe', 'pipe', 'pipe', 'pipe'] });
    bash.stdin!.write(`source '${join(repo, 'test', 'docs', 'prelude.sh')}'\n`);
    return new ShellSession(work, bash);
  }

  private notify(): void {
    for (const w of [...this.waiters]) w();
  }

  /** Resolves once `check` returns a value (checked on every status line, exit, and every 200 ms), or rejects after `ms`. */
  private waitFor<T>(check: () => T | undefined, ms: number, what: string): Promise<T> {
    return new Promise((resolve, reject) => {
      const attempt = (): void => {
        const value = check();
        if (value === undefined) return;
        done();
        resolve(value);
      };
      const poll = setInterval(attempt, 200);
      const timer = setTimeout(() => {
        done();
        reject(new Error(`${what}: no answer within ${ms / 1000} s`));
      }, ms);
      const done = (): void => {
        clearInterval(poll);
        clearTimeout(timer);
        this.waiters.delete(attempt);
      };
      this.waiters.add(attempt);
      attempt();
    });
  }

  /** Runs one command (shell text) in the session; its output is stdout and stderr together. */
  async run(script: string, opts: RunOptions = {}): Promise<UnitResult> {
    if (this.exited) throw new Error(`the page's shell has exited:\n${this.bashOutput}`);
    const n = ++this.units;
    const dir = join(this.work, '.docs');
    writeFileSync(join(dir, `unit-${n}.sh`), `${script}\n`);
    this.bash.stdin!.write(`__docs_unit ${n}\n`);
    const outFile = join(dir, `unit-${n}.out`);
    const output = (): string => (existsSync(outFile) ? readFileSync(outFile, 'utf8') : '');
    this.busy = true;
    const status = await this.waitFor(
      () => {
        const m = new RegExp(`^status ${n} (\\d+)$`, 'm').exec(this.statusBuffer);
        if (m) return Number(m[1]);
        if (this.exited) return -1;
        if (opts.enough && !existsSync(join(dir, `unit-${n}.stop`)) && opts.enough(output())) writeFileSync(join(dir, `unit-${n}.stop`), '');
        return undefined;
      },
      opts.timeoutMs ?? 120_000,
      `command ${JSON.stringify(script.split('\n')[0])}`,
    );
    this.busy = false;
    if (status === -1) throw new Error(`the page's shell exited during ${JSON.stringify(script)}:\n${this.bashOutput}\n${output()}`);
    return { status, output: output() };
  }

  /** The tail of each server log the page's servers wrote (for a failure's message). */
  serverLogs(lines = 20): string {
    const dir = join(this.work, '.docs');
    return readdirSync(dir)
      .filter((f) => /^(server-\d+|cluster)\.err$/.test(f))
      .map((f) => `--- ${f} (last ${lines} lines)\n${readFileSync(join(dir, f), 'utf8').split('\n').slice(-lines - 1).join('\n')}`)
      .join('\n');
  }

  /** Stops every server and cluster of the page, then anything else left in its process group, and removes its dir. */
  async close(): Promise<void> {
    const pgid = this.bash.pid!;
    try {
      if (!this.exited && !this.busy) {
        this.bash.stdin!.write('__docs_stop_all\nexit 0\n');
        await this.waitFor(() => (this.exited ? true : undefined), 120_000, 'stopping the page').catch(() => undefined);
      }
    } finally {
      // Whatever is left of the group (everything, after a command that timed out) gets SIGTERM,
      // 30 s to go (the cluster stops its members), then SIGKILL.
      signalGroup(pgid, 'SIGTERM');
      for (let i = 0; i < 120 && groupAlive(pgid); i++) await sleep(250);
      signalGroup(pgid, 'SIGKILL');
      for (let i = 0; i < 20 && groupAlive(pgid); i++) await sleep(250);
      const clusterDirFile = join(this.work, '.docs', 'cluster-dir');
      if (existsSync(clusterDirFile)) {
        const clusterDir = readFileSync(clusterDirFile, 'utf8').trim();
        if (clusterDir.startsWith(tmpdir())) rmSync(clusterDir, { recursive: true, force: true });
      }
      rmSync(this.work, { recursive: true, force: true });
    }
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is gone
  }
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}
