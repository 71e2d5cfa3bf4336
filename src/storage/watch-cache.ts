// The watch cache (kube-apiserver's cacher, as a drop-in RevisionedStore decorator for one key
// prefix): ONE watch on the store feeds an in-memory copy of the current state and a window of
// recent events; every client watch fans out from it in-process, and lists at the latest
// revision are served from memory once the cache has caught up with the store (consistent reads
// from cache). Gets, writes and reads at an explicit revision go to the store, and so do watches
// from before the window: unlike etcd-backed kube, our store keeps the log until compaction, so a
// client resuming after a restart gets every event instead of a 410 and a re-list.

import { StorageError, type DeleteResult, type GetOptions, type GetResult, type KeyValue, type ListOptions, type ListResult, type PutResult, type RevisionedStore, type StoreWatch, type WatchEvent, type WatchOptions } from './revisioned-store.js';
import { iterate, type EventSink } from './push-stream.js';
import { WatchHub, type ChangeEvent } from './watch-hub.js';

export interface WatchCacheOptions {
  store: RevisionedStore;
  /** The keys this cache holds (a resource's prefix, ending in '/'). */
  prefix: string;
  /** Recent events kept for watches that resume from a past revision. */
  windowSize?: number;
  /** How long a list waits for the cache to catch up before reading the store instead. */
  freshnessTimeoutMs?: number;
  onError?: (err: unknown) => void;
}

const keyOf = (e: ChangeEvent): string => (e.type === 'put' ? e.kv.key : e.key);

export class WatchCache implements RevisionedStore {
  private readonly store: RevisionedStore;
  private readonly prefix: string;
  private readonly windowSize: number;
  private readonly freshnessTimeoutMs: number;
  private readonly items = new Map<string, KeyValue>();
  private sortedKeys: string[] | undefined;
  private readonly window: ChangeEvent[] = [];
  /** Events above this revision are in the window (or still to come). */
  private windowStart = 0;
  private revision = 0;
  /** The revision of the last change under the prefix (at start: the revision listed). */
  private lastChange = 0;
  private readonly hub: WatchHub;
  private readonly stopped = new AbortController();
  private upstream: StoreWatch | undefined;
  private waiters: { revision: number; resolve: () => void }[] = [];
  /** A progress request to the store is on its way (many watchers' requests share it). */
  private progressPending = false;

  private constructor(opts: WatchCacheOptions) {
    this.store = opts.store;
    this.prefix = opts.prefix;
    this.windowSize = opts.windowSize ?? 10_000;
    this.freshnessTimeoutMs = opts.freshnessTimeoutMs ?? 3000;
    this.hub = new WatchHub({ revision: () => this.revision, history: (prefix, after, upTo, limit) => this.history(prefix, after, upTo, limit) });
  }

  /** Lists the prefix once and starts following the store from that revision. */
  static async start(opts: WatchCacheOptions): Promise<WatchCache> {
    const cache = new WatchCache(opts);
    await cache.init();
    cache.follow(opts.onError ?? (() => {}));
    return cache;
  }

  private async init(): Promise<void> {
    const list = await this.store.list(this.prefix);
    for (const kv of list.kvs) this.items.set(kv.key, kv);
    this.revision = list.revision;
    this.lastChange = list.revision;
    this.windowStart = list.revision;
    this.upstream = this.store.watch(this.prefix, { afterRevision: list.revision, signal: this.stopped.signal });
  }

  /** Applies the store's changes synchronously as they are committed (push, no promise per event). */
  private follow(onError: (err: unknown) => void): void {
    const upstream = this.upstream!;
    const broken = (err: unknown): void => {
      if (!this.stopped.signal.aborted) onError(err);
      // Clients re-watch (and re-list) when their watch ends; they must not see a gap.
      this.hub.closeAll();
    };
    upstream.start({
      next: (e) => {
        try {
          this.apply(e);
        } catch (err) {
          upstream.stop();
          broken(err);
        }
        return true;
      },
      end: (err) => broken(err ?? new StorageError('Unavailable', 'the store ended the watch cache\'s watch')),
    });
  }

  private apply(e: WatchEvent): void {
    if (e.type !== 'progress') {
      if (e.type === 'put') this.items.set(e.kv.key, e.kv);
      else this.items.delete(e.key);
      this.lastChange = e.revision;
      this.sortedKeys = undefined;
      this.window.push(e);
      if (this.window.length > this.windowSize) this.windowStart = this.window.shift()!.revision;
    }
    this.revision = Math.max(this.revision, e.revision);
    if (e.type === 'progress') {
      this.progressPending = false;
      this.hub.publishProgress(e.revision);
    } else this.hub.publish([e]);
    this.waiters = this.waiters.filter((w) => (w.revision <= this.revision ? (w.resolve(), false) : true));
  }

  private history(prefix: string, after: number, upTo: number, limit: number): ChangeEvent[] {
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

  /** Waits until the cache has seen the store's current revision; false on timeout. */
  private async fresh(): Promise<boolean> {
    const target = await this.store.currentRevision();
    if (this.revision >= target) return true;
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(false);
      }, this.freshnessTimeoutMs);
      const waiter = {
        revision: target,
        resolve: () => {
          clearTimeout(timer);
          resolve(true);
        },
      };
      this.waiters.push(waiter);
      // Other prefixes' writes move the store's revision too: ask the store to confirm progress.
      this.requestUpstreamProgress();
    });
  }

  private covers(prefix: string): boolean {
    return prefix.startsWith(this.prefix);
  }

  async get(key: string, opts?: GetOptions): Promise<GetResult> {
    // resourceVersion=0 (kube's cacher does the same): the cache's copy as it is; otherwise the store.
    if (opts?.anyRecent && !opts.revision && this.covers(key)) {
      const kv = this.items.get(key);
      return kv ? { kv, revision: this.revision } : { revision: this.revision };
    }
    return this.store.get(key, opts);
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    if (!this.covers(prefix)) return this.store.list(prefix, opts);
    let revision: number;
    if (opts.revision) {
      // A past snapshot the cache still is: nothing under the prefix changed since (the later
      // pages of a paged list, typically). Anything older is the store's to answer.
      if (opts.revision < this.lastChange || opts.revision > this.revision) return this.store.list(prefix, opts);
      revision = opts.revision;
    } else {
      if (!opts.anyRecent && !(await this.fresh())) return this.store.list(prefix, opts);
      revision = this.revision;
    }
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

  async count(prefix: string): Promise<number> {
    if (!this.covers(prefix) || !(await this.fresh())) return this.store.count(prefix);
    let n = 0;
    for (const key of this.items.keys()) if (key.startsWith(prefix)) n++;
    return n;
  }

  optimisticPut(key: string, value: Uint8Array, expectedModRevision: number): Promise<PutResult> {
    return this.store.optimisticPut(key, value, expectedModRevision);
  }

  optimisticDelete(key: string, expectedModRevision: number): Promise<DeleteResult> {
    return this.store.optimisticDelete(key, expectedModRevision);
  }

  watch(prefix: string, opts: WatchOptions): StoreWatch {
    if (!this.covers(prefix)) return this.store.watch(prefix, opts);
    const after = opts.afterRevision > 0 ? opts.afterRevision : this.revision;
    // Older than the window (e.g. just after a restart): the store replays its own history, so a
    // resuming client loses nothing; only history the store compacted away is Compacted (410).
    if (after < this.windowStart) return this.store.watch(prefix, opts);
    return new CachedWatch(this.hub.subscribe(prefix, opts.signal, after), after, this);
  }

  /**
   * A progress event for `watch` (one of this cache's), once the store confirms its revision.
   * Progress is confirmed by the store, so it covers writes to other prefixes too; it goes to the
   * watchers that asked, not to all of them.
   */
  requestProgressFor(watch: StoreWatch): void {
    this.hub.requestProgressFor(watch);
    this.requestUpstreamProgress();
  }

  /** Asks the store for progress; many watchers' requests share one. */
  private requestUpstreamProgress(): void {
    if (this.progressPending || !this.upstream) return;
    this.progressPending = true;
    this.upstream.requestProgress();
  }

  currentRevision(): Promise<number> {
    return this.store.currentRevision();
  }

  compactedRevision(): Promise<number> {
    return this.store.compactedRevision();
  }

  async compact(revision: number): Promise<void> {
    await this.store.compact(revision);
    // History below the store's compaction is gone for cache watchers too.
    while (this.window.length && this.window[0]!.revision <= revision) this.windowStart = this.window.shift()!.revision;
    this.windowStart = Math.max(this.windowStart, Math.min(revision, this.revision));
  }

  /** Stops following the store and ends every watch; the store itself stays open. */
  async close(): Promise<void> {
    this.stopped.abort();
    this.hub.closeAll();
    for (const w of this.waiters) w.resolve();
    this.waiters = [];
  }
}

/** A watch from the cache's hub, and the sink that passes its events on. */
class CachedWatch implements StoreWatch, EventSink<WatchEvent> {
  private sink: EventSink<WatchEvent> | undefined;

  constructor(
    private readonly watch: StoreWatch,
    private readonly after: number,
    private readonly cache: WatchCache,
  ) {}

  requestProgress(): void {
    this.cache.requestProgressFor(this.watch);
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
