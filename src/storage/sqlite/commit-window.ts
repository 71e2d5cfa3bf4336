// Group commit's window: when the writer is free and only a few writes are queued while the last
// batch held many, the few wait a little for the rest of the group before taking a sync of
// their own.
//
// Why: a closed loop of N clients (16 connections creating) answers its N writes together; the
// follow-up writes those answers cause at once (the ServiceCIDR controller's finalizer and Ready
// condition, made in the same turn) reach the store before the N clients' next requests have
// come back over the network. Sent at once they would take the writer, and the N next writes
// would wait a whole commit behind them: every other sync would carry only the follow-ups, and
// the clients' rate would halve. Waiting at most about one commit's time (kept as a running
// mean, capped), and not at all once as many writes are queued as the last batch held, lets them
// share one sync (as PostgreSQL's commit_delay or MySQL's binlog group commit delay do).
// A lone writer (last batch of one) never waits; nothing is acknowledged before its sync.

/** The longest a batch waits for its group, whatever the commits have cost. */
export const MAX_HOLD_MS = 2;
/** Below this the wait is not worth a timer: send at once. */
const MIN_HOLD_MS = 0.2;
/** Weight of the newest commit in the running mean of commit times. */
const ALPHA = 0.2;

export class CommitWindow {
  /** `fixedHoldMs`: wait this long instead of the running mean (0: never wait). */
  constructor(private readonly fixedHoldMs?: number) {}

  /** Writes in the batch last sent: how many writers took part in the last round. */
  private lastSize = 0;
  /** Running mean of a batch's time in the writer, hand-over to report (ms). */
  private commitMs = 0;

  /**
   * How long `queued` writes should wait for the rest of their group before they go (0: now).
   * Asked only while the writer has nothing in flight.
   */
  holdMs(queued: number): number {
    if (this.lastSize <= 1 || queued >= this.lastSize) return 0;
    if (this.fixedHoldMs !== undefined) return this.fixedHoldMs;
    const wait = Math.min(this.commitMs, MAX_HOLD_MS);
    return wait < MIN_HOLD_MS ? 0 : wait;
  }

  /** How many queued writes make the group complete: as many as the last batch held. */
  get target(): number {
    return this.lastSize;
  }

  sent(size: number): void {
    this.lastSize = size;
  }

  committed(ms: number): void {
    this.commitMs = this.commitMs === 0 ? ms : this.commitMs + ALPHA * (ms - this.commitMs);
  }
}
