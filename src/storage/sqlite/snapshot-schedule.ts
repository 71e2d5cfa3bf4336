// Scheduled snapshots of the SQLite store inside the server (k3s's --etcd-snapshot-schedule-cron
// and --etcd-snapshot-retention): at each time of the cron expression (croner: five fields, or
// six with seconds first) a snapshot is saved on a worker thread into the snapshot dir under a
// scheduled name, then scheduled snapshots past the retention are removed. A failure is reported
// (logged and counted by the caller's observer) and the schedule goes on; a save still running
// when the next time comes makes that time skip. Reports through SnapshotObserver, which this
// layer owns (src/metrics implements it).

import { Cron } from 'croner';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { SavedSnapshot, SaveSnapshotOptions } from './snapshot-save.js';
import { pruneSnapshots, scheduledName, type ListedSnapshot } from './snapshot-files.js';
import { spawnStorageWorker } from './worker-spawn.js';

export interface SnapshotObserver {
  snapshotSaved(saved: { revision: number; sizeBytes: number; durationSeconds: number; finishedAt: Date }): void;
  snapshotFailed(): void;
}

export const noopSnapshotObserver: SnapshotObserver = { snapshotSaved() {}, snapshotFailed() {} };

export interface SnapshotScheduleOptions {
  /** Five fields (minute first), or six with seconds first. */
  cron: string;
  dbPath: string;
  dir: string;
  /** Scheduled snapshots kept (the newest); 0 keeps all. */
  retention: number;
  observer: SnapshotObserver;
  onSaved(saved: SavedSnapshot, pruned: ListedSnapshot[]): void;
  onError(err: unknown): void;
}

export interface SnapshotSchedule {
  /** The next time a snapshot is due. */
  next(): Date | null;
  /** Stops the schedule; waits for a save in progress to end. */
  stop(): Promise<void>;
}

/** Throws a one-line error for an expression croner does not take (flag parsing calls this). */
export function checkCronExpression(expression: string): void {
  new Cron(expression, { mode: '5-or-6-parts', paused: true }).stop();
}

/** One save on a worker thread. */
function saveInWorker(opts: SaveSnapshotOptions): Promise<SavedSnapshot> {
  return new Promise((resolve, reject) => {
    const worker = spawnStorageWorker('snapshot-save-worker', opts);
    let answered = false;
    worker.once('message', (m: { saved?: SavedSnapshot; error?: string }) => {
      answered = true;
      if (m.saved) resolve(m.saved);
      else reject(new Error(m.error ?? 'snapshot save failed'));
    });
    worker.once('error', (err) => {
      answered = true;
      reject(err);
    });
    worker.once('exit', (code) => {
      if (!answered) reject(new Error(`snapshot thread exited (code ${code})`));
    });
  });
}

export function startSnapshotSchedule(o: SnapshotScheduleOptions): SnapshotSchedule {
  let running: Promise<void> | undefined;
  const run = async (): Promise<void> => {
    try {
      mkdirSync(o.dir, { recursive: true, mode: 0o700 });
      const saved = await saveInWorker({ dbPath: o.dbPath, file: join(o.dir, scheduledName(new Date())) });
      const pruned = o.retention > 0 ? pruneSnapshots(o.dir, o.retention) : [];
      o.observer.snapshotSaved({ revision: saved.revision, sizeBytes: saved.sizeBytes, durationSeconds: saved.durationMs / 1000, finishedAt: new Date() });
      o.onSaved(saved, pruned);
    } catch (err) {
      o.observer.snapshotFailed();
      o.onError(err);
    }
  };
  const job = new Cron(o.cron, { mode: '5-or-6-parts', protect: true, unref: true }, () => {
    running = run().finally(() => (running = undefined));
    return running;
  });
  return {
    next: () => job.nextRun(),
    async stop() {
      job.stop();
      await running;
    },
  };
}
