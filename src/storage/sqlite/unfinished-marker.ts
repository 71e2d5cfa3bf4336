// The mark of a data dir whose store is being written by a command (snapshot restore, migrate
// from etcd): `state.db.unfinished` beside the database, written and synced before the command
// writes anything else and removed, synced, only after the new store is complete, verified and
// renamed into place. While it exists no server starts on the dir: a command killed at any
// step (kill -9, a power cut) leaves it, and the server names that command and what to run. The
// same command run again removes what the interrupted run left and completes.

import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';

export interface UnfinishedMark {
  /** The command line that writes the store (absolute paths), to run again. */
  command: string;
  /** The doc page that says what the command leaves and how to finish or undo it. */
  doc: string;
  pid: number;
  host: string;
  /** ISO 8601, UTC. */
  startedAt: string;
}

/** What a data dir with this mark holds cannot be served: the message says what to run. */
export class UnfinishedStoreError extends Error {
  override name = 'UnfinishedStoreError';
}

export const markerPathFor = (dbPath: string): string => `${dbPath}.unfinished`;

/** Syncs a file's data, or a directory's entries, to disk. */
export function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Writes the mark (under a temporary name, synced, renamed, the directory synced): it is on disk before the caller writes anything. */
export function markUnfinished(dbPath: string, mark: Pick<UnfinishedMark, 'command' | 'doc'>): UnfinishedMark {
  const full: UnfinishedMark = { ...mark, pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
  const path = markerPathFor(dbPath);
  const temp = `${path}.${process.pid}.tmp`;
  const fd = openSync(temp, 'w', 0o600);
  try {
    writeSync(fd, `${JSON.stringify(full)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
  fsyncPath(dirname(path));
  return full;
}

/** The mark, if the data dir has one (a damaged one still marks the dir unfinished). */
export function readUnfinished(dbPath: string): UnfinishedMark | undefined {
  let text: string;
  try {
    text = readFileSync(markerPathFor(dbPath), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const m = JSON.parse(text) as Partial<UnfinishedMark>;
    if (typeof m.command === 'string' && typeof m.pid === 'number') {
      return { command: m.command, doc: String(m.doc ?? 'docs/backup-and-restore.md'), pid: m.pid, host: String(m.host ?? ''), startedAt: String(m.startedAt ?? '') };
    }
  } catch {
    // Cut short by a crash while it was first written: still a mark.
  }
  return { command: 'a platform-apiserver command', doc: 'docs/backup-and-restore.md', pid: 0, host: '', startedAt: '' };
}

/** Removes the mark and syncs the directory: the store is complete from here on. */
export function clearUnfinished(dbPath: string): void {
  rmSync(markerPathFor(dbPath), { force: true });
  fsyncPath(dirname(dbPath));
}

function processAlive(pid: number): boolean {
  if (pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether the command that wrote the mark is still running (on this host: elsewhere it cannot be told). */
export const markOwnerRunning = (mark: UnfinishedMark): boolean => mark.host === hostname() && processAlive(mark.pid);

/** The one line a server (or a command refusing the dir) says about a marked data dir. */
export function unfinishedMessage(where: string, mark: UnfinishedMark): string {
  const who = mark.pid ? ` (pid ${mark.pid}${mark.host ? ` on ${mark.host}` : ''}, started ${mark.startedAt})` : '';
  if (markOwnerRunning(mark)) return `${where} is being written by \`${mark.command}\`${who}, still running: wait for it to finish`;
  return (
    `${where} holds an unfinished store: \`${mark.command}\`${who} did not finish; ` +
    `run that command again to finish it (it first removes what the interrupted run left), or empty ${where} to start a new store (${mark.doc})`
  );
}

/** Throws UnfinishedStoreError if the data dir of `dbPath` is marked unfinished. */
export function assertFinished(dbPath: string): void {
  const mark = readUnfinished(dbPath);
  if (mark) throw new UnfinishedStoreError(unfinishedMessage(`data dir ${dirname(dbPath)}`, mark));
}

/** A command line for the mark: arguments that need it are single-quoted, as a shell reads them. */
export function commandLine(args: readonly string[]): string {
  return args.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}
