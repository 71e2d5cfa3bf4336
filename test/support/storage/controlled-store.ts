// A RevisionedStore over a MemoryStore that a test steers one step at a time, for what sits above
// a store (the watch cache): each watch's events can be held in transit and let through one by
// one, a watch can be ended with an error while the stream under it still runs (the error
// arrives before the connection is torn down), a progress event can be slipped in, lists can be
// made to fail, and the whole store can be swapped for another (etcd restored from an older
// snapshot). It counts what reaches it. Nothing in the server uses it.

import { iterate, type EventSink } from '../../../src/storage/push-stream.js';
import type { DeleteResult, GetOptions, GetResult, ListOptions, ListResult, PutResult, RevisionedStore, StoreWatch, WatchEvent, WatchOptions } from '../../../src/storage/revisioned-store.js';

export interface ControlledCounts {
  get: number;
  list: number;
  count: number;
  watch: number;
  currentRevision: number;
  /** requestProgress() calls, on any of its watches. */
  progressRequests: number;
}

export class ControlledStore implements RevisionedStore {
  readonly calls: ControlledCounts = { get: 0, list: 0, count: 0, watch: 0, currentRevision: 0, progressRequests: 0 };
  /** Every watch opened, oldest first. */
  readonly watches: ControlledWatch[] = [];
  /** Lists fail with this while set. */
  listFailure: unknown;
  /** Runs inside currentRevision(), after the store has read it and before the caller hears it. */
  onCurrentRevision: (() => Promise<void> | void) | undefined;

  constructor(public inner: RevisionedStore) {}

  /** The watch opened last (the cache's own, when no client watch went to the store since). */
  get lastWatch(): ControlledWatch {
    const w = this.watches[this.watches.length - 1];
    if (!w) throw new Error('no watch opened yet');
    return w;
  }

  get(key: string, opts?: GetOptions): Promise<GetResult> {
    this.calls.get++;
    return this.inner.get(key, opts);
  }

  async list(prefix: string, opts?: ListOptions): Promise<ListResult> {
    this.calls.list++;
    if (this.listFailure !== undefined) throw this.listFailure;
    return this.inner.list(prefix, opts);
  }

  count(prefix: string): Promise<number> {
    this.calls.count++;
    return this.inner.count(prefix);
  }

  optimisticPut(key: string, value: Uint8Array, expectedModRevision: number): Promise<PutResult> {
    return this.inner.optimisticPut(key, value, expectedModRevision);
  }

  optimisticDelete(key: string, expectedModRevision: number): Promise<DeleteResult> {
    return this.inner.optimisticDelete(key, expectedModRevision);
  }

  watch(prefix: string, opts: WatchOptions): StoreWatch {
    this.calls.watch++;
    const w = new ControlledWatch(this.inner.watch(prefix, opts), this.calls);
    this.watches.push(w);
    return w;
  }

  async currentRevision(): Promise<number> {
    this.calls.currentRevision++;
    const revision = await this.inner.currentRevision();
    await this.onCurrentRevision?.();
    return revision;
  }

  compactedRevision(): Promise<number> {
    return this.inner.compactedRevision();
  }

  compact(revision: number): Promise<void> {
    return this.inner.compact(revision);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** One watch: passes the inner watch's events on, or holds them while `holding`. */
export class ControlledWatch implements StoreWatch, EventSink<WatchEvent> {
  private sink: EventSink<WatchEvent> | undefined;
  /** Events held in transit. */
  readonly held: WatchEvent[] = [];
  holding = false;
  /** How often the inner stream ended, and with what. */
  readonly innerEnds: unknown[] = [];
  /** The consumer stopped this watch. */
  stopped = false;

  constructor(
    private readonly innerWatch: StoreWatch,
    private readonly counts: ControlledCounts,
  ) {}

  start(sink: EventSink<WatchEvent>): void {
    this.sink = sink;
    this.innerWatch.start(this);
  }

  resume(): void {
    this.innerWatch.resume();
  }

  stop(): void {
    this.stopped = true;
    this.sink = undefined;
    this.innerWatch.stop();
  }

  requestProgress(): void {
    this.counts.progressRequests++;
    this.innerWatch.requestProgress();
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent> {
    return iterate(this);
  }

  next(e: WatchEvent): boolean {
    if (this.holding) {
      this.held.push(e);
      return true;
    }
    return this.sink ? this.sink.next(e) : false;
  }

  end(err?: unknown): void {
    this.innerEnds.push(err);
    this.sink?.end(err);
  }

  /** Delivers the oldest held event (to whoever still listens). */
  releaseOne(): void {
    const e = this.held.shift();
    if (e) this.sink?.next(e);
  }

  /** Stops holding and delivers everything held. */
  releaseAll(): void {
    this.holding = false;
    while (this.held.length) this.releaseOne();
  }

  /** An event the store did not produce (a stale progress notification, say). */
  inject(e: WatchEvent): void {
    this.sink?.next(e);
  }

  /** Ends the consumer's stream with `err` (or cleanly) while the inner stream still runs. */
  fail(err?: unknown): void {
    this.sink?.end(err);
  }
}
