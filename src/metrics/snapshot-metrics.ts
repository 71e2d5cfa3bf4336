// Scheduled snapshot metrics (the SQLite store's schedule reports through SnapshotObserver):
// saves and failures, the time of the last success (alert on `time() - it` growing past the
// schedule's period), and the last snapshot's size, revision and save duration.

import { Counter, Gauge, type Registry } from 'prom-client';
import type { SnapshotObserver } from '../storage/sqlite/snapshot-schedule.js';

export class SnapshotMetrics implements SnapshotObserver {
  private readonly saves: Counter;
  private readonly failures: Counter;
  private readonly lastSuccess: Gauge;
  private readonly lastSize: Gauge;
  private readonly lastRevision: Gauge;
  private readonly lastDuration: Gauge;

  constructor(registry: Registry) {
    const registers = [registry];
    this.saves = new Counter({ name: 'platform_apiserver_snapshot_saves_total', help: 'Scheduled snapshots saved.', registers });
    this.failures = new Counter({ name: 'platform_apiserver_snapshot_failures_total', help: 'Scheduled snapshots that failed.', registers });
    this.lastSuccess = new Gauge({
      name: 'platform_apiserver_snapshot_last_success_timestamp_seconds',
      help: 'Unix time of the last scheduled snapshot saved (0: none since the server started).',
      registers,
    });
    this.lastSize = new Gauge({ name: 'platform_apiserver_snapshot_last_size_bytes', help: 'Size of the last scheduled snapshot saved.', registers });
    this.lastRevision = new Gauge({ name: 'platform_apiserver_snapshot_last_revision', help: 'Store revision held by the last scheduled snapshot saved.', registers });
    this.lastDuration = new Gauge({ name: 'platform_apiserver_snapshot_last_duration_seconds', help: 'How long the last scheduled snapshot took to save.', registers });
  }

  snapshotSaved(saved: { revision: number; sizeBytes: number; durationSeconds: number; finishedAt: Date }): void {
    this.saves.inc();
    this.lastSuccess.set(saved.finishedAt.getTime() / 1000);
    this.lastSize.set(saved.sizeBytes);
    this.lastRevision.set(saved.revision);
    this.lastDuration.set(saved.durationSeconds);
  }

  snapshotFailed(): void {
    this.failures.inc();
  }
}
