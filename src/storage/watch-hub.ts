// In-process fan-out of committed changes to store watchers. Each watcher has a bounded
// queue: a consumer that falls more than MAX_QUEUED events behind is ended with an
// Unavailable error (it must re-watch), so it can never block writers or other watchers.

import { StorageError, type StoreWatch, type WatchEvent } from './revisioned-store.js';

export const MAX_QUEUED = 10_000;

type ChangeEvent = Exclude<WatchEvent, { type: 'progress' }>;

const keyOf = (e: ChangeEvent): string => (e.type === 'put' ? e.kv.key : e.key);

class Subscriber implements StoreWatch {
  private readonly queue: WatchEvent[] = [];
  private wake: (() => void) | undefined;
  private ended = false;
  private failure: StorageError | undefined;

  constructor(
    readonly prefix: string,
    private readonly hub: WatchHub,
    signal: AbortSignal,
  ) {
    if (signal.aborted) this.ended = true;
    else signal.addEventListener('abort', () => this.end(), { once: true });
  }

  offer(e: WatchEvent): void {
    if (this.ended) return;
    if (e.type !== 'progress' && !keyOf(e).startsWith(this.prefix)) return;
    if (this.queue.length >= MAX_QUEUED) {
      this.fail(new StorageError('Unavailable', `watcher fell more than ${MAX_QUEUED} events behind; watch again`));
      return;
    }
    this.queue.push(e);
    this.notify();
  }

  fail(err: StorageError): void {
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
    this.offer({ type: 'progress', revision: this.hub.revision() });
  }

  private notify(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<WatchEvent> {
    try {
      for (;;) {
        const next = this.queue.shift();
        if (next) {
          yield next;
          continue;
        }
        if (this.failure) throw this.failure;
        if (this.ended) return;
        await new Promise<void>((resolve) => (this.wake = resolve));
      }
    } finally {
      this.end();
    }
  }
}

export class WatchHub {
  private readonly subscribers = new Set<Subscriber>();

  /** `revision` reports the store's current revision (for progress events). */
  constructor(readonly revision: () => number) {}

  /** Registers a watcher and hands it `backlog` first; call synchronously with the backlog query so nothing slips between. */
  subscribe(prefix: string, signal: AbortSignal, backlog: readonly WatchEvent[]): StoreWatch {
    const s = new Subscriber(prefix, this, signal);
    for (const e of backlog) s.offer(e);
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
