// What a watch cache holds in memory: the current value of every key under its prefix (sorted
// on demand for lists) and a bounded window of recent changes for watches that resume from a
// past revision. Rebuilt whole from a fresh list each time the cache (re)syncs with its store.

import { StorageError, type KeyValue, type ListOptions, type ListResult } from './revisioned-store.js';
import type { ChangeEvent } from './watch-hub.js';

const keyOf = (e: ChangeEvent): string => (e.type === 'put' ? e.kv.key : e.key);

export class CacheContents {
  private items = new Map<string, KeyValue>();
  private sortedKeys: string[] | undefined;
  private readonly window: ChangeEvent[] = [];
  /** Events above this revision are in the window (or still to come). */
  windowStart = 0;
  /** The latest revision applied (a change or a progress notification). */
  revision = 0;
  /** The revision of the last change under the prefix (at a (re)list: the revision listed). */
  lastChange = 0;

  constructor(private readonly windowSize: number) {}

  /** Takes a fresh list as the whole state: the window starts empty at its revision. */
  /** The current value of one key, if the cache holds it. */
  get(key: string): KeyValue | undefined {
    return this.items.get(key);
  }

  replace(list: ListResult): void {
    this.items = new Map(list.kvs.map((kv) => [kv.key, kv]));
    this.sortedKeys = undefined;
    this.window.length = 0;
    this.revision = list.revision;
    this.lastChange = list.revision;
    this.windowStart = list.revision;
  }

  apply(e: ChangeEvent): void {
    if (e.type === 'put') this.items.set(e.kv.key, e.kv);
    else this.items.delete(e.key);
    this.lastChange = e.revision;
    this.sortedKeys = undefined;
    this.window.push(e);
    if (this.window.length > this.windowSize) this.windowStart = this.window.shift()!.revision;
    if (e.revision > this.revision) this.revision = e.revision;
  }

  /** Changes under `prefix` with after < revision <= upTo from the window; Compacted when older than it. */
  history(prefix: string, after: number, upTo: number, limit: number): ChangeEvent[] {
    if (after < this.windowStart) {
      throw new StorageError('Compacted', `required revision ${after} is older than the watch cache window (${this.windowStart})`, undefined, undefined, this.windowStart);
    }
    const out: ChangeEvent[] = [];
    for (const e of this.window) {
      if (e.revision <= after || e.revision > upTo || !keyOf(e).startsWith(prefix)) continue;
      out.push(e);
      if (out.length >= limit) break;
    }
    return out;
  }

  /** Forgets the window's history at or below `revision` (the store compacted it). */
  forgetThrough(revision: number): void {
    while (this.window.length && this.window[0]!.revision <= revision) this.windowStart = this.window.shift()!.revision;
    this.windowStart = Math.max(this.windowStart, Math.min(revision, this.revision));
  }

  /** A page of the current keys under `prefix`, reported as read at `revision`. */
  list(prefix: string, opts: ListOptions, revision: number): ListResult {
    this.sortedKeys ??= [...this.items.keys()].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    const keys = this.sortedKeys;
    const kvs: KeyValue[] = [];
    const limit = opts.limit && opts.limit > 0 ? opts.limit : Infinity;
    let more = false;
    for (let i = firstAfter(keys, opts.startAfter ?? prefix); i < keys.length; i++) {
      const key = keys[i]!;
      if (!key.startsWith(prefix)) {
        if (key > prefix) break;
        continue;
      }
      if (kvs.length >= limit) {
        more = true;
        break;
      }
      kvs.push(this.items.get(key)!);
    }
    return { kvs, more, revision };
  }

  count(prefix: string): number {
    let n = 0;
    for (const key of this.items.keys()) if (key.startsWith(prefix)) n++;
    return n;
  }
}

/** Index of the first key greater than `after` (keys sorted ascending), by binary search. */
function firstAfter(keys: readonly string[], after: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
