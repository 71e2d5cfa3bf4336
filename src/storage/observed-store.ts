// RevisionedStore decorators that report to a StorageObserver, so any backend (memory, SQLite,
// etcd) and the watch cache are measured the same way without knowing about metrics:
// - timedStore: each store request's duration (kube's etcd_request_duration_seconds);
// - watchedStore: each watch's registration and events, either as client watches
//   (apiserver_registered_watchers, apiserver_watch_events_total) or as a watch cache's feed
//   from the store (apiserver_watch_cache_*).

import type { EventSink } from './push-stream.js';
import { iterate } from './push-stream.js';
import {
  isStorageError,
  type DeleteResult,
  type GetOptions,
  type GetResult,
  type ListOptions,
  type ListResult,
  type PutResult,
  type RevisionedStore,
  type StoreWatch,
  type WatchEvent,
  type WatchOptions,
} from './revisioned-store.js';
import type { StorageObserver, StorageOperation } from './storage-observer.js';
import { hasPrefix } from './key-prefix.js';

/** Which label a key belongs to: the longest matching prefix, or `fallback`. */
export interface KeyTypes {
  prefixes: readonly { prefix: string; type: string }[];
  fallback: string;
}

/** A store failure counts as an error; a failed compare-and-swap or a missing key does not (etcd answered). */
const isFailure = (err: unknown): boolean => !isStorageError(err) || err.code === 'Unavailable';

/** Times every store request and reports it with the operation and the key's type. */
export function timedStore(inner: RevisionedStore, observer: StorageObserver, types: KeyTypes): RevisionedStore {
  return new TimedStore(inner, observer, types);
}

/**
 * A plain class delegating each method (no closure or Proxy per call: every read of every
 * request goes through here).
 */
class TimedStore implements RevisionedStore {
  private readonly prefixes: readonly { prefix: string; type: string }[];
  private readonly fallback: string;

  constructor(
    private readonly inner: RevisionedStore,
    private readonly observer: StorageObserver,
    types: KeyTypes,
  ) {
    this.prefixes = [...types.prefixes].sort((a, b) => b.prefix.length - a.prefix.length);
    this.fallback = types.fallback;
  }

  get(key: string, opts?: GetOptions): Promise<GetResult> {
    return this.timed('get', key, process.hrtime.bigint(), this.inner.get(key, opts));
  }

  list(prefix: string, opts?: ListOptions): Promise<ListResult> {
    return this.timed('list', prefix, process.hrtime.bigint(), this.inner.list(prefix, opts));
  }

  count(prefix: string): Promise<number> {
    return this.timed('listWithCount', prefix, process.hrtime.bigint(), this.inner.count(prefix));
  }

  optimisticPut(key: string, value: Uint8Array, expectedModRevision: number): Promise<PutResult> {
    return this.timed(expectedModRevision === 0 ? 'create' : 'update', key, process.hrtime.bigint(), this.inner.optimisticPut(key, value, expectedModRevision));
  }

  optimisticDelete(key: string, expectedModRevision: number): Promise<DeleteResult> {
    return this.timed('delete', key, process.hrtime.bigint(), this.inner.optimisticDelete(key, expectedModRevision));
  }

  watch(prefix: string, opts: WatchOptions): StoreWatch {
    return this.inner.watch(prefix, opts);
  }

  currentRevision(): Promise<number> {
    return this.inner.currentRevision();
  }

  compactedRevision(): Promise<number> {
    return this.inner.compactedRevision();
  }

  compact(revision: number): Promise<void> {
    return this.timed('compact', '', process.hrtime.bigint(), this.inner.compact(revision));
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /**
   * The request's outcome, reported with its duration from `start` (taken before the request
   * was made): a promise already under way is passed in, so no closure is made per call.
   */
  private async timed<T>(operation: StorageOperation, key: string, start: bigint, pending: Promise<T>): Promise<T> {
    let r: T;
    try {
      r = await pending;
    } catch (err) {
      throw this.failed(operation, key, start, err);
    }
    this.report(operation, key, start, false);
    return r;
  }

  private typeOf(key: string): string {
    for (const p of this.prefixes) if (hasPrefix(key, p.prefix)) return p.type;
    return this.fallback;
  }

  private report(operation: StorageOperation, key: string, start: bigint, failed: boolean): void {
    this.observer.request(operation, this.typeOf(key), Number(process.hrtime.bigint() - start) / 1e9, failed);
  }

  /** Reports a request that threw, and hands back its error to rethrow. */
  private failed(operation: StorageOperation, key: string, start: bigint, err: unknown): unknown {
    this.report(operation, key, start, isFailure(err));
    return err;
  }
}

export type WatchRole = 'client' | 'cache';

/**
 * Reports the watches opened through this store for one resource: as client watches (registered
 * watchers, events sent) or, for the store under a watch cache, as the cache's feed.
 */
export function watchedStore(inner: RevisionedStore, observer: StorageObserver, resource: string, role: WatchRole): RevisionedStore {
  return new WatchedStore(inner, observer, resource, role);
}

/** Delegates every method to the store below; only `watch` is observed. */
class WatchedStore implements RevisionedStore {
  // Under a watch cache, the cache also hands some client watches straight to the store (those
  // resuming from before its window). Its own feed is the watch it opens when it has none: the
  // first, and the first after one ended; the others are client watches, counted above the cache.
  private feed: ObservedWatch | undefined;
  private readonly tally: EventTally | undefined;

  constructor(
    private readonly inner: RevisionedStore,
    private readonly observer: StorageObserver,
    private readonly resource: string,
    private readonly role: WatchRole,
  ) {
    this.tally = role === 'client' ? new EventTally(observer, resource) : undefined;
  }

  get(key: string, opts?: GetOptions): Promise<GetResult> {
    return this.inner.get(key, opts);
  }

  list(prefix: string, opts?: ListOptions): Promise<ListResult> {
    return this.inner.list(prefix, opts);
  }

  count(prefix: string): Promise<number> {
    return this.inner.count(prefix);
  }

  optimisticPut(key: string, value: Uint8Array, expectedModRevision: number): Promise<PutResult> {
    return this.inner.optimisticPut(key, value, expectedModRevision);
  }

  optimisticDelete(key: string, expectedModRevision: number): Promise<DeleteResult> {
    return this.inner.optimisticDelete(key, expectedModRevision);
  }

  watch(prefix: string, opts: WatchOptions): StoreWatch {
    const watch = this.inner.watch(prefix, opts);
    if (this.tally) return new ObservedWatch(watch, this.observer, this.resource, this.role, undefined, this.tally);
    if (this.feed) return watch;
    const observed: ObservedWatch = new ObservedWatch(watch, this.observer, this.resource, this.role, () => {
      if (this.feed === observed) this.feed = undefined;
    });
    this.feed = observed;
    return observed;
  }

  currentRevision(): Promise<number> {
    return this.inner.currentRevision();
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

/**
 * Events sent to one resource's client watches, reported once per turn of the event loop: one
 * write fanned out to ten thousand watches is one counter update, not ten thousand.
 */
class EventTally {
  private pending = 0;
  private scheduled = false;

  constructor(
    private readonly observer: StorageObserver,
    private readonly resource: string,
  ) {}

  add(): void {
    this.pending++;
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.flush);
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    const n = this.pending;
    this.pending = 0;
    if (n > 0) this.observer.watchEvent(this.resource, n);
  };
}

/** The default `onEnd`: one function for every client watch, not a closure each (a watch may idle for an hour). */
const nothing = (): void => undefined;

class ObservedWatch implements StoreWatch, EventSink<WatchEvent> {
  private sink: EventSink<WatchEvent> | undefined;
  private registered = false;

  constructor(
    private readonly inner: StoreWatch,
    private readonly observer: StorageObserver,
    private readonly resource: string,
    private readonly role: WatchRole,
    private readonly onEnd: () => void = nothing,
    private readonly tally?: EventTally,
  ) {}

  start(sink: EventSink<WatchEvent>): void {
    this.sink = sink;
    this.registered = true;
    if (this.role === 'client') this.observer.watchers(this.resource, 1);
    else this.observer.cacheInitialized(this.resource);
    this.inner.start(this);
  }

  next(e: WatchEvent): boolean {
    if (e.type !== 'progress') {
      if (this.tally) this.tally.add();
      else if (this.role === 'cache') this.observer.cacheEvent(this.resource, e.revision);
    }
    return this.sink ? this.sink.next(e) : false;
  }

  end(err?: unknown): void {
    const sink = this.sink;
    if (this.registered && this.role === 'cache') this.observer.cacheFeedEnded(this.resource);
    this.unregister();
    sink?.end(err);
  }

  resume(): void {
    this.inner.resume();
  }

  stop(): void {
    this.unregister();
    this.inner.stop();
  }

  requestProgress(): void {
    this.inner.requestProgress();
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent> {
    return iterate(this);
  }

  private unregister(): void {
    this.sink = undefined;
    this.onEnd();
    if (!this.registered) return;
    this.registered = false;
    if (this.role === 'client') this.observer.watchers(this.resource, -1);
  }
}
