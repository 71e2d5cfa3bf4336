// What storage reports for metrics (kube's etcd_request_* and watch / watch-cache families),
// through an interface storage owns: no metrics library below the composition root. Every
// `type` / `resource` argument is a fixed label chosen at wiring time, never a key.

/** kube's etcd operation names: get, list, listWithCount, create, update, delete, compact. */
export type StorageOperation = 'get' | 'list' | 'listWithCount' | 'create' | 'update' | 'delete' | 'compact';

export interface StorageObserver {
  /** One store request and how long it took; `failed` only for a store failure (not a CAS miss). */
  request(operation: StorageOperation, type: string, durationSeconds: number, failed: boolean): void;
  /** A client watch on a resource was registered (+1) or ended (-1). */
  watchers(resource: string, delta: 1 | -1): void;
  /** `count` events (default 1) sent to client watches, each event counted once per watch it went to. */
  watchEvent(resource: string, count?: number): void;
  /** A watch cache (re)started following the store. */
  cacheInitialized(resource: string): void;
  /** A watch cache's feed from the store ended (it no longer follows the store until it starts again). */
  cacheFeedEnded(resource: string): void;
  /** A watch cache received one event from the store, at this revision. */
  cacheEvent(resource: string, revision: number): void;
}

export const noopStorageObserver: StorageObserver = {
  request() {},
  watchers() {},
  watchEvent() {},
  cacheInitialized() {},
  cacheFeedEnded() {},
  cacheEvent() {},
};

/** Optional health reporting a store may offer (kube's etcd and etcd-readiness checks). */
export interface StoreHealth {
  /** Undefined when the store can be read; otherwise why not. */
  liveness(): string | undefined;
  /** Undefined when the store accepts writes; otherwise why not (e.g. "database or disk is full"). */
  readiness(): string | undefined;
}

export const hasStoreHealth = (store: unknown): store is StoreHealth =>
  typeof (store as Partial<StoreHealth>)?.liveness === 'function' && typeof (store as Partial<StoreHealth>)?.readiness === 'function';
