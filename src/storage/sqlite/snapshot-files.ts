// A directory of snapshots, as `snapshot ls`, `delete` and `prune` and the server's schedule see
// it: every finished snapshot in it (a save's temporary file is never one; a file that is not
// one of our snapshots is left out), newest first; the names scheduled snapshots get; and
// retention, which removes only scheduled snapshots, oldest first, as k3s prunes only its own.

import Database from 'better-sqlite3';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isPartialName, readSnapshotInfo } from './snapshot-format.js';

/** Scheduled snapshots are named `scheduled-<UTC time>.db`; retention prunes only these. */
export const SCHEDULED_PREFIX = 'scheduled-';

export interface ListedSnapshot {
  name: string;
  file: string;
  revision: number;
  sizeBytes: number;
  createdAt: string;
}

/** `scheduled-20260101T120000.000Z.db`: sorts by time, and is a valid file name everywhere. */
export function scheduledName(at: Date): string {
  return `${SCHEDULED_PREFIX}${at.toISOString().replace(/[-:]/g, '')}.db`;
}

/** The metadata of a file that is one of our snapshots (no integrity check: `status` does that). */
function quickLook(file: string): { revision: number; createdAt: string } | undefined {
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    const info = readSnapshotInfo(db);
    return 'foreign' in info ? undefined : { revision: info.revision, createdAt: info.createdAt };
  } catch {
    return undefined;
  } finally {
    db?.close();
  }
}

/** The finished snapshots in `dir`, newest first; none if the directory does not exist. */
export function listSnapshots(dirPath: string): ListedSnapshot[] {
  const dir = resolve(dirPath);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const found: ListedSnapshot[] = [];
  for (const name of names) {
    if (isPartialName(name) || name.startsWith('.')) continue;
    const file = join(dir, name);
    let st;
    try {
      st = statSync(file);
    } catch {
      continue;
    }
    if (!st.isFile()) continue;
    const info = quickLook(file);
    if (info) found.push({ name, file, revision: info.revision, sizeBytes: st.size, createdAt: info.createdAt });
  }
  return found.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.name.localeCompare(a.name));
}

/** Removes scheduled snapshots past the newest `retention`; returns what it removed. */
export function pruneSnapshots(dir: string, retention: number): ListedSnapshot[] {
  const scheduled = listSnapshots(dir).filter((s) => s.name.startsWith(SCHEDULED_PREFIX));
  const removed = scheduled.slice(Math.max(0, retention));
  for (const s of removed) rmSync(s.file, { force: true });
  return removed;
}
