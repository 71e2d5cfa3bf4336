// A client watch from before the watch cache's window: the store replays the history the cache
// no longer holds, and as soon as the replay has reached the window the watch moves over to the
// cache's fan-out, where it continues from the last revision it delivered (no gap, no
// duplicate). After a re-list every client resuming from its last resourceVersion starts below
// the fresh window; without the move, each would keep a store watch of its own (an etcd watch
// per client) for its whole life.

import { iterate, type EventSink } from '../push-stream.js';
import type { RevisionedStore, StoreWatch, WatchEvent } from '../revisioned-store.js';

/** The cache side of the bridge. */
export interface BridgeTarget {
  /** Events above this revision are in the cache's window. */
  windowStart(): number;
  /** A cache watch of `prefix` from `after`, or undefined when the cache cannot serve it now. */
  tryWatch(prefix: string, after: number, signal: AbortSignal | undefined): StoreWatch | undefined;
}

export class BridgedWatch implements StoreWatch, EventSink<WatchEvent> {
  private current: StoreWatch;
  private onCache = false;
  private sink: EventSink<WatchEvent> | undefined;
  /** Every event at or below this revision has been delivered. */
  private delivered: number;
  /** The revision of the last event delivered (its revision may have more events to come). */
  private partial: number;
  /** A progress request was sent to complete the revision that reached the window. */
  private askedForBoundary = false;
  private paused = false;
  /** The replay reached the window while the client was paused: move over on resume(). */
  private moveDue = false;
  /** The client asked for progress and has not had it yet (the bridge asks for its own, unseen). */
  private clientWantsProgress = false;

  constructor(
    store: RevisionedStore,
    private readonly target: BridgeTarget,
    private readonly prefix: string,
    after: number,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.delivered = this.partial = after;
    this.current = store.watch(prefix, { afterRevision: after, signal });
  }

  start(sink: EventSink<WatchEvent>): void {
    this.sink = sink;
    this.current.start(this);
    // A quiet prefix has no event to reach the window with: the store's progress reaches it.
    if (!this.onCache && this.sink) this.current.requestProgress();
  }

  resume(): void {
    this.paused = false;
    if (this.moveDue && this.move()) return;
    this.current.resume();
  }

  stop(): void {
    this.sink = undefined;
    this.current.stop();
  }

  requestProgress(): void {
    this.clientWantsProgress = true;
    this.current.requestProgress();
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent> {
    return iterate(this);
  }

  /**
   * An event from the store (before the move) or from the cache (after it). The move happens
   * only between revisions: one revision may carry several events (a multi-key transaction), and
   * the cache continues strictly after a revision, so a revision is complete when the next one
   * begins or a progress event covers it.
   */
  next(e: WatchEvent): boolean {
    const sink = this.sink;
    if (!sink) return false;
    if (this.onCache) {
      if (e.type === 'progress') this.clientWantsProgress = false;
      return sink.next(e);
    }
    if (e.type === 'progress') {
      this.delivered = Math.max(this.delivered, this.partial, e.revision);
      this.partial = this.delivered;
      let more = true;
      if (this.clientWantsProgress) {
        this.clientWantsProgress = false;
        more = sink.next(e);
      }
      if (!more) this.paused = true;
      if (this.delivered >= this.target.windowStart()) {
        if (this.paused) this.moveDue = true;
        else this.move();
      }
      return more && !this.onCache;
    }
    if (e.revision > this.partial) {
      // The revision before this one is complete.
      this.delivered = Math.max(this.delivered, this.partial);
      if (this.delivered >= this.target.windowStart()) {
        // The cache holds this event (or will, live): it delivers it after the move.
        this.move();
        if (this.onCache) return false;
      }
    }
    const more = sink.next(e);
    this.partial = e.revision;
    if (!more) this.paused = true;
    // A quiet prefix may bring no next revision: the store's progress completes this one.
    if (!this.askedForBoundary && e.revision >= this.target.windowStart()) {
      this.askedForBoundary = true;
      this.current.requestProgress();
    }
    return more;
  }

  end(err?: unknown): void {
    const sink = this.sink;
    this.sink = undefined;
    sink?.end(err);
  }

  /**
   * Continues from the cache after the last delivered revision, if it can take the watch now;
   * false when the watch stays on the store (the cache re-initializing, or its window moved on).
   */
  private move(): boolean {
    this.moveDue = false;
    if (this.onCache || !this.sink) return this.onCache;
    const next = this.target.tryWatch(this.prefix, this.delivered, this.signal);
    if (!next) return false;
    const old = this.current;
    this.onCache = true;
    this.current = next;
    old.stop();
    next.start(this);
    if (this.clientWantsProgress) next.requestProgress();
    return true;
  }
}
