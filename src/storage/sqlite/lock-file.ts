// One process per database file: a lock file holding the owner's pid, taken with O_EXCL.
// A lock left by a process that no longer exists is taken over.

import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { StorageError } from '../revisioned-store.js';

export interface LockFile {
  release(): void;
}

function ownerAlive(path: string): boolean {
  try {
    const pid = Number(readFileSync(path, 'utf8').trim());
    if (!Number.isInteger(pid) || pid <= 0) return false;
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function acquireLockFile(path: string): LockFile {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          try {
            unlinkSync(path);
          } catch {
            // Already gone: nothing to release.
          }
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (ownerAlive(path)) break;
      unlinkSync(path);
    }
  }
  throw new StorageError('Unavailable', `the database is in use by another process (lock file ${path})`);
}
