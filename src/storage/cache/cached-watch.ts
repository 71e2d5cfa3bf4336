// One client watch served by a watch cache: the cache's hub subscription, passed on to the
// client's sink, minus the events at or below the revision the client asked to start after.

import { iterate, type EventSink } from '../push-stream.js';
import type { StoreWatch, WatchEvent } from '../revisioned-store.js';

/** Who answers this watch's progress requests (the cache, which asks its store). */
export interface ProgressSource {
  requestProgressFor(watch: StoreWatch): void;
}

/** A watch from the cache's hub, and the sink that passes its events on. */
export class CachedWatch implements StoreWatch, EventSink<WatchEvent> {
  private sink: EventSink<WatchEvent> | undefined;

  constructor(
    private readonly watch: StoreWatch,
    private readonly after: number,
    private readonly progress: ProgressSource,
  ) {}

  requestProgress(): void {
    this.progress.requestProgressFor(this.watch);
  }

  start(sink: EventSink<WatchEvent>): void {
    this.sink = sink;
    this.watch.start(this);
  }

  resume(): void {
    this.watch.resume();
  }

  stop(): void {
    this.sink = undefined;
    this.watch.stop();
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent> {
    return iterate(this);
  }

  next(e: WatchEvent): boolean {
    // The cache may not have applied `after` yet when the watch starts: its event then arrives
    // live and must not be delivered twice.
    if (e.type !== 'progress' && e.revision <= this.after) return true;
    return this.sink ? this.sink.next(e) : false;
  }

  end(err?: unknown): void {
    this.sink?.end(err);
  }
}
