// The versions this process wrote that its watch cache may not show yet. A write's answer comes
// back before the watch event that brings it into the cache, so a writer that writes the same
// object twice in a row (the ServiceCIDR status controller: the finalizer, then the Ready
// condition) would start its second update from the cache's older copy and lose the compare.
// An update starts from the newer of the cache's copy and the version this process wrote: the
// common case is then one write with no read, and a copy that is wrong (another replica wrote
// since) costs one lost compare, whose answer is the current version.

import type { KeyValue } from '../storage/revisioned-store.js';

/** Keys remembered at most; the oldest is forgotten first (a forgotten write costs one lost compare). */
const DEFAULT_MAX_KEYS = 1024;

export class RecentWrites {
  private readonly byKey = new Map<string, KeyValue>();

  constructor(private readonly maxKeys = DEFAULT_MAX_KEYS) {}

  /** This process wrote `kv` (its answer from the store). */
  wrote(kv: KeyValue): void {
    this.byKey.delete(kv.key);
    this.byKey.set(kv.key, kv);
    if (this.byKey.size > this.maxKeys) this.byKey.delete(this.byKey.keys().next().value!);
  }

  /** What this process knew of `key` is no longer true (deleted, lost a compare, outcome unknown). */
  forget(key: string): void {
    this.byKey.delete(key);
  }

  /**
   * The version this process wrote of `key`, if the cache (at `cacheRevision`) has not seen it
   * yet; once it has, the entry is dropped and the cache's copy is as new.
   */
  ahead(key: string, cacheRevision: number): KeyValue | undefined {
    const kv = this.byKey.get(key);
    if (!kv) return undefined;
    if (cacheRevision >= kv.modRevision) {
      this.byKey.delete(key);
      return undefined;
    }
    return kv;
  }

  get size(): number {
    return this.byKey.size;
  }
}
