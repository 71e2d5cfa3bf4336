// Named steps of the commands that write a store or a snapshot (restore, migrate, save, defrag),
// where a test can stop the real process to kill it there with SIGKILL:
// PLATFORM_APISERVER_TEST_PAUSE_AT=<command>:<step>[,…] makes the command print
// `paused at <command>:<step>` on stderr when it reaches that step and then wait (at most ten
// minutes) without doing anything more. Used only by tests (docs/backup-and-restore.md lists
// the steps); unset, a pause point costs one lookup.

import { writeSync } from 'node:fs';

export const PAUSE_ENV = 'PLATFORM_APISERVER_TEST_PAUSE_AT';
const MAX_PAUSE_MS = 10 * 60 * 1000;

/** Stops here if the environment names this step (`command:step`). */
export function pausePoint(step: string): void {
  const wanted = process.env[PAUSE_ENV];
  if (!wanted || !wanted.split(',').includes(step)) return;
  // Written synchronously: the test reads it and kills the process while it waits below.
  writeSync(2, `paused at ${step}\n`);
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, MAX_PAUSE_MS);
}
