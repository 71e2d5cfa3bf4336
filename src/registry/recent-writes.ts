// The versions this process wrote that its watch cache may not show yet. A write's answer comes
// back before the watch event that brings it into the cache, so a writer that writes the same
// object twice in a row (the ServiceCIDR status controller: the finalizer, then the Ready
// condition) would start its second update from the cache's older copy and lose the compare.
// An update starts from the newer of the cache's copy and the version this process wrote: the
// common case is then one write with no read, and a copy that is wrong (another replica wrote
// since) costs one lost compare, whose answer is the current version.

import type { KeyValue } from '../storage/revisioned-store.js';

/**
 * Keys and value bytes remembered at most; the oldest write is forgotten first (a forgotten write
 * costs one lost compare). An entry matters only until the cache shows it, milliseconds later.
 */
const DEFAULT_MAX_KEYS = 1024;
const DEFAULT_MAX_BYTES = 8 * 1024 * 1024;

export class RecentWrites {
  /** In the order written (by revision, nearly: writes answer in about the order they commit). */
  private readonly byKey = new Map<string, KeyValue>();
  private bytes = 0;

  constructor(
    private readonly maxKeys = DEFAULT_MAX_KEYS,
    private readonly maxBytes = DEFAULT_MAX_BYTES,
  ) {}

  /** This process wrote `kv` (its answer from the store). */
  wrote(kv: KeyValue): void {
    this.forget(kv.key);
    this.byKey.set(kv.key, kv);
    this.bytes += kv.value.byteLength;
    for (const [key] of this.byKey) {
      if (this.byKey.size <= this.maxKeys && this.bytes <= this.maxBytes) break;
      this.forget(key);
    }
  }

  /** What this process knew of `key` is no longer true (deleted, lost a compare, outcome unknown). */
  forget(key: string): void {
    const kv = this.byKey.get(key);
    if (!kv) return;
    this.byKey.delete(key);
    this.bytes -= kv.value.byteLength;
  }

  /**
   * The version this process wrote of `key`, if the cache (at `cacheRevision`) has not seen it
   * yet; once it has, the entry is dropped and the cache's copy is as new.
   */
  ahead(key: string, cacheRevision: number): KeyValue | undefined {
    // The oldest writes the cache has shown since are of no more use.
    for (const [k, old] of this.byKey) {
      if (old.modRevision > cacheRevision) break;
      this.forget(k);
    }
    const kv = this.byKey.get(key);
    if (!kv || cacheRevision >= kv.modRevision) {
      this.forget(key);
      return undefined;
    }
    return kv;
  }

  get size(): number {
    return this.byKey.size;
  }

  /** Value bytes held. */
  get heldBytes(): number {
    return this.bytes;
  }
}
