// In-process fan-out of committed changes to store watchers (one writer process, so no polling),
// pushed synchronously to each watcher's sink.
// A watch from a past revision replays history lazily, page by page from the log, up to the
// revision it was opened at, then continues with live events: no gaps, no duplicates, and a
// long history is never held in memory at once. Live events wait in a bounded per-watcher queue:
// a consumer that falls more than `maxQueued` events (default 10,000) or `maxQueuedBytes` of
// values (default 64 MiB) behind is ended with an Unavailable error (it must watch again), so a
// stalled consumer never blocks writers or other watchers.

import { iterate, type EventSink } from './push-stream.js';
import { StorageError, type StoreWatch, type WatchEvent } from './revisioned-store.js';
import { hasPrefix } from './key-prefix.js';

export const DEFAULT_MAX_QUEUED = 10_000;
export const DEFAULT_MAX_QUEUED_BYTES = 64 * 1024 * 1024;
const REPLAY_PAGE = 500;

export type ChangeEvent = Exclude<WatchEvent, { type: 'progress' }>;

/**
 * Reads committed history: events under `prefix` with after < revision <= upTo, oldest first,
 * about `limit` of them but always whole revisions (a page never ends inside a revision, since
 * the next page starts after the last one). Throws Compacted when history is gone.
 */
export type HistoryReader = (prefix: string, after: number, upTo: number, limit: number) => ChangeEvent[];

export interface WatchHubOptions {
  /** The store's current revision (for progress events and the replay end). */
  revision: () => number;
  history: HistoryReader;
  maxQueued?: number;
  maxQueuedBytes?: number;
}

const keyOf = (e: ChangeEvent): string => (e.type === 'put' ? e.kv.key : e.key);
const sizeOf = (e: WatchEvent): number =>
  e.type === 'progress' ? 0 : (e.type === 'put' ? e.kv.value.byteLength : 0) + (e.prevKv?.value.byteLength ?? 0);

class Subscriber implements StoreWatch {
  /** Events waiting while the sink is paused or not yet started (allocated only then). */
  private queue: WatchEvent[] | undefined;
  private queuedBytes = 0;
  /** The current replay page and the position in it. */
  private page: ChangeEvent[] | undefined;
  private pageAt = 0;
  private sink: EventSink<WatchEvent> | undefined;
  private paused = true;
  private pumping = false;
  private ended = false;
  private failure: StorageError | undefined;
  /** A progress event was asked for (see WatchHub.publishProgress). */
  progressRequested = false;

  constructor(
    readonly prefix: string,
    private readonly hub: WatchHub,
    private readonly signal: AbortSignal | undefined,
    /** Replay the log from here (exclusive)... */
    private replayCursor: number,
    /** ...up to here (inclusive); live events start above it. */
    private readonly replayUpTo: number,
  ) {
    if (signal?.aborted) this.ended = true;
    // The subscriber is its own abort listener (handleEvent): no closure per watch.
    else signal?.addEventListener('abort', this, { once: true });
  }

  /** The signal aborted. */
  handleEvent(): void {
    this.end();
  }

  offer(e: WatchEvent): void {
    if (this.ended) return;
    // Events up to replayUpTo come from the replay (a watcher subscribed while a commit is
    // being published must not get that commit twice).
    if (e.type !== 'progress' && (e.revision <= this.replayUpTo || !hasPrefix(keyOf(e), this.prefix))) return;
    // The common case: a live watcher keeping up gets the event straight away.
    if (!this.paused && !this.pumping && !this.queue?.length && this.replayCursor >= this.replayUpTo && !this.page) {
      this.deliver(e);
      return;
    }
    const bytes = sizeOf(e);
    const queue = (this.queue ??= []);
    if (queue.length >= this.hub.maxQueued || this.queuedBytes + bytes > this.hub.maxQueuedBytes) {
      this.fail(new StorageError('Unavailable', `watcher fell too far behind (more than ${this.hub.maxQueued} events or ${this.hub.maxQueuedBytes} bytes queued); watch again`));
      return;
    }
    queue.push(e);
    this.queuedBytes += bytes;
    this.pump();
  }

  fail(err: StorageError): void {
    if (this.ended) return;
    this.failure = err;
    this.end();
  }

  /** Ends the watch: the sink hears end (with the failure, if any) at once; queued events are dropped. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.release();
    const sink = this.sink;
    this.sink = undefined;
    sink?.end(this.failure);
  }

  private release(): void {
    this.hub.remove(this);
    this.signal?.removeEventListener('abort', this);
    this.queue = undefined;
    this.page = undefined;
  }

  start(sink: EventSink<WatchEvent>): void {
    if (this.sink) throw new Error('watch already started');
    if (this.ended) {
      sink.end(this.failure);
      return;
    }
    this.sink = sink;
    this.paused = false;
    this.pump();
  }

  resume(): void {
    if (this.ended || !this.sink) return;
    this.paused = false;
    this.pump();
  }

  stop(): void {
    if (this.ended) return;
    this.ended = true;
    this.sink = undefined;
    this.release();
  }

  requestProgress(): void {
    // Queued after every live event so far; the replay (all at or below replayUpTo) comes first.
    this.offer({ type: 'progress', revision: this.hub.revision() });
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent> {
    return iterate(this);
  }

  private deliver(e: WatchEvent): void {
    let more: boolean;
    try {
      more = this.sink!.next(e);
    } catch (err) {
      // One consumer's failure ends its own watch, never the commit or the other watchers.
      this.fail(new StorageError('Unavailable', `watch consumer failed: ${err instanceof Error ? err.message : String(err)}`));
      return;
    }
    if (!more) this.paused = true;
  }

  /** Delivers the replay, then queued events, until the sink pauses or nothing is left. */
  private pump(): void {
    if (this.pumping || this.paused) return;
    this.pumping = true;
    try {
      while (!this.paused && !this.ended) {
        const e = this.nextReplayed() ?? this.nextQueued();
        if (!e) break;
        this.deliver(e);
      }
    } catch (err) {
      // Reading history failed (compacted under a slow replay, typically).
      this.fail(err instanceof StorageError ? err : new StorageError('Unavailable', String(err)));
    } finally {
      this.pumping = false;
    }
  }

  private nextReplayed(): ChangeEvent | undefined {
    for (;;) {
      if (this.page) {
        if (this.pageAt < this.page.length) return this.page[this.pageAt++];
        this.page = undefined;
      }
      if (this.replayCursor >= this.replayUpTo) return undefined;
      const page = this.hub.history(this.prefix, this.replayCursor, this.replayUpTo, REPLAY_PAGE);
      this.replayCursor = page.length < REPLAY_PAGE ? this.replayUpTo : page[page.length - 1]!.revision;
      this.page = page;
      this.pageAt = 0;
    }
  }

  private nextQueued(): WatchEvent | undefined {
    const e = this.queue?.shift();
    if (e) this.queuedBytes -= sizeOf(e);
    return e;
  }
}

export class WatchHub {
  private readonly subscribers = new Set<Subscriber>();
  readonly revision: () => number;
  readonly history: HistoryReader;
  readonly maxQueued: number;
  readonly maxQueuedBytes: number;

  constructor(opts: WatchHubOptions) {
    this.revision = opts.revision;
    this.history = opts.history;
    this.maxQueued = opts.maxQueued ?? DEFAULT_MAX_QUEUED;
    this.maxQueuedBytes = opts.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES;
  }

  /**
   * Registers a watcher for changes after `afterRevision`: history up to the current revision is
   * replayed from the log, everything later arrives live. Call it synchronously with respect to
   * commits (the store is single-threaded), so no commit falls between the two.
   */
  subscribe(prefix: string, signal: AbortSignal | undefined, afterRevision: number): StoreWatch {
    const s = new Subscriber(prefix, this, signal, afterRevision, this.revision());
    this.subscribers.add(s);
    return s;
  }

  /** A watch that ends with `err` as soon as it starts (e.g. Compacted). */
  failed(err: StorageError): StoreWatch {
    const watch: StoreWatch = {
      requestProgress() {},
      start: (sink) => sink.end(err),
      resume() {},
      stop() {},
      [Symbol.asyncIterator]: () => iterate(watch),
    };
    return watch;
  }

  /** Offers committed changes to every watcher, in order. */
  publish(events: readonly ChangeEvent[]): void {
    for (const s of this.subscribers) for (const e of events) s.offer(e);
  }

  /** Offers a progress event to the watchers that asked for one (see requestProgressFor). */
  publishProgress(revision: number): void {
    for (const s of this.subscribers) {
      if (!s.progressRequested) continue;
      s.progressRequested = false;
      s.offer({ type: 'progress', revision });
    }
  }

  /** Marks `watch` (one of this hub's) as waiting for the next publishProgress. */
  requestProgressFor(watch: StoreWatch): void {
    if (watch instanceof Subscriber) watch.progressRequested = true;
  }

  remove(s: Subscriber): void {
    this.subscribers.delete(s);
  }

  get size(): number {
    return this.subscribers.size;
  }

  /** Ends every watcher: cleanly, or with `err` (each client then hears it, e.g. a 410). */
  closeAll(err?: StorageError): void {
    for (const s of [...this.subscribers]) {
      if (err) s.fail(err);
      else s.end();
    }
  }
}
