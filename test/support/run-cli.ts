// Runs the real bin (src/main.ts in its own node process, as a user runs platform-apiserver) with
// arguments, bounded in time; resolves with its exit code and output. `spawnCli` leaves the
// process running (crash tests kill it).

import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const entry = ['--import', 'tsx', join(repo, 'src', 'main.ts')];

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string>;
  timeoutMs?: number;
  /** Runs the bin under `ulimit -f` (KiB): writes past it fail with EFBIG, as on a full disk. */
  fileSizeLimitKb?: number;
}

export function runCli(args: string[], opts: RunOptions = {}): Promise<CliResult> {
  const limit = opts.fileSizeLimitKb;
  const [file, argv] = limit === undefined ? [process.execPath, [...entry, ...args]] : ['bash', ['-c', `ulimit -f ${limit} && exec "$@"`, 'bash', process.execPath, ...entry, ...args]];
  return new Promise((resolve) => {
    execFile(file, argv, { cwd: repo, timeout: opts.timeoutMs ?? 60_000, env: { ...process.env, ...opts.env } }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

export function spawnCli(args: string[], env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, [...entry, ...args], { cwd: repo, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
}
