// kill -9 of the real bin at a named step, and what a server then does on what it left. A command
// run with PLATFORM_APISERVER_TEST_PAUSE_AT=<step> (src/storage/sqlite/pause-point.ts) says
// `paused at <step>` on stderr and waits there; the test kills it with SIGKILL, the real signal,
// nothing caught. Then a real server is started on the target: it must refuse with one line, or
// (when the command had finished) serve the whole store.

import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { spawnCli, type CliResult } from './run-cli.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
}

/** Runs the bin until it pauses at `step`, then kills it with SIGKILL; returns what it said on stderr. */
export async function killAt(args: string[], step: string, timeoutMs = 180_000): Promise<string> {
  const child = spawnCli(args, { PLATFORM_APISERVER_TEST_PAUSE_AT: step });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  try {
    const end = Date.now() + timeoutMs;
    while (!stderr.includes(`paused at ${step}`) && child.exitCode === null && Date.now() < end) await sleep(20);
    assert.match(stderr, new RegExp(`paused at ${step}`), `the command reached ${step} (it said: ${stderr})`);
  } finally {
    child.kill('SIGKILL');
    await exited(child);
  }
  assert.equal(child.signalCode, 'SIGKILL', 'killed by SIGKILL, not ended on its own');
  return stderr;
}

/** Kills the bin with SIGKILL once `when()` holds (polled), or once it ended by itself; says which. */
export async function killWhen(args: string[], when: () => boolean | Promise<boolean>, timeoutMs = 180_000): Promise<'killed' | 'finished'> {
  const child = spawnCli(args);
  const end = Date.now() + timeoutMs;
  while (child.exitCode === null && !(await when()) && Date.now() < end) await sleep(2);
  if (child.exitCode !== null) return 'finished';
  child.kill('SIGKILL');
  await exited(child);
  return child.signalCode === 'SIGKILL' ? 'killed' : 'finished';
}

/**
 * Starts a server (the real bin) on `serverArgs` expecting it to refuse: exit 1, one line on
 * stderr, never ready (a server that becomes ready is stopped at once and the test fails).
 */
export async function assertServerRefuses(serverArgs: string[], pattern: RegExp): Promise<CliResult> {
  const child = spawnCli(['--secure-port', '0', '--log-level', 'warn', ...serverArgs]);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const end = Date.now() + 90_000;
  while (child.exitCode === null && !stdout.includes('ready at') && Date.now() < end) await sleep(20);
  if (child.exitCode === null) {
    child.kill('SIGKILL');
    await exited(child);
  }
  assert.doesNotMatch(stdout, /ready at/, `the server must not start on what the killed command left; it served it (stderr: ${stderr})`);
  assert.equal(child.exitCode, 1, `the server refused (stderr: ${stderr})`);
  const lines = stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line: ${stderr}`);
  assert.match(lines[0]!, pattern);
  return { code: child.exitCode!, stdout, stderr };
}

/** The command a refusal names (between backquotes), as arguments to the bin (without `platform-apiserver`). */
export function namedCommand(refusal: string): string[] {
  const m = /`platform-apiserver ([^`]+)`/.exec(refusal);
  assert.ok(m, `the refusal names a command: ${refusal}`);
  // The paths in these tests need no quoting: split on spaces.
  return m[1]!.split(' ');
}
