// In-process fan-out of committed changes to store watchers (one writer process, so no polling).
// A watch from a past revision replays history lazily, page by page from the log, up to the
// revision it was opened at, then continues with live events: no gaps, no duplicates, and a
// long history is never held in memory at once. Live events wait in a bounded per-watcher queue:
// a consumer that falls more than `maxQueued` events (default 10,000) or `maxQueuedBytes` of
// values (default 64 MiB) behind is ended with an Unavailable error it sees on iteration (it must
// watch again), so a stalled consumer never blocks writers or other watchers.

import { StorageError, type StoreWatch, type WatchEvent } from './revisioned-store.js';

export const DEFAULT_MAX_QUEUED = 10_000;
export const DEFAULT_MAX_QUEUED_BYTES = 64 * 1024 * 1024;
const REPLAY_PAGE = 500;

export type ChangeEvent = Exclude<WatchEvent, { type: 'progress' }>;

/** Reads committed history: events under `prefix` with after < revision <= upTo, oldest first. Throws Compacted when history is gone. */
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
  private readonly queue: WatchEvent[] = [];
  private queuedBytes = 0;
  private wake: (() => void) | undefined;
  private ended = false;
  private failure: StorageError | undefined;

  constructor(
    readonly prefix: string,
    private readonly hub: WatchHub,
    signal: AbortSignal,
    /** Replay the log from here (exclusive)... */
    private replayCursor: number,
    /** ...up to here (inclusive); live events start above it. */
    private readonly replayUpTo: number,
  ) {
    if (signal.aborted) this.ended = true;
    else signal.addEventListener('abort', () => this.end(), { once: true });
  }

  offer(e: WatchEvent): void {
    if (this.ended) return;
    if (e.type !== 'progress' && !keyOf(e).startsWith(this.prefix)) return;
    const bytes = sizeOf(e);
    if (this.queue.length >= this.hub.maxQueued || this.queuedBytes + bytes > this.hub.maxQueuedBytes) {
      this.fail(new StorageError('Unavailable', `watcher fell too far behind (more than ${this.hub.maxQueued} events or ${this.hub.maxQueuedBytes} bytes queued); watch again`));
      return;
    }
    this.queue.push(e);
    this.queuedBytes += bytes;
    this.notify();
  }

  fail(err: StorageError): void {
    if (this.ended) return;
    this.failure = err;
    this.end();
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.hub.remove(this);
    this.notify();
  }

  requestProgress(): void {
    // Queued after every live event so far; the replay (all at or below replayUpTo) comes first.
    this.offer({ type: 'progress', revision: this.hub.revision() });
  }

  private notify(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  /** The next page of history, or undefined once the replay is done. */
  private nextReplayPage(): ChangeEvent[] | undefined {
    if (this.replayCursor >= this.replayUpTo) return undefined;
    const page = this.hub.history(this.prefix, this.replayCursor, this.replayUpTo, REPLAY_PAGE);
    this.replayCursor = page.length < REPLAY_PAGE ? this.replayUpTo : page[page.length - 1]!.revision;
    return page;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<WatchEvent> {
    try {
      for (;;) {
        if (this.ended && this.failure) throw this.failure;
        if (this.ended) return;
        const page = this.nextReplayPage();
        if (page) {
          for (const e of page) {
            if (this.ended) break;
            yield e;
          }
          continue;
        }
        const next = this.queue.shift();
        if (next) {
          this.queuedBytes -= sizeOf(next);
          yield next;
          continue;
        }
        await new Promise<void>((resolve) => (this.wake = resolve));
      }
    } finally {
      this.end();
    }
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
  subscribe(prefix: string, signal: AbortSignal, afterRevision: number): StoreWatch {
    const s = new Subscriber(prefix, this, signal, afterRevision, this.revision());
    this.subscribers.add(s);
    return s;
  }

  /** A watch that fails on first iteration (e.g. Compacted). */
  failed(err: StorageError): StoreWatch {
    return {
      requestProgress() {},
      async *[Symbol.asyncIterator]() {
        throw err;
      },
    };
  }

  publish(events: readonly WatchEvent[]): void {
    for (const s of this.subscribers) for (const e of events) s.offer(e);
  }

  remove(s: Subscriber): void {
    this.subscribers.delete(s);
  }

  get size(): number {
    return this.subscribers.size;
  }

  closeAll(): void {
    for (const s of [...this.subscribers]) s.end();
  }
}
