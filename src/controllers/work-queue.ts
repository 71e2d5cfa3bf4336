// client-go's rate-limited work queue, in small: a key is queued at most once, is never handed
// to two workers at once (a key re-added while it is being processed is queued again when
// done()), can be added after a delay, and failures back off exponentially per key
// (5 ms · 2^n, capped: apimachinery's backoffStep), so a conflict or a bad object is retried
// without a hot loop. Keys are handed out in the order they were queued (O(1) each: Fifo).
//
// Workers share one event loop with the server: a sync that needs no I/O (most of a restart's
// first pass) resolves in microtasks, and a queue of 100,000 such keys would hold every request
// for as long. So once a turn of work has run for `yieldAfterMs`, the next get() resolves only
// after the event loop has run (setImmediate, shared by every waiting worker): I/O, timers and
// requests go between, as Go's scheduler lets other goroutines run beside client-go's workers.

import type { Clock, TimerHandle } from './clock.js';
import { backoffStep, type BackoffOptions } from '../apimachinery/backoff.js';
import { Fifo } from './fifo.js';

/** client-go's per-item default: 5 ms doubling up to 1000 s. */
export const ITEM_BACKOFF: BackoffOptions = { initialMs: 5, maxMs: 1000_000 };
/** How long workers may run before the event loop gets a turn. */
export const YIELD_AFTER_MS = 5;

export interface WorkQueueOptions {
  /** Per-key backoff of addRateLimited (ITEM_BACKOFF). */
  backoff?: BackoffOptions;
  /** Work between two turns of the event loop (YIELD_AFTER_MS). */
  yieldAfterMs?: number;
  /** Monotonic milliseconds the turn is measured with (performance.now; tests inject one). */
  now?: () => number;
}

export class WorkQueue {
  private readonly queue = new Fifo<string>();
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly delayed = new Map<string, { at: number; timer: TimerHandle }>();
  private readonly waiters = new Fifo<(key: string | undefined) => void>();
  private shuttingDown = false;
  private readonly backoff: BackoffOptions;
  private readonly yieldAfterMs: number;
  private readonly now: () => number;
  /** When the current turn of work began (the last yield). */
  private turnStart: number;
  /** The pending yield every worker that asks meanwhile waits on. */
  private yielding: Promise<void> | undefined;
  /** How many times get() let the event loop run first. */
  yields = 0;

  constructor(
    private readonly clock: Clock,
    o: WorkQueueOptions = {},
  ) {
    this.backoff = o.backoff ?? ITEM_BACKOFF;
    this.yieldAfterMs = o.yieldAfterMs ?? YIELD_AFTER_MS;
    this.now = o.now ?? (() => performance.now());
    this.turnStart = this.now();
  }

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

  /** The next key to process; undefined once shut down. After yieldAfterMs of work, only once the event loop has run. */
  get(): Promise<string | undefined> {
    if (this.shuttingDown) return Promise.resolve(undefined);
    if (this.queue.length > 0 && this.now() - this.turnStart >= this.yieldAfterMs) return this.yieldOnce().then(() => this.get());
    const key = this.queue.shift();
    if (key !== undefined) {
      this.dirty.delete(key);
      this.processing.add(key);
      return Promise.resolve(key);
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private yieldOnce(): Promise<void> {
    return (this.yielding ??= new Promise<void>((resolve) =>
      setImmediate(() => {
        this.yields++;
        this.yielding = undefined;
        this.turnStart = this.now();
        resolve();
      }),
    ));
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

  /** Items the queue's list has moved in memory so far (at most about one per key queued: O(1) each). */
  get moved(): number {
    return this.queue.moved;
  }

  shutDown(): void {
    this.shuttingDown = true;
    for (const d of this.delayed.values()) d.timer.cancel();
    this.delayed.clear();
    for (const w of this.waiters.drain()) w(undefined);
  }
}
