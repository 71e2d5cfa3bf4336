// The RevisionedStore contract on etcd v3 (kube-apiserver's storage/etcd3, in our terms):
// etcd's revision is the resourceVersion; every write is one transaction comparing the key's
// mod revision (0: must not exist) that returns the current value when the compare fails;
// lists are ranges at one revision, paged by key; watches are etcd watches (etcd-watch.ts).
// Nothing is cached here: several replicas may write the same etcd, so every answer is etcd's.
// The store keeps the highest revision etcd has shown it: a watch "from now" starts there (so
// writes never wait for a watch to be created), and a linearizable answer below it, to a
// request sent after it was seen, proves etcd's history went backwards (restored from an older
// snapshot): every watch then ends with HistoryRewound and the caches re-list.
// A prefix a migration has not finished filling (etcd-unfinished.ts) is never served: until etcd
// has once shown no such mark, every object request checks for it first and fails Unavailable,
// naming the command to run.

import type { Etcd3, IKeyValue, IRangeRequest, IRangeResponse, ITxnResponse } from 'etcd3';
import { connectEtcd, transportFailure, type EtcdConnectionOptions } from './etcd-client.js';
import { toStorageError } from './etcd-errors.js';
import { EtcdKeySpace } from './etcd-keys.js';
import { ReadBatch, type KeysRead } from './etcd-read-batch.js';
import { EtcdWatch, kvOf } from './etcd-watch.js';
import { UnfinishedGuard, type EtcdUnfinishedMark } from './etcd-unfinished.js';
import { earlyProgressAnswers, oldestVersion } from './etcd-version.js';
import { mayHaveBeenApplied, outcomeUnknown, sameBytes } from './etcd-write-outcome.js';
import {
  HistoryRewound,
  StorageError,
  type DeleteResult,
  type GetOptions,
  type GetResult,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type PutResult,
  type RevisionedStore,
  type StoreWatch,
  type WatchOptions,
} from '../revisioned-store.js';

/** The key replicas compare-and-swap to take turns compacting (kube-apiserver's name for it). */
export const COMPACT_KEY = 'compact_rev_key';

export interface EtcdStoreOptions extends EtcdConnectionOptions {
  /** Store-side root of every key ('/registry' for the server; '' for none). */
  root?: string;
  /** The etcd-side replacement of the root (--etcd-prefix, default '/registry'). */
  prefix?: string;
  /** Largest value accepted (bytes, default 8 MiB); larger writes fail with ValueTooLarge. */
  maxValueBytes?: number;
}

/** Requests this store has sent to etcd, by kind (benchmarks count etcd reads per API read). */
export interface EtcdStoreStats {
  ranges: number;
  txns: number;
  revisionReads: number;
  watchesOpened: number;
}

export class EtcdStore implements RevisionedStore {
  readonly client: Etcd3;
  readonly keys: EtcdKeySpace;
  private readonly maxValueBytes: number;
  /** The compacted revision this replica last observed (its own compactions, etcd's errors, the compact key). */
  private compacted = 0;
  private readonly watches = new Set<EtcdWatch>();
  /** The highest revision etcd has shown this store (responses, watch events, progress). */
  private observed = 0;
  /** The first revision read, for a watch "from now" before anything was observed. */
  private firstRevision: Promise<number> | undefined;
  /** A rewind check is on its way. */
  private checkingRewind = false;
  /** Rewinds seen so far: an answer to a request sent before the last one is not compared with the old mark. */
  private rewinds = 0;
  /** The oldest etcd version the members reported (undefined until asked). */
  private version: string | undefined;
  private versionAsked = false;
  private readonly readAttempts: number;
  private closed = false;
  private readonly counters: EtcdStoreStats = { ranges: 0, txns: 0, revisionReads: 0, watchesOpened: 0 };
  /** Refuses the prefix while a migration into it has not finished (etcd-unfinished.ts). */
  private readonly guard: UnfinishedGuard;
  /** Consistent gets of one event-loop turn, sent to etcd as one call. */
  private readonly reads = new ReadBatch((keys) => this.readKeys(keys));

  constructor(opts: EtcdStoreOptions) {
    this.client = connectEtcd(opts);
    this.keys = new EtcdKeySpace(opts.root ?? '/registry', opts.prefix ?? '/registry');
    this.maxValueBytes = opts.maxValueBytes ?? 8 * 1024 * 1024;
    this.readAttempts = Math.max(1, opts.servers.length);
    this.guard = new UnfinishedGuard(this.client, this.keys.prefix);
  }

  /** The highest revision etcd has shown this store. */
  observedRevision(): number {
    return this.observed;
  }

  /** The etcd version the early-progress workaround is decided on (undefined: not known yet). */
  etcdVersion(): string | undefined {
    return this.version;
  }

  stats(): EtcdStoreStats {
    return { ...this.counters };
  }

  /** etcd's database size (dbSize) and the part in use (dbSizeInUse), from a member's Status, asked with a one-second deadline (as kube's storage monitor). */
  async size(): Promise<{ sizeBytes: number; inUseBytes: number }> {
    const s = await this.client.maintenance.status({ deadline: Date.now() + 1000 });
    return { sizeBytes: Number(s.dbSize), inUseBytes: Number(s.dbSizeInUse) };
  }

  /** The unfinished mark on this store's prefix, if a migration into it has not finished. */
  unfinishedMark(): Promise<EtcdUnfinishedMark | undefined> {
    return this.guard.mark();
  }

  /** At start: throws (one line naming the command to run) when etcd says the prefix is unfinished; see UnfinishedGuard. */
  refuseUnfinished(waitMs?: number): Promise<void> {
    return this.guard.refuseAtStart(waitMs);
  }

  async get(key: string, opts: GetOptions = {}): Promise<GetResult> {
    await this.guard.assertFinished();
    if (opts.revision) {
      const res = await this.range({ key: this.keys.toEtcd(key), revision: opts.revision }, key);
      const kv = res.kvs[0];
      // etcd's header carries its current revision even for a read at a past one.
      return kv ? { kv: kvOf(this.keys, kv), revision: opts.revision } : { revision: opts.revision };
    }
    this.assertOpen(key);
    let read: { kv: IKeyValue | undefined; revision: number };
    try {
      read = await this.reads.get(this.keys.toEtcd(key));
    } catch (err) {
      throw err instanceof StorageError ? err : await this.readError(err, key);
    }
    return read.kv ? { kv: kvOf(this.keys, read.kv), revision: read.revision } : { revision: read.revision };
  }

  /**
   * One etcd call reading these keys at its current revision (etcd-read-batch.ts): a Range for
   * one key, a read-only Txn of Ranges for more. Sent again to another member only when it never
   * left this process, as every read.
   */
  private async readKeys(keys: Buffer[]): Promise<KeysRead> {
    for (let attempt = 1; ; attempt++) {
      if (this.closed) throw new StorageError('Unavailable', 'store is closed');
      this.counters.ranges += keys.length;
      const floor = this.observed;
      const epoch = this.rewinds;
      try {
        const res =
          keys.length === 1
            ? await this.client.kv.range({ key: keys[0]! }).then((r) => ({ header: r.header, kvs: [r.kvs[0]] }))
            : await this.client.kv
                .txn({ compare: [], success: keys.map((key) => ({ request_range: { key } })), failure: [] })
                // etcd answers each Range of a Txn with a response_range.
                .then((r) => ({ header: r.header, kvs: r.responses.map((op) => op.response_range!.kvs[0]) }));
        const revision = Number(res.header.revision);
        this.noteAnswer(revision, floor, epoch);
        return { kvs: res.kvs, revision };
      } catch (err) {
        if (transportFailure(err) && attempt < this.readAttempts) continue;
        throw err;
      }
    }
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    await this.guard.assertFinished();
    const { key, rangeEnd } = this.keys.range(prefix);
    const start = opts.startAfter === undefined || opts.startAfter < prefix ? key : Buffer.concat([this.keys.toEtcd(opts.startAfter), Buffer.from([0])]);
    const limit = Math.max(0, opts.limit ?? 0);
    const res = await this.range({ key: start, range_end: rangeEnd, revision: opts.revision || 0, limit }, prefix);
    // A paged list keeps reading at the first page's revision, so every page is one snapshot.
    const out: ListResult = { kvs: res.kvs.map((kv) => kvOf(this.keys, kv)), more: res.more, revision: opts.revision || Number(res.header.revision) };
    // etcd counts every key in the range whatever the limit (kube's remainingItemCount is made so).
    if (opts.countRemaining) out.remaining = Math.max(0, Number(res.count) - res.kvs.length);
    return out;
  }

  async count(prefix: string): Promise<number> {
    await this.guard.assertFinished();
    const { key, rangeEnd } = this.keys.range(prefix);
    // Stryker disable next-line BooleanLiteral: equivalent, count_only only spares etcd sending the values; the count is the same
    const res = await this.range({ key, range_end: rangeEnd, count_only: true }, prefix);
    return Number(res.count);
  }

  async optimisticPut(key: string, value: Uint8Array, expectedModRevision: number): Promise<PutResult> {
    if (value.byteLength > this.maxValueBytes) {
      throw new StorageError('ValueTooLarge', `value of ${value.byteLength} bytes exceeds the limit of ${this.maxValueBytes}`, key);
    }
    await this.guard.assertFinished();
    const k = this.keys.toEtcd(key);
    // An update asks for the previous value only for its create revision; a create has none
    // (the key did not exist), so it sends the bare put kube's create sends.
    const create = expectedModRevision === 0;
    const res = await this.txn(
      key,
      {
        compare: [{ key: k, target: 'Mod', result: 'Equal', mod_revision: expectedModRevision }],
        success: [{ request_put: { key: k, value: Buffer.from(value.buffer, value.byteOffset, value.byteLength), prev_kv: !create } }],
        failure: [{ request_range: { key: k } }],
      },
      // The answer was lost: the key holding exactly these bytes, written after the revision
      // the write expected, is this write (a create's bytes carry its own uid and timestamp).
      async () => {
        const { kv } = await this.get(key);
        return kv && kv.modRevision > expectedModRevision && sameBytes(kv.value, value) ? { revision: kv.modRevision, kv } : undefined;
      },
    );
    if (!('succeeded' in res)) return res;
    if (!res.succeeded) throw this.lostCompare(key, expectedModRevision, res, 'put');
    const revision = Number(res.header.revision);
    // Stryker disable next-line OptionalChaining: equivalent, a Txn that succeeded answers its one put with a response_put
    const prev = res.responses[0]?.response_put?.prev_kv;
    const createRevision = prev && Number(prev.create_revision) > 0 ? Number(prev.create_revision) : revision;
    return { revision, kv: { key, value, createRevision, modRevision: revision } };
  }

  async optimisticDelete(key: string, expectedModRevision: number): Promise<DeleteResult> {
    await this.guard.assertFinished();
    const k = this.keys.toEtcd(key);
    // mod_revision 0 would mean "absent": deleting an absent key is KeyNotFound either way.
    // A delete whose answer was lost cannot be told from someone else's: it is answered as a
    // Timeout that says it may have been applied.
    const res = (await this.txn(key, {
      compare: [{ key: k, target: 'Mod', result: 'Equal', mod_revision: expectedModRevision }],
      success: [{ request_delete_range: { key: k, prev_kv: true } }],
      failure: [{ request_range: { key: k } }],
    })) as ITxnResponse;
    // Succeeded on an absent key (expected 0): deleted nothing, so KeyNotFound all the same.
    const deleted = res.succeeded ? res.responses[0]!.response_delete_range!.prev_kvs[0] : undefined;
    if (!deleted) throw this.lostCompare(key, expectedModRevision, res, 'delete');
    return { revision: Number(res.header.revision), prevKv: kvOf(this.keys, deleted) };
  }

  watch(prefix: string, opts: WatchOptions): StoreWatch {
    // "From now" is the highest revision this store has seen: every write issued after watch()
    // returns commits above it, so the watch sees it without any write waiting for the watch.
    // Before anything was seen, the first revision read stands in (a write waits for that one
    // read only, and only then).
    const after = opts.afterRevision > 0 ? opts.afterRevision : this.observed;
    const w = new EtcdWatch(
      {
        client: this.client,
        keys: this.keys,
        observeCompacted: (rev) => this.observeCompacted(rev),
        released: (watch) => this.watches.delete(watch),
        observe: (rev) => this.observe(rev),
        suspectRewind: () => void this.checkRewind(),
        earlyProgress: () => earlyProgressAnswers(this.version),
      },
      prefix,
      after,
      opts.signal,
      // Used only while the watch has no revision to start after (`after` was 0).
      () => this.readFirstRevision(),
    );
    if (this.closed) {
      w.close();
      return w;
    }
    this.counters.watchesOpened++;
    this.watches.add(w);
    this.learnVersion();
    w.open();
    return w;
  }

  /** The first revision read (shared by the watches "from now" made before anything was seen; a failure is asked again). */
  private readFirstRevision(): Promise<number> {
    if (this.observed > 0) return Promise.resolve(this.observed);
    const p = (this.firstRevision ??= this.currentRevision());
    p.catch(() => {
      if (this.firstRevision === p) this.firstRevision = undefined;
    });
    return p;
  }

  /** Asks a member for its version once (Status RPC); the answer gates the early-progress workaround. */
  private learnVersion(): void {
    if (this.versionAsked) return;
    this.versionAsked = true;
    void this.client.maintenance
      .status()
      .then((s) => (this.version = oldestVersion(this.version, s.version)))
      .catch(() => (this.versionAsked = false));
  }

  /** Notes a revision etcd showed (never lowers the mark; see checkRewind for that). */
  private observe(revision: number): void {
    this.observed = Math.max(this.observed, revision);
  }

  /**
   * A linearizable answer at `revision` to a request sent when the mark was `floor`: below it,
   * etcd's history went backwards (a read sent after revision R was seen must see R or later).
   * A request sent before a rewind was noticed (`rewinds` then was `epoch`) is answered from the
   * new history too: it is no second rewind, and must not end the watches opened since.
   */
  private noteAnswer(revision: number, floor: number, epoch: number): void {
    if (revision < floor && epoch === this.rewinds) this.rewound(floor, revision);
    else this.observe(revision);
  }

  /** A watch saw a current revision below its resume point: a lagging member, or a rewind. */
  private async checkRewind(): Promise<void> {
    if (this.checkingRewind || this.closed) return;
    this.checkingRewind = true;
    try {
      await this.currentRevision(); // noteAnswer decides
    } catch {
      // etcd away: the next watch re-creation asks again
    } finally {
      this.checkingRewind = false;
    }
  }

  /** etcd's history went back from `from` to `to`: every watch ends, the caches re-list. */
  private rewound(from: number, to: number): void {
    // Stryker disable next-line UpdateOperator: equivalent, rewinds is only compared for equality (noteAnswer)
    this.rewinds++;
    this.observed = to;
    this.compacted = 0;
    void this.readCompactionRecord().catch(() => undefined);
    const err = new HistoryRewound(from, to);
    for (const w of [...this.watches]) w.abort(err);
  }

  /** etcd's current revision: the header of a one-key, count-only range (no values read). */
  async currentRevision(): Promise<number> {
    this.counters.revisionReads++;
    // Stryker disable next-line BooleanLiteral: equivalent, count_only only spares etcd sending key \0's value; the header is the same
    const res = await this.range({ key: Buffer.from([0]), count_only: true }, '');
    return Number(res.header.revision);
  }

  async compactedRevision(): Promise<number> {
    return this.compacted;
  }

  /** Notes a compacted revision learned from etcd (an error, a watch, the compaction key). */
  observeCompacted(revision: number): void {
    this.compacted = Math.max(this.compacted, revision);
  }

  /** etcd's Compact (history below `revision` goes, cluster-wide). Coordination is etcd-compactor.ts's job. */
  async compact(revision: number): Promise<void> {
    const target = Math.min(revision, await this.currentRevision());
    if (target <= this.compacted) return;
    try {
      // Stryker disable next-line BooleanLiteral: equivalent, physical only makes etcd answer once the compaction is on disk; what is compacted is the same
      await this.client.kv.compact({ revision: target, physical: false });
    } catch (err) {
      const e = toStorageError(err);
      // Someone (another replica) compacted further already: that is what we wanted.
      if (e.code !== 'Compacted') throw e;
    }
    this.observeCompacted(target);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const w of [...this.watches]) w.close();
    this.client.close();
  }

  /** A read, retried on the other members after a transport failure (a read sent twice is harmless). */
  private async range(req: IRangeRequest, key: string): Promise<IRangeResponse> {
    for (let attempt = 1; ; attempt++) {
      this.assertOpen(key);
      this.counters.ranges++;
      const floor = this.observed;
      const epoch = this.rewinds;
      try {
        const res = await this.client.kv.range(req);
        this.noteAnswer(Number(res.header.revision), floor, epoch);
        return res;
      } catch (err) {
        if (transportFailure(err) && attempt < this.readAttempts) continue;
        throw await this.readError(err, key);
      }
    }
  }

  /**
   * One transaction, never retried once sent (etcd-write-outcome.ts). A failure that may have
   * been applied is settled by `settle` (reading the key), else answered as a Timeout.
   */
  private async txn(key: string, req: Parameters<Etcd3['kv']['txn']>[0], settle?: () => Promise<ITxnResponse | PutResult | undefined>): Promise<ITxnResponse | PutResult> {
    this.assertOpen(key);
    // Only before this store saw any revision: a watch "from now" is reading where now is, and a
    // write sent before that answer could land below it.
    if (this.observed === 0 && this.firstRevision) await this.firstRevision.catch(() => undefined);
    this.counters.txns++;
    const floor = this.observed;
    const epoch = this.rewinds;
    try {
      const res = await this.client.kv.txn(req);
      this.noteAnswer(Number(res.header.revision), floor, epoch);
      return res;
    } catch (err) {
      if (!mayHaveBeenApplied(err)) throw toStorageError(err, { key });
      const settled = settle ? await settle().catch(() => undefined) : undefined;
      if (settled) return settled;
      throw outcomeUnknown(key, err);
    }
  }

  /** A read error with the revisions a client's 410 / 504 message needs. */
  private async readError(err: unknown, key: string): Promise<StorageError> {
    const e = toStorageError(err, { key, compacted: this.compacted });
    if (e.code === 'RevisionTooLarge') {
      const current = await this.currentRevision().catch(() => undefined);
      return new StorageError(e.code, e.message, e.key, undefined, current);
    }
    if (e.code === 'Compacted') {
      // etcd does not say where it compacted to; the replicas' compaction record does.
      await this.readCompactionRecord().catch(() => undefined);
      return new StorageError(e.code, e.message, e.key, undefined, this.compacted);
    }
    return e;
  }

  /**
   * Reads the revision the replicas last compacted to from the compaction key (kube's
   * `compact_rev_key`, outside any prefix: compaction is cluster-wide). Returns the key's
   * version (the compactor's turn counter) and notes the revision as observed.
   */
  async readCompactionRecord(): Promise<{ version: number; revision: number }> {
    const res = await this.client.kv.range({ key: Buffer.from(COMPACT_KEY) });
    this.counters.ranges++;
    const kv = res.kvs[0];
    if (!kv) return { version: 0, revision: 0 };
    const revision = Number(kv.value.toString()) || 0;
    this.observeCompacted(revision);
    return { version: Number(kv.version), revision };
  }

  private lostCompare(key: string, expected: number, res: ITxnResponse, op: 'put' | 'delete'): StorageError {
    // A failed compare ran the failure branch: its one Range read the key as it is now.
    const found: IKeyValue | undefined = res.succeeded ? undefined : res.responses[0]!.response_range!.kvs[0];
    const current: KeyValue | undefined = found ? kvOf(this.keys, found) : undefined;
    if (!current) return new StorageError('KeyNotFound', `key ${key} not found`, key);
    if (expected === 0) {
      return op === 'put'
        ? new StorageError('KeyExists', `key ${key} already exists`, key, current)
        : new StorageError('KeyNotFound', `key ${key} not found`, key);
    }
    return new StorageError('Conflict', `key ${key} is at revision ${current.modRevision}, not ${expected}`, key, current);
  }

  private assertOpen(key: string): void {
    if (this.closed) throw new StorageError('Unavailable', 'store is closed', key);
  }
}
