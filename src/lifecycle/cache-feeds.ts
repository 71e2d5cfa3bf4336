// Whether each watch cache is following the store (for readiness: kube's informer-sync), learnt
// from the observer calls its feed makes; every call is passed on to the metrics observer.

import type { StorageObserver, StorageOperation } from '../storage/storage-observer.js';

export class CacheFeeds implements StorageObserver {
  private readonly following = new Map<string, boolean>();

  constructor(
    private readonly inner: StorageObserver,
    resources: readonly string[],
  ) {
    for (const r of resources) this.following.set(r, false);
  }

  /** Resources whose cache is not following the store, in order. */
  notFollowing(): string[] {
    return [...this.following].filter(([, on]) => !on).map(([r]) => r);
  }

  request(operation: StorageOperation, type: string, durationSeconds: number, failed: boolean): void {
    this.inner.request(operation, type, durationSeconds, failed);
  }

  watchers(resource: string, delta: 1 | -1): void {
    this.inner.watchers(resource, delta);
  }

  watchEvent(resource: string): void {
    this.inner.watchEvent(resource);
  }

  cacheInitialized(resource: string): void {
    if (this.following.has(resource)) this.following.set(resource, true);
    this.inner.cacheInitialized(resource);
  }

  cacheFeedEnded(resource: string): void {
    if (this.following.has(resource)) this.following.set(resource, false);
    this.inner.cacheFeedEnded(resource);
  }

  cacheEvent(resource: string, revision: number): void {
    this.inner.cacheEvent(resource, revision);
  }
}
