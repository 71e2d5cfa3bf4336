// One store watch on etcd: its own gRPC watch stream with one watcher (prevKV, progress
// notifications), so a progress request answers exactly this watch. Events are pushed to the
// consumer synchronously; a consumer that pauses makes the queue grow, and past a bound the
// gRPC stream itself is paused (etcd then holds the events, flow control end to end).
// A stream that breaks (member restarted, connection lost) is re-created from the last fully
// delivered revision, as etcd's clientv3 watcher does: every event of one revision (a multi-key
// transaction, a `del --prefix`) comes in one watch response, so the resume point only moves at
// the end of a response, and a trusted progress notification (requested or etcd's own) moves it
// to the revision it reports. The consumer sees no gap and no duplicate; only etcd's compaction
// of that revision (Compacted), an etcd whose history went backwards (HistoryRewound, decided by
// the store) or an etcd that stays away (Unavailable) ends it.

import type { Etcd3, IWatchResponse, IWatchRequest, IKeyValue } from 'etcd3';
import { iterate, type EventSink } from '../push-stream.js';
import type { EtcdKeySpace } from './etcd-keys.js';
import { toStorageError } from './etcd-errors.js';
import { backoffDelay } from '../../apimachinery/backoff.js';
import { StorageError, type KeyValue, type StoreWatch, type WatchEvent } from '../revisioned-store.js';

export interface EtcdWatchDeps {
  client: Etcd3;
  keys: EtcdKeySpace;
  /** etcd told this watch its compacted revision. */
  observeCompacted(revision: number): void;
  /** The watch ended (for the store's bookkeeping). */
  released(watch: EtcdWatch): void;
  /** A revision etcd reported on this watch (the store's high-water mark). */
  observe(revision: number): void;
  /**
   * etcd created the watcher at a current revision below the watch's resume point: a lagging
   * member, or an etcd restored from an older snapshot. The store finds out which (and fails
   * every watch with HistoryRewound in the second case).
   */
  suspectRewind(revision: number): void;
  /**
   * Whether etcd may answer a progress request before a new watcher has caught up (etcd issue
   * 15220, fixed in 3.4.25 and 3.5.8): decided from the version the cluster reports.
   */
  earlyProgress(): boolean;
}

interface DuplexStream {
  write(req: IWatchRequest): void;
  on(event: 'data', fn: (res: IWatchResponse) => void): void;
  on(event: 'error', fn: (err: Error) => void): void;
  on(event: 'end', fn: () => void): void;
  pause(): void;
  resume(): void;
  end(): void;
  cancel?(): void;
}

/** Queued events past which the gRPC stream is paused. */
const PAUSE_AT = 1000;
/** How long after a watcher's creation progress answers are not trusted (etcd syncs new watchers every 100 ms). */
const SETTLE_MS = 300;
/** Reconnect attempts (with backoff) before the watch gives up with Unavailable; reset on success. */
const MAX_ATTEMPTS = 12;
/** Delays between reconnect attempts: short, since etcd's other members usually answer at once. */
const RECONNECT_BACKOFF = { initialMs: 100, maxMs: 3000 };

export const kvOf = (keys: EtcdKeySpace, kv: IKeyValue): KeyValue => ({
  key: keys.fromEtcd(kv.key),
  value: kv.value ?? new Uint8Array(),
  createRevision: Number(kv.create_revision),
  modRevision: Number(kv.mod_revision),
});

export class EtcdWatch implements StoreWatch {
  private sink: EventSink<WatchEvent> | undefined;
  private readonly queue: WatchEvent[] = [];
  private paused = false;
  private streamPaused = false;
  /** No more events will be queued; `failure` (if any) is delivered once the queue is drained. */
  private ended = false;
  private finished = false;
  private failure: unknown;
  /**
   * The last fully delivered revision: every event at or below it has been queued (the end of a
   * watch response, a trusted progress notification, or the watch's start). A new stream
   * resumes after it.
   */
  private last: number;
  /**
   * The revision of the last event delivered: a resumed stream's events at or below it are
   * repeats. Apart from `last` because a progress notification from an etcd that answers early
   * (see sendProgressRequest) may overtake events already committed; those must still pass.
   */
  private lastEvent: number;
  private stream: DuplexStream | undefined;
  private created = false;
  private progressWanted = false;
  /** A progress request was sent and not answered yet (a new stream sends it again). */
  private progressInFlight = false;
  private progressTimer: NodeJS.Timeout | undefined;
  /** Progress answers are trusted from this time on (see sendProgressRequest). */
  private settledAt = 0;
  private attempts = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly range: { key: Buffer; rangeEnd: Buffer };
  private settleReady!: () => void;
  /** Resolves once etcd has created the watcher (or the watch ended). */
  readonly ready = new Promise<void>((resolve) => (this.settleReady = resolve));

  constructor(
    private readonly deps: EtcdWatchDeps,
    prefix: string,
    afterRevision: number,
    private readonly signal?: AbortSignal,
    /** For a watch "from now" before the store saw any revision: the revision to start after. */
    private readonly startAt?: () => Promise<number>,
  ) {
    this.range = deps.keys.range(prefix);
    this.last = this.lastEvent = afterRevision;
  }

  /**
   * Opens the etcd watch at once (before a consumer starts it), so a write issued after
   * watch() returned is seen; `ready` settles when etcd has created the watcher.
   */
  open(): void {
    if (this.signal?.aborted) return this.close();
    this.signal?.addEventListener('abort', () => this.close(), { once: true });
    void this.connect();
  }

  start(sink: EventSink<WatchEvent>): void {
    if (this.sink) return;
    if (this.finished) {
      sink.end(this.failure);
      return;
    }
    this.sink = sink;
    this.drain();
  }

  resume(): void {
    this.paused = false;
    this.drain();
  }

  stop(): void {
    this.sink = undefined;
    this.close();
  }

  requestProgress(): void {
    this.progressWanted = true;
    this.sendProgressRequest();
  }

  /**
   * Sends the wanted progress request once the watcher is settled. etcd before 3.4.25/3.5.8
   * answers a progress request at once with its current revision even while a new watcher is
   * still replaying history (etcd issue 15220), which would claim events not yet sent; etcd
   * moves a new watcher onto the live path within one of its 100 ms sync rounds, so requests
   * wait SETTLE_MS after each (re)creation, and answers that arrive earlier are not trusted.
   */
  private sendProgressRequest(): void {
    if (!this.progressWanted || !this.created || !this.stream) return;
    const wait = this.deps.earlyProgress() ? this.settledAt - Date.now() : 0;
    if (wait > 0) {
      if (!this.progressTimer) {
        this.progressTimer = setTimeout(() => {
          this.progressTimer = undefined;
          this.sendProgressRequest();
        }, wait);
        this.progressTimer.unref?.();
      }
      return;
    }
    this.progressWanted = false;
    this.progressInFlight = true;
    this.stream.write({ progress_request: {} });
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent> {
    return iterate(this);
  }

  /** Ends the watch cleanly (abort, stop, store closed). */
  close(): void {
    if (this.finished) return;
    this.ended = true;
    this.queue.length = 0;
    this.finish(undefined);
  }

  private async connect(): Promise<void> {
    if (this.ended) return;
    let stream: DuplexStream;
    try {
      if (this.last === 0 && this.startAt) this.last = this.lastEvent = await this.startAt();
      stream = (await this.deps.client.watchClient.watch()) as unknown as DuplexStream;
    } catch (err) {
      this.broken(err);
      return;
    }
    if (this.ended) {
      stream.end();
      return;
    }
    this.stream = stream;
    this.created = false;
    stream.on('data', (res) => {
      if (this.stream === stream) this.onResponse(res);
    });
    stream.on('error', (err) => {
      if (this.stream === stream) this.broken(err);
    });
    stream.on('end', () => {
      if (this.stream === stream) this.broken(new Error('etcd ended the watch stream'));
    });
    stream.write({
      create_request: {
        key: this.range.key,
        range_end: this.range.rangeEnd,
        prev_kv: true,
        progress_notify: true,
        // From `last` itself, not last + 1: etcd then refuses (compacted) exactly when the
        // revision after which we need events is below its compaction, as the contract says;
        // the event at `last` is dropped as already delivered. 0: from etcd's current revision,
        // which the created response reports.
        start_revision: this.last,
      },
    });
  }

  private onResponse(res: IWatchResponse): void {
    if (this.ended) return;
    const headerRevision = Number(res.header.revision);
    if (res.created) {
      this.created = true;
      this.attempts = 0;
      this.settleReady();
      if (this.progressInFlight) this.progressWanted = true;
      if (this.last === 0) this.last = this.lastEvent = headerRevision;
      else if (headerRevision < this.last) this.deps.suspectRewind(headerRevision);
      else this.deps.observe(headerRevision);
      this.settledAt = Date.now() + SETTLE_MS;
      this.sendProgressRequest();
    }
    if (res.canceled) {
      const compacted = Number(res.compact_revision ?? 0);
      if (compacted > 0) {
        this.deps.observeCompacted(compacted);
        return this.fail(new StorageError('Compacted', `required revision ${this.last + 1} has been compacted (compacted revision ${compacted})`, undefined, undefined, compacted));
      }
      return this.fail(new StorageError('Unavailable', `etcd canceled the watch: ${res.cancel_reason || 'no reason given'}`));
    }
    const events = res.events ?? [];
    if (events.length === 0) {
      // A progress notification (asked for, or etcd's periodic one): every event up to the
      // header's revision has been sent, so a resumed stream may start after it (clientv3 does
      // the same), and a compaction below it does not force a re-list.
      if (res.created) return;
      if (this.deps.earlyProgress() && Date.now() < this.settledAt) {
        // Possibly ahead of the history still being replayed (see sendProgressRequest): ask again later.
        this.progressWanted = true;
        this.sendProgressRequest();
        return;
      }
      if (headerRevision < this.last) {
        // A member behind the revision this watch is at (just restarted or unfrozen, still
        // catching up): not an answer yet. Ask again shortly, so whoever wanted progress gets it.
        this.retryProgressLater();
        return;
      }
      this.progressInFlight = false;
      this.deps.observe(headerRevision);
      this.push({ type: 'progress', revision: headerRevision });
      this.advanceResumePoint(headerRevision);
      return;
    }
    // etcd never splits one revision's events over two responses, and a resumed stream starts
    // at `last` itself: events at or below the last one delivered are repeats.
    const floor = this.lastEvent;
    for (const e of events) {
      const kv = kvOf(this.deps.keys, e.kv);
      const revision = kv.modRevision;
      if (revision <= floor) continue;
      if (revision > this.lastEvent) this.lastEvent = revision;
      if (revision > this.last) this.last = revision;
      const prevKv = e.prev_kv ? kvOf(this.deps.keys, e.prev_kv) : undefined;
      if (e.type === 'Delete') {
        this.push({ type: 'delete', revision, key: kv.key, prevKv: prevKv ?? { key: kv.key, value: new Uint8Array(), createRevision: 0, modRevision: 0 } });
      } else {
        this.push(prevKv ? { type: 'put', revision, kv, prevKv } : { type: 'put', revision, kv });
      }
    }
    this.deps.observe(this.last);
  }

  private retryProgressLater(): void {
    if (this.progressTimer) return;
    this.progressTimer = setTimeout(() => {
      this.progressTimer = undefined;
      this.progressWanted = true;
      this.sendProgressRequest();
    }, 100);
    this.progressTimer.unref?.();
  }

  /**
   * A progress notification at `revision`: the resume point moves there. An etcd that answers
   * progress early (before 3.4.25 / 3.5.8) may send it ahead of events it had already queued on
   * this stream, which follow within moments: there it moves once the stream has carried on for
   * SETTLE_MS, so a stream broken right after cannot skip those events.
   */
  private advanceResumePoint(revision: number): void {
    if (!this.deps.earlyProgress()) {
      if (revision > this.last) this.last = revision;
      return;
    }
    const stream = this.stream;
    const t = setTimeout(() => {
      if (this.stream === stream && !this.ended && revision > this.last) this.last = revision;
    }, SETTLE_MS);
    t.unref?.();
  }

  /** Ends the watch with `err` (the store proved etcd's history went backwards). */
  abort(err: StorageError): void {
    if (this.ended) return;
    this.queue.length = 0;
    this.fail(err);
  }

  private push(e: WatchEvent): void {
    this.queue.push(e);
    this.drain();
    if (this.queue.length >= PAUSE_AT && !this.streamPaused && this.stream) {
      this.streamPaused = true;
      this.stream.pause();
    }
  }

  private drain(): void {
    while (!this.paused && this.sink && this.queue.length) {
      if (!this.sink.next(this.queue.shift()!)) this.paused = true;
    }
    if (this.streamPaused && this.queue.length < PAUSE_AT / 2 && this.stream) {
      this.streamPaused = false;
      this.stream.resume();
    }
    if (this.ended && this.queue.length === 0) this.finish(this.failure);
  }

  /** The stream broke: re-create it after a backoff, or give up after MAX_ATTEMPTS. */
  private broken(err: unknown): void {
    this.dropStream();
    if (this.ended) return;
    this.attempts++;
    if (this.attempts > MAX_ATTEMPTS) {
      const cause = toStorageError(err);
      return this.fail(new StorageError('Unavailable', `etcd watch could not be re-established: ${cause.message}`));
    }
    const delay = backoffDelay(this.attempts - 1, RECONNECT_BACKOFF);
    this.retryTimer = setTimeout(() => void this.connect(), delay);
    this.retryTimer.unref?.();
  }

  /** Ends with `err` after the events already queued. */
  private fail(err: unknown): void {
    this.ended = true;
    this.failure = err;
    this.dropStream();
    this.drain();
  }

  private finish(err: unknown): void {
    if (this.finished) return;
    this.finished = true;
    this.failure = err;
    this.settleReady();
    this.ended = true;
    this.dropStream();
    clearTimeout(this.retryTimer);
    clearTimeout(this.progressTimer);
    const sink = this.sink;
    this.sink = undefined;
    this.deps.released(this);
    sink?.end(err);
  }

  private dropStream(): void {
    const s = this.stream;
    this.stream = undefined;
    this.created = false;
    if (!s) return;
    try {
      if (s.cancel) s.cancel();
      else s.end();
    } catch {
      // already gone
    }
  }
}
