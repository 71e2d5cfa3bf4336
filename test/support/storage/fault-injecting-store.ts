// A RevisionedStore that passes everything to another one and can be made to fail on demand, as a
// networked store fails: watch streams broken (connection lost, store restarted: Unavailable;
// the watched revision compacted: Compacted), the store unreachable for a while, lists failing,
// events held back in transit. For tests of what sits above a store (the watch cache); nothing in
// the server uses it.

import { iterate, type EventSink } from '../../../src/storage/push-stream.js';
import {
  StorageError,
  type DeleteResult,
  type GetOptions,
  type GetResult,
  type ListOptions,
  type ListResult,
  type PutResult,
  type RevisionedStore,
  type StorageErrorCode,
  type StoreWatch,
  type WatchEvent,
  type WatchOptions,
} from '../../../src/storage/revisioned-store.js';

/** How often each operation reached this store (failed ones included). */
export interface FaultCounters {
  list: number;
  watch: number;
}

export class FaultInjectingStore implements RevisionedStore {
  readonly calls: FaultCounters = { list: 0, watch: 0 };
  private readonly watches = new Set<FaultyWatch>();
  private down = false;
  private listFailures = 0;
  private watchFailures = 0;
  private held = false;
  /** Lists waiting for releaseLists() (a store that does not answer). */
  private stalled: (() => void)[] | undefined;

  constructor(readonly inner: RevisionedStore) {}

  /** Unreachable (true): every call fails with Unavailable and open watches end with it; reachable again (false). */
  setDown(down: boolean): void {
    this.down = down;
    if (down) this.breakWatches('Unavailable');
  }

  /** The next `n` lists fail with Unavailable. */
  failNextLists(n: number): void {
    this.listFailures = n;
  }

  /** Lists wait, unanswered, until releaseLists() (a store that accepts connections but does not answer). */
  stallLists(): void {
    this.stalled ??= [];
  }

  releaseLists(): void {
    const waiting = this.stalled ?? [];
    this.stalled = undefined;
    for (const go of waiting) go();
  }

  /** The next `n` watches end with Unavailable as soon as they start (the store drops each new stream). */
  failNextWatches(n: number): void {
    this.watchFailures = n;
  }

  /** Ends every open watch with a StorageError of `code`, as a lost connection or a store restart does. */
  breakWatches(code: StorageErrorCode = 'Unavailable'): void {
    for (const w of [...this.watches]) w.fail(new StorageError(code, `injected fault: watch ended (${code})`));
  }

  /** Compacts at the current revision and ends open watches with Compacted, as etcd cancels a watch it compacted past. */
  async compactAndBreak(): Promise<number> {
    const revision = await this.inner.currentRevision();
    await this.inner.compact(revision);
    for (const w of [...this.watches]) w.fail(new StorageError('Compacted', `injected fault: required revision has been compacted`, undefined, undefined, revision));
    return revision;
  }

  /** Holds back every watch event (in transit) until release(). */
  hold(): void {
    this.held = true;
  }

  release(): void {
    this.held = false;
    for (const w of [...this.watches]) w.flush();
  }

  get isHeld(): boolean {
    return this.held;
  }

  get openWatches(): number {
    return this.watches.size;
  }

  forget(w: FaultyWatch): void {
    this.watches.delete(w);
  }

  private check(): void {
    if (this.down) throw new StorageError('Unavailable', 'injected fault: the store is unreachable');
  }

  async get(key: string, opts?: GetOptions): Promise<GetResult> {
    this.check();
    return this.inner.get(key, opts);
  }

  async list(prefix: string, opts?: ListOptions): Promise<ListResult> {
    this.calls.list++;
    const stalled = this.stalled;
    if (stalled) await new Promise<void>((resolve) => stalled.push(resolve));
    this.check();
    if (this.listFailures > 0) {
      this.listFailures--;
      throw new StorageError('Unavailable', 'injected fault: list failed');
    }
    return this.inner.list(prefix, opts);
  }

  async count(prefix: string): Promise<number> {
    this.check();
    return this.inner.count(prefix);
  }

  async optimisticPut(key: string, value: Uint8Array, expectedModRevision: number): Promise<PutResult> {
    this.check();
    return this.inner.optimisticPut(key, value, expectedModRevision);
  }

  async optimisticDelete(key: string, expectedModRevision: number): Promise<DeleteResult> {
    this.check();
    return this.inner.optimisticDelete(key, expectedModRevision);
  }

  watch(prefix: string, opts: WatchOptions): StoreWatch {
    this.calls.watch++;
    const w = new FaultyWatch(this.inner.watch(prefix, opts), this);
    this.watches.add(w);
    if (this.down) w.fail(new StorageError('Unavailable', 'injected fault: the store is unreachable'));
    else if (this.watchFailures > 0) {
      this.watchFailures--;
      w.fail(new StorageError('Unavailable', 'injected fault: watch stream dropped'));
    }
    return w;
  }

  async currentRevision(): Promise<number> {
    this.check();
    return this.inner.currentRevision();
  }

  async compactedRevision(): Promise<number> {
    this.check();
    return this.inner.compactedRevision();
  }

  async compact(revision: number): Promise<void> {
    this.check();
    return this.inner.compact(revision);
  }

  async close(): Promise<void> {
    await this.inner.close();
  }
}

/** One watch through the faulty store: forwards the inner watch's events unless failed or held. */
class FaultyWatch implements StoreWatch, EventSink<WatchEvent> {
  private sink: EventSink<WatchEvent> | undefined;
  private ended = false;
  private failure: unknown;
  private readonly heldEvents: WatchEvent[] = [];
  private paused = false;

  constructor(
    private readonly innerWatch: StoreWatch,
    private readonly owner: FaultInjectingStore,
  ) {}

  start(sink: EventSink<WatchEvent>): void {
    if (this.ended) {
      sink.end(this.failure);
      return;
    }
    this.sink = sink;
    this.innerWatch.start(this);
  }

  resume(): void {
    this.paused = false;
    this.flush();
    if (!this.paused) this.innerWatch.resume();
  }

  stop(): void {
    this.ended = true;
    this.sink = undefined;
    this.owner.forget(this);
    this.innerWatch.stop();
  }

  requestProgress(): void {
    this.innerWatch.requestProgress();
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent> {
    return iterate(this);
  }

  /** The inner watch's event. */
  next(e: WatchEvent): boolean {
    if (this.ended) return false;
    if (this.owner.isHeld || this.heldEvents.length) {
      this.heldEvents.push(e);
      return true;
    }
    const more = this.sink ? this.sink.next(e) : false;
    if (!more) this.paused = true;
    return more;
  }

  /** The inner watch ended. */
  end(err?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.owner.forget(this);
    const sink = this.sink;
    this.sink = undefined;
    sink?.end(err);
  }

  /** Delivers the events held in transit. */
  flush(): void {
    while (this.heldEvents.length && !this.paused && !this.ended && !this.owner.isHeld) {
      const e = this.heldEvents.shift()!;
      if (!(this.sink?.next(e) ?? false)) this.paused = true;
    }
  }

  /** Ends the watch with `err` (the inner watch is stopped; what it still held is lost, as on a broken connection). */
  fail(err: unknown): void {
    if (this.ended) return;
    this.failure = err;
    this.heldEvents.length = 0;
    this.innerWatch.stop();
    this.end(err);
  }
}
