// client-go's rate-limited work queue, in small: a key is queued at most once, is never handed
// to two workers at once (a key re-added while it is being processed is queued again when
// done()), can be added after a delay, and failures back off exponentially per key
// (5 ms · 2^n, capped: apimachinery's backoffStep), so a conflict or a bad object is retried
// without a hot loop.

import type { Clock, TimerHandle } from './clock.js';
import { backoffStep, type BackoffOptions } from '../apimachinery/backoff.js';

/** client-go's per-item default: 5 ms doubling up to 1000 s. */
export const ITEM_BACKOFF: BackoffOptions = { initialMs: 5, maxMs: 1000_000 };

export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly delayed = new Map<string, { at: number; timer: TimerHandle }>();
  private waiters: ((key: string | undefined) => void)[] = [];
  private shuttingDown = false;

  constructor(
    private readonly clock: Clock,
    private readonly backoff: BackoffOptions = ITEM_BACKOFF,
  ) {}

  add(key: string): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    const waiter = this.waiters.shift();
    if (waiter) {
      this.dirty.delete(key);
      this.processing.add(key);
      waiter(key);
    } else this.queue.push(key);
  }

  /** Adds `key` after `ms`; an earlier pending delayed add of the same key wins. */
  addAfter(key: string, ms: number): void {
    if (this.shuttingDown) return;
    if (ms <= 0) return this.add(key);
    const at = this.clock.now().getTime() + ms;
    const existing = this.delayed.get(key);
    if (existing && existing.at <= at) return;
    existing?.timer.cancel();
    const timer = this.clock.after(ms, () => {
      this.delayed.delete(key);
      this.add(key);
    });
    this.delayed.set(key, { at, timer });
  }

  /** Re-adds a key that failed, after its next backoff step. */
  addRateLimited(key: string): void {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    this.addAfter(key, backoffStep(n, this.backoff));
  }

  /** The key's failures are over (it synced, or it is given up on). */
  forget(key: string): void {
    this.failures.delete(key);
  }

  numRequeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  /** The next key to process; undefined once shut down. */
  get(): Promise<string | undefined> {
    if (this.shuttingDown) return Promise.resolve(undefined);
    const key = this.queue.shift();
    if (key !== undefined) {
      this.dirty.delete(key);
      this.processing.add(key);
      return Promise.resolve(key);
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Processing of `key` finished; if it was added meanwhile it is queued again. */
  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.has(key)) {
      this.dirty.delete(key);
      this.add(key);
    }
  }

  get length(): number {
    return this.queue.length;
  }

  shutDown(): void {
    this.shuttingDown = true;
    for (const d of this.delayed.values()) d.timer.cancel();
    this.delayed.clear();
    for (const w of this.waiters.splice(0)) w(undefined);
  }
}
