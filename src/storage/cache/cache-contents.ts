// What a watch cache holds in memory: the current value of every key under its prefix (with the
// keys kept in store order as they change, sorted-keys.ts, so a page costs O(log n + limit)) and a bounded window of recent changes for watches that resume from a
// past revision. Rebuilt whole from a fresh list each time the cache (re)syncs with its store.
// With a way to read labels, lists narrowed by labels are served from a label index (label-index.ts).

import { StorageError, type KeyValue, type ListOptions, type ListResult } from '../revisioned-store.js';
import type { ChangeEvent } from '../watch-hub.js';
import { SortedKeys } from './sorted-keys.js';
import { LabelIndex, type LabelsOf } from './label-index.js';
import { hasPrefix } from '../key-prefix.js';

const keyOf = (e: ChangeEvent): string => (e.type === 'put' ? e.kv.key : e.key);

/**
 * The window keeps its own copy of each event's key-values (the same bytes, new objects): what a
 * reader derives from a key-value and keeps beside it for as long as it lives (the registry's
 * decoded object and served JSON, kept per key-value object) then lives only while the value is
 * current or a live watcher still holds the event, not for the window's 10,000 events. A watch
 * replayed from the window (a resume from the past, rare) derives its own again.
 */
function detached(e: ChangeEvent): ChangeEvent {
  if (e.type === 'put') return e.prevKv ? { type: 'put', revision: e.revision, kv: { ...e.kv }, prevKv: { ...e.prevKv } } : { type: 'put', revision: e.revision, kv: { ...e.kv } };
  return { type: 'delete', revision: e.revision, key: e.key, prevKv: { ...e.prevKv } };
}

export class CacheContents {
  private items = new Map<string, KeyValue>();
  private readonly sorted = new SortedKeys();
  private readonly window: ChangeEvent[] = [];
  /** Events above this revision are in the window (or still to come). */
  windowStart = 0;
  /** The latest revision applied (a change or a progress notification). */
  revision = 0;
  /** The revision of the last change under the prefix (at a (re)list: the revision listed). */
  lastChange = 0;

  /** Built at the first list narrowed by labels, then kept up to date; dropped at a re-list. */
  private labelIndex: LabelIndex | undefined;

  constructor(
    private readonly windowSize: number,
    private readonly labelsOf?: LabelsOf,
  ) {}

  /** The current value of one key, if the cache holds it. */
  get(key: string): KeyValue | undefined {
    return this.items.get(key);
  }

  /** Takes a fresh list as the whole state: the window starts empty at its revision. */
  replace(list: ListResult): void {
    this.items = new Map(list.kvs.map((kv) => [kv.key, kv]));
    this.sorted.reset(this.items.keys());
    this.labelIndex = undefined;
    this.window.length = 0;
    this.revision = list.revision;
    this.lastChange = list.revision;
    this.windowStart = list.revision;
  }

  apply(e: ChangeEvent): void {
    if (e.type === 'put') {
      if (!this.items.has(e.kv.key)) this.sorted.add(e.kv.key);
      this.items.set(e.kv.key, e.kv);
      this.labelIndex?.put(e.kv);
    } else if (this.items.delete(e.key)) {
      this.sorted.delete(e.key);
      this.labelIndex?.delete(e.key);
    }
    this.lastChange = e.revision;
    this.window.push(detached(e));
    if (this.window.length > this.windowSize) this.windowStart = this.window.shift()!.revision;
    if (e.revision > this.revision) this.revision = e.revision;
  }

  /**
   * Changes under `prefix` with after < revision <= upTo from the window; Compacted when older
   * than it. A page ends at a revision's end (it may exceed `limit` to): the next page starts
   * after that revision.
   */
  history(prefix: string, after: number, upTo: number, limit: number): ChangeEvent[] {
    if (after < this.windowStart) {
      throw new StorageError('Compacted', `required revision ${after} is older than the watch cache window (${this.windowStart})`, undefined, undefined, this.windowStart);
    }
    const out: ChangeEvent[] = [];
    for (const e of this.window) {
      if (e.revision <= after || e.revision > upTo) continue;
      if (out.length >= limit && e.revision !== out[out.length - 1]!.revision) break;
      if (hasPrefix(keyOf(e), prefix)) out.push(e);
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
    if (opts.labels?.length && this.labelsOf) return this.listByLabels(prefix, opts, revision);
    const keys = this.sorted;
    const kvs: KeyValue[] = [];
    const limit = opts.limit && opts.limit > 0 ? opts.limit : Infinity;
    let i = keys.lowerBound(prefix);
    if (opts.startAfter !== undefined) i = Math.max(i, keys.upperBound(opts.startAfter));
    let more = false;
    // Keys under one prefix are contiguous in store order.
    for (let key = keys.at(i); key !== undefined && hasPrefix(key, prefix); key = keys.at(++i)) {
      if (kvs.length >= limit) {
        more = true;
        break;
      }
      kvs.push(this.items.get(key)!);
    }
    if (!opts.countRemaining) return { kvs, more, revision };
    // Keys under the prefix are contiguous: those past the page are the range's end less `i`.
    const remaining = more ? keys.lowerBound(prefix) + keys.countPrefix(prefix) - i : 0;
    return { kvs, more, revision, remaining };
  }

  /** A page of the keys whose labels satisfy `opts.labels` (the caller verifies its whole selector). */
  private listByLabels(prefix: string, opts: ListOptions, revision: number): ListResult {
    let index = this.labelIndex;
    if (!index) {
      index = this.labelIndex = new LabelIndex(this.labelsOf!);
      index.fill(this.inOrder());
    }
    const limit = opts.limit && opts.limit > 0 ? opts.limit : Infinity;
    const page = index.page(prefix, opts.labels!, opts.startAfter, limit);
    return { kvs: page.keys.map((k) => this.items.get(k)!), more: page.more, revision };
  }

  private *inOrder(): Iterable<KeyValue> {
    for (let i = 0, key = this.sorted.at(0); key !== undefined; key = this.sorted.at(++i)) yield this.items.get(key)!;
  }

  count(prefix: string): number {
    return this.sorted.countPrefix(prefix);
  }
}
