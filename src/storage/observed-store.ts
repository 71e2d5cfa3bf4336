// RevisionedStore decorators that report to a StorageObserver, so any backend (memory, SQLite,
// etcd) and the watch cache are measured the same way without knowing about metrics:
// - timedStore: each store request's duration (kube's etcd_request_duration_seconds);
// - watchedStore: each watch's registration and events, either as client watches
//   (apiserver_registered_watchers, apiserver_watch_events_total) or as a watch cache's feed
//   from the store (apiserver_watch_cache_*).

import type { EventSink } from './push-stream.js';
import { iterate } from './push-stream.js';
import { isStorageError, type RevisionedStore, type StoreWatch, type WatchEvent, type WatchOptions } from './revisioned-store.js';
import type { StorageObserver, StorageOperation } from './storage-observer.js';

/** Which label a key belongs to: the longest matching prefix, or `fallback`. */
export interface KeyTypes {
  prefixes: readonly { prefix: string; type: string }[];
  fallback: string;
}

/** A store failure counts as an error; a failed compare-and-swap or a missing key does not (etcd answered). */
const isFailure = (err: unknown): boolean => !isStorageError(err) || err.code === 'Unavailable';

/** Times every store request and reports it with the operation and the key's type. */
export function timedStore(inner: RevisionedStore, observer: StorageObserver, types: KeyTypes): RevisionedStore {
  const sorted = [...types.prefixes].sort((a, b) => b.prefix.length - a.prefix.length);
  const typeOf = (key: string): string => sorted.find((p) => key.startsWith(p.prefix))?.type ?? types.fallback;
  const timed = async <T>(operation: StorageOperation, key: string, run: () => Promise<T>): Promise<T> => {
    const start = process.hrtime.bigint();
    let failed = false;
    try {
      return await run();
    } catch (err) {
      failed = isFailure(err);
      throw err;
    } finally {
      observer.request(operation, typeOf(key), Number(process.hrtime.bigint() - start) / 1e9, failed);
    }
  };
  return {
    get: (key, opts) => timed('get', key, () => inner.get(key, opts)),
    list: (prefix, opts) => timed('list', prefix, () => inner.list(prefix, opts)),
    count: (prefix) => timed('listWithCount', prefix, () => inner.count(prefix)),
    optimisticPut: (key, value, expected) => timed(expected === 0 ? 'create' : 'update', key, () => inner.optimisticPut(key, value, expected)),
    optimisticDelete: (key, expected) => timed('delete', key, () => inner.optimisticDelete(key, expected)),
    watch: (prefix, opts) => inner.watch(prefix, opts),
    currentRevision: () => inner.currentRevision(),
    compactedRevision: () => inner.compactedRevision(),
    compact: (revision) => timed('compact', '', () => inner.compact(revision)),
    close: () => inner.close(),
  };
}

export type WatchRole = 'client' | 'cache';

/**
 * Reports the watches opened through this store for one resource: as client watches (registered
 * watchers, events sent) or, for the store under a watch cache, as the cache's feed.
 */
export function watchedStore(inner: RevisionedStore, observer: StorageObserver, resource: string, role: WatchRole): RevisionedStore {
  // Under a watch cache, the cache also hands some client watches straight to the store (those
  // resuming from before its window). Its own feed is the watch it opens when it has none: the
  // first, and the first after one ended; the others are client watches, counted above the cache.
  let feed: ObservedWatch | undefined;
  const tally = role === 'client' ? new EventTally(observer, resource) : undefined;
  return new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'watch') {
        return (prefix: string, opts: WatchOptions): StoreWatch => {
          const watch = target.watch(prefix, opts);
          if (tally) return new ObservedWatch(watch, observer, resource, role, undefined, tally);
          if (feed) return watch;
          const observed: ObservedWatch = new ObservedWatch(watch, observer, resource, role, () => {
            if (feed === observed) feed = undefined;
          });
          feed = observed;
          return observed;
        };
      }
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
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

class ObservedWatch implements StoreWatch, EventSink<WatchEvent> {
  private sink: EventSink<WatchEvent> | undefined;
  private registered = false;

  constructor(
    private readonly inner: StoreWatch,
    private readonly observer: StorageObserver,
    private readonly resource: string,
    private readonly role: WatchRole,
    private readonly onEnd: () => void = () => {},
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
