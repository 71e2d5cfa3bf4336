// The watch cache (kube-apiserver's cacher, as a drop-in RevisionedStore decorator for one key
// prefix): ONE watch on the store feeds an in-memory copy of the current state and a window of
// recent events; every client watch fans out from it in-process, and lists at the latest
// revision are served from memory once the cache has caught up with the store (consistent reads
// from cache). A consistent get is answered from memory when the cache is already at the store's
// current revision (`consistentGets: 'cache'`, for stores whose current revision is a local
// read: SQLite, memory), else by the store, as are writes and reads at an explicit revision. A watch from
// before the window is replayed by the store, then moves to the fan-out (bridged-watch.ts):
// unlike etcd-backed kube, our store keeps the log until compaction, so a client resuming after
// a restart or a re-list gets every event instead of a 410 and a re-list.
//
// It survives its upstream as kube's cacher does: when the store watch ends (store restarted,
// connection lost, its revision compacted) the cache turns not ready, ends its client watches
// cleanly (clients re-list and re-watch), and re-lists and re-watches the store with bounded
// exponential backoff, ready again once the fresh list is in. While not ready, lists and counts
// go straight to the store and new watches get TooManyRequests (429 with Retry-After): nothing
// waits on a cache that is not following its store. health() reports the state.

import { HistoryRewound, StorageError, type DeleteResult, type GetOptions, type GetResult, type ListOptions, type ListResult, type PutResult, type RevisionedStore, type StoreWatch, type WatchEvent, type WatchOptions } from '../revisioned-store.js';
import { WatchHub } from '../watch-hub.js';
import { backoffDelay, DEFAULT_BACKOFF, type BackoffOptions } from '../../apimachinery/backoff.js';
import { CacheContents } from './cache-contents.js';
import type { LabelsOf } from './label-index.js';
import { CachedWatch } from './cached-watch.js';
import { BridgedWatch, type BridgeTarget } from './bridged-watch.js';
import { listInPages } from './paged-list.js';

export interface WatchCacheOptions {
  store: RevisionedStore;
  /** The keys this cache holds (a resource's prefix, ending in '/'). */
  prefix: string;
  /** The cache's name in health reports (a resource's plural); the prefix by default. */
  name?: string;
  /** Recent events kept for watches that resume from a past revision. */
  windowSize?: number;
  /**
   * Where a consistent get (no resourceVersion) is answered: 'cache' asks the store for its current
   * revision and answers from memory when the cache is already there (else from the store);
   * 'store' always reads the store (etcd: its current revision is a quorum read, as costly as the
   * get itself, and the cache often trails it by a watch event). Default 'cache'.
   */
  consistentGets?: 'cache' | 'store';
  /**
   * An object's labels from its stored value: lists narrowed by labels (ListOptions.labels) are
   * then served from a label index (label-index.ts). Without it they scan the prefix.
   */
  labelsOf?: LabelsOf;
  /** How long a list waits for the cache to catch up before reading the store instead. */
  freshnessTimeoutMs?: number;
  /** Delays between re-initialization attempts (default 100 ms doubling to 30 s, with jitter). */
  backoff?: BackoffOptions;
  /** How long start() waits for the first sync before it returns a cache that is still trying (default 5 s). */
  startWaitMs?: number;
  /** Each failure: a list that failed, or the store watch ending. The cache keeps trying. */
  onError?: (err: unknown) => void;
  /** The cache is ready again after a failure. */
  onRecovered?: () => void;
}

/** One cache's state, for /readyz and logs. */
export interface WatchCacheHealth {
  /** WatchCacheOptions.name. */
  name: string;
  /** Following the store: lists are served from memory and watches fan out from it. */
  ready: boolean;
  /** The latest revision the cache has applied (0 before its first list). */
  revision: number;
  /** Why it is not ready (the failure that ended its store watch, or the last failed list); absent when ready. */
  lastError?: string;
  /** When `ready` last changed (ms since the epoch). */
  since: number;
  /** How many times the cache has become ready (1 after its first sync; more after recoveries). */
  generation: number;
}

type State = 'pending' | 'ready' | 'stopped';

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * Retry-After for a request turned away by a cache that has been down `downMs`: 1 s at first,
 * growing with the outage to at most 30 s (the curve of kube's cacher).
 */
export const retryAfterSeconds = (downMs: number): number => Math.trunc(Math.min(30, Math.max(1, Math.exp(0.06 * (downMs / 1000)))));

export class WatchCache implements RevisionedStore {
  private readonly store: RevisionedStore;
  private readonly prefix: string;
  private readonly name: string;
  private readonly freshnessTimeoutMs: number;
  private readonly consistentGets: 'cache' | 'store';
  private readonly backoff: Required<BackoffOptions>;
  private readonly onError: (err: unknown) => void;
  private readonly onRecovered: () => void;
  private readonly contents: CacheContents;
  private readonly hub: WatchHub;
  private readonly stopped = new AbortController();
  private state: State = 'pending';
  private since = Date.now();
  private generation = 0;
  /** When the current session became ready (for the backoff reset). */
  private readyAt: number | undefined;
  private lastError: string | undefined = 'not yet synced with the store';
  /** The current store watch (set only while ready), and how its end reaches the run loop. */
  private upstream: StoreWatch | undefined;
  private upstreamAbort: AbortController | undefined;
  private sessionEnded: ((err: unknown) => void) | undefined;
  private waiters: { revision: number; resolve: (caughtUp: boolean) => void }[] = [];
  /** A progress request to the store is on its way (many watchers' requests share it). */
  // Stryker disable next-line BooleanLiteral: pending since progressAskedAt 0, long over a second ago, so the first request goes out either way
  private progressPending = false;
  private progressAskedAt = 0;
  /** The store's history went back from `from` (see HistoryRewound); cleared once the cache passes it. */
  private rewoundFrom = 0;

  private constructor(opts: WatchCacheOptions) {
    this.store = opts.store;
    this.prefix = opts.prefix;
    this.name = opts.name ?? opts.prefix;
    this.freshnessTimeoutMs = opts.freshnessTimeoutMs ?? 3000;
    this.consistentGets = opts.consistentGets ?? 'cache';
    this.backoff = { ...DEFAULT_BACKOFF, ...opts.backoff };
    this.onError = opts.onError ?? (() => {});
    this.onRecovered = opts.onRecovered ?? (() => {});
    const contents = (this.contents = new CacheContents(opts.windowSize ?? 10_000, opts.labelsOf));
    this.hub = new WatchHub({ revision: () => contents.revision, history: (prefix, after, upTo, limit) => contents.history(prefix, after, upTo, limit) });
  }

  /**
   * Starts following the store: lists the prefix and watches it from that revision. Resolves once
   * the first sync is done, or failed, or after startWaitMs, with a cache that keeps trying in
   * the background when it is not ready (an unreachable store does not stop a server starting).
   * Never rejects.
   */
  static async start(opts: WatchCacheOptions): Promise<WatchCache> {
    const cache = new WatchCache(opts);
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      timer = setTimeout(resolve, opts.startWaitMs ?? 5000);
      void cache.run(resolve);
    });
    clearTimeout(timer);
    return cache;
  }

  /** The state for readiness checks. */
  health(): WatchCacheHealth {
    const h: WatchCacheHealth = { name: this.name, ready: this.state === 'ready', revision: this.contents.revision, since: this.since, generation: this.generation };
    if (this.state !== 'ready' && this.lastError !== undefined) h.lastError = this.lastError;
    return h;
  }

  /** Sync, follow until the store watch ends, back off, again, until close(). `attempted` hears the first outcome. */
  private async run(attempted: () => void): Promise<void> {
    let attempt = 0;
    while (!this.stopped.signal.aborted) {
      const err = await this.session(attempted);
      if (this.stopped.signal.aborted) break;
      this.onError(err);
      // A session that ran healthily for a while starts the delays over; a flapping one climbs.
      if (this.readyAt !== undefined && Date.now() - this.readyAt >= this.backoff.resetAfterMs) attempt = 0;
      this.readyAt = undefined;
      await sleep(backoffDelay(attempt++, this.backoff), this.stopped.signal);
    }
    attempted();
  }

  /** One list-and-watch: resolves with what ended it (the list's failure or the watch's end). */
  private async session(attempted: () => void): Promise<unknown> {
    let list: ListResult;
    try {
      // In pages at one revision, as kube's reflector lists: a store of any size fits.
      list = await listInPages(this.store, this.prefix);
    } catch (err) {
      this.lastError = messageOf(err);
      attempted();
      return err;
    }
    if (this.stopped.signal.aborted) return undefined;
    const ended = new Promise<unknown>((resolve) => (this.sessionEnded = resolve));
    this.resync(list);
    attempted();
    return ended;
  }

  /** Takes the fresh list as the whole state, watches the store from its revision, and is ready. */
  private resync(list: ListResult): void {
    this.contents.replace(list);
    const abort = (this.upstreamAbort = new AbortController());
    let upstream: StoreWatch;
    try {
      upstream = this.store.watch(this.prefix, { afterRevision: list.revision, signal: abort.signal });
    } catch (err) {
      this.lastError = messageOf(err);
      this.endSession(err);
      return;
    }
    this.upstream = upstream;
    this.follow(upstream);
    // Ready once the store has taken the watch (a stream refused at once is one more failure).
    if (this.upstream !== upstream) return;
    this.state = 'ready';
    this.generation++;
    this.since = this.readyAt = Date.now();
    this.lastError = undefined;
    if (this.generation > 1) this.onRecovered();
  }

  /** Applies the store's changes synchronously as they are committed (push, no promise per event). */
  private follow(upstream: StoreWatch): void {
    upstream.start({
      next: (e) => {
        // Stryker disable next-line BooleanLiteral: a replaced stream was stopped (its signal aborted) when the cache let go of it: pausing it changes nothing
        if (this.upstream !== upstream) return true;
        try {
          this.apply(e);
        } catch (err) {
          upstream.stop();
          this.broken(upstream, err);
        }
        return true;
      },
      end: (err) => this.broken(upstream, err ?? new StorageError('Unavailable', "the store ended the watch cache's watch")),
    });
  }

  private apply(e: WatchEvent): void {
    if (e.type === 'progress') {
      if (e.revision > this.contents.revision) this.contents.revision = e.revision;
      this.progressPending = false;
      this.hub.publishProgress(e.revision);
    } else {
      this.contents.apply(e);
      this.hub.publish([e]);
    }
    if (this.waiters.length) {
      const revision = this.contents.revision;
      this.waiters = this.waiters.filter((w) => (w.revision <= revision ? (w.resolve(true), false) : true));
    }
  }

  /** The store watch ended: not ready at once, client watches end, waiting lists go to the store. */
  private broken(upstream: StoreWatch, err: unknown): void {
    if (this.upstream !== upstream) return;
    this.upstream = undefined;
    if (this.state === 'ready') {
      this.state = 'pending';
      // Down since now; failed attempts after this do not reset it (Retry-After grows with it).
      this.since = Date.now();
    }
    this.lastError = messageOf(err);
    this.endSession(err);
  }

  private endSession(err: unknown): void {
    this.upstreamAbort?.abort();
    this.upstreamAbort = undefined;
    this.progressPending = false;
    // Clients re-list and re-watch when their watch ends: better than a gap they cannot see.
    // After a rewind their resourceVersions belong to a history that is gone: 410, re-list.
    if (err instanceof HistoryRewound) this.rewoundFrom = Math.max(this.rewoundFrom, err.from);
    this.hub.closeAll(err instanceof HistoryRewound ? err : undefined);
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w.resolve(false);
    const ended = this.sessionEnded;
    this.sessionEnded = undefined;
    ended?.(err);
  }

  /** Waits until the cache has seen the store's current revision; false on timeout or if the cache stops following. */
  private async fresh(): Promise<boolean> {
    const target = await this.store.currentRevision();
    // The store watch may have ended meanwhile: the store answers then, not a stale cache.
    if (this.state !== 'ready') return false;
    if (this.contents.revision >= target) return true;
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(false);
      }, this.freshnessTimeoutMs);
      const waiter = {
        revision: target,
        resolve: (caughtUp: boolean) => {
          clearTimeout(timer);
          resolve(caughtUp);
        },
      };
      this.waiters.push(waiter);
      // Other prefixes' writes move the store's revision too: ask the store to confirm progress.
      this.requestUpstreamProgress();
    });
  }

  /** Reads under `prefix` this cache can answer right now. */
  private covers(prefix: string): boolean {
    return this.state === 'ready' && prefix.startsWith(this.prefix);
  }

  async get(key: string, opts?: GetOptions): Promise<GetResult> {
    if (!opts?.revision && this.covers(key)) {
      // resourceVersion=0 (kube's cacher does the same): the cache's copy as it is.
      if (opts?.anyRecent) return this.cachedGet(key);
      if (this.consistentGets === 'cache') {
        // Every acknowledged write is in the cache once it is at the store's revision, so the
        // answer is the store's: the same value, the same modRevision.
        const target = await this.store.currentRevision();
        // Behind (writes under other prefixes moved the revision): a progress notification
        // brings the cache up (at once from a local store); until it has, the store answers.
        if (this.state === 'ready' && this.contents.revision < target) this.requestUpstreamProgress();
        if (this.state === 'ready' && this.contents.revision >= target) return this.cachedGet(key);
      }
    }
    return this.store.get(key, opts);
  }

  private cachedGet(key: string): GetResult {
    const kv = this.contents.get(key);
    return kv ? { kv, revision: this.contents.revision } : { revision: this.contents.revision };
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    if (!this.covers(prefix)) return this.store.list(prefix, opts);
    const c = this.contents;
    if (opts.revision) {
      // A past snapshot the cache still is: nothing under the prefix changed since (the later
      // pages of a paged list, typically). Anything older is the store's to answer.
      if (opts.revision < c.lastChange || opts.revision > c.revision) return this.store.list(prefix, opts);
      return c.list(prefix, opts, opts.revision);
    }
    // resourceVersion=0 (anyRecent): the cache as it is, without waiting to catch up.
    if (!opts.anyRecent && !(await this.fresh())) return this.store.list(prefix, opts);
    return c.list(prefix, opts, c.revision);
  }

  async count(prefix: string): Promise<number> {
    if (!this.covers(prefix) || !(await this.fresh())) return this.store.count(prefix);
    return this.contents.count(prefix);
  }

  optimisticPut(key: string, value: Uint8Array, expectedModRevision: number): Promise<PutResult> {
    return this.store.optimisticPut(key, value, expectedModRevision);
  }

  optimisticDelete(key: string, expectedModRevision: number): Promise<DeleteResult> {
    return this.store.optimisticDelete(key, expectedModRevision);
  }

  watch(prefix: string, opts: WatchOptions): StoreWatch {
    if (!prefix.startsWith(this.prefix)) return this.store.watch(prefix, opts);
    if (this.state !== 'ready') {
      // As kube's cacher: clients back off and retry rather than watch a cache that is not
      // following its store (a store watch each would bypass the fan-out just when it is weak).
      // kube's exact words whether the cache is syncing again or stopped; why it is down is in
      // health() (/readyz) and the log, not in the answer.
      throw new StorageError('TooManyRequests', 'storage is (re)initializing', undefined, undefined, undefined, retryAfterSeconds(Date.now() - this.since));
    }
    const after = opts.afterRevision > 0 ? opts.afterRevision : this.contents.revision;
    if (this.rewoundFrom && this.contents.revision >= this.rewoundFrom) this.rewoundFrom = 0;
    if (this.rewoundFrom && after > this.contents.revision && after <= this.rewoundFrom) {
      // A resourceVersion from before the store went back (a client that was not watching when
      // it happened): its history is gone, so 410 and a re-list, never a silent wait for the
      // new history to pass it. (Also refuses, harmlessly, a version another replica has just
      // handed out from the new history: that client re-lists once.)
      throw new StorageError('Compacted', `resourceVersion ${after} is from before the store's history went back to ${this.contents.revision}; list again`, undefined, undefined, this.contents.revision);
    }
    // Older than the window (e.g. just after a restart or a re-list): the store replays its own
    // history, so a resuming client loses nothing (only history the store compacted away is
    // Compacted: 410), and the watch moves to the fan-out once the replay reaches the window.
    if (after < this.contents.windowStart) return new BridgedWatch(this.store, this.bridge, prefix, after, opts.signal);
    return new CachedWatch(this.hub.subscribe(prefix, opts.signal, after), after, this);
  }

  /** Where a watch replayed by the store continues once it reaches the window. */
  private readonly bridge: BridgeTarget = {
    windowStart: () => this.contents.windowStart,
    tryWatch: (prefix, after, signal) =>
      this.state === 'ready' && after >= this.contents.windowStart ? new CachedWatch(this.hub.subscribe(prefix, signal, after), after, this) : undefined,
  };

  /**
   * A progress event for `watch` (one of this cache's), once the store confirms its revision.
   * Progress is confirmed by the store, so it covers writes to other prefixes too; it goes to the
   * watchers that asked, not to all of them.
   */
  requestProgressFor(watch: StoreWatch): void {
    this.hub.requestProgressFor(watch);
    this.requestUpstreamProgress();
  }

  /**
   * Asks the store for progress; many watchers' requests share one. A request unanswered for a
   * second is sent again (its stream may have broken, or a lagging member answered nothing yet).
   */
  private requestUpstreamProgress(): void {
    if (!this.upstream || (this.progressPending && Date.now() - this.progressAskedAt < 1000)) return;
    this.progressPending = true;
    this.progressAskedAt = Date.now();
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
    this.contents.forgetThrough(revision);
  }

  /** Stops following the store and ends every watch; the store itself stays open. */
  async close(): Promise<void> {
    if (this.stopped.signal.aborted) return;
    this.state = 'stopped';
    this.since = Date.now();
    this.stopped.abort();
    this.upstream = undefined;
    this.endSession(undefined);
  }
}

/** Problems for a readiness check: one line per cache that is not ready, named `watch-cache/<name>`. */
export function watchCacheProblems(caches: readonly WatchCache[]): string[] {
  return caches
    .map((c) => c.health())
    .filter((h) => !h.ready)
    .map((h) => `watch-cache/${h.name} failed: ${h.lastError ?? 'not ready'}`);
}

/** Waits `ms`, or less if `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: done() removes the listener itself, so `once` only repeats it
    signal.addEventListener('abort', done, { once: true });
  });
}
