// The storage contract: etcd's contract for Kubernetes (etcd client/v3/kubernetes/interface.go),
// bytes in and bytes out. One global, strictly increasing revision per store; an object's
// resourceVersion is its modRevision as a decimal string. Every backend (memory, sqlite, etcd)
// passes the same conformance suite (test/support/storage/storage-conformance.ts).

import type { PushStream } from './push-stream.js';

export interface KeyValue {
  readonly key: string;
  readonly value: Uint8Array;
  /** Revision of the write that created this incarnation of the key. */
  readonly createRevision: number;
  /** Revision of the last write to the key (its resourceVersion). */
  readonly modRevision: number;
}

export interface GetOptions {
  /** Read as of this revision (0 or absent: latest). Older than the compacted revision → Compacted. */
  revision?: number;
  /** resourceVersion "0": any recent state will do (a cache answers from memory); stores ignore it. */
  anyRecent?: boolean;
}

export interface GetResult {
  /** Absent when the key does not exist (at that revision). */
  kv?: KeyValue;
  /** The store revision the read was served at. */
  revision: number;
}

export interface ListOptions {
  /** Read as of this revision (0 or absent: latest). */
  revision?: number;
  /** At most this many keys (0 or absent: no limit). */
  limit?: number;
  /** Only keys strictly greater than this one (pagination). */
  startAfter?: string;
  /**
   * resourceVersion "0": any recent state will do. A cache then answers from memory without
   * first asking the store for its current revision; stores ignore it.
   */
  anyRecent?: boolean;
  /**
   * Also count the keys under the prefix past this page (`ListResult.remaining`), at the same
   * revision: what etcd's range count gives and kube's `remainingItemCount` is made from.
   */
  countRemaining?: boolean;

  /**
   * A narrowing hint from a label selector's equality and `in` requirements: only keys whose
   * object has label `key` with one of `values`, for every entry, need be returned. A cache with
   * a label index (label-index.ts) answers from it; stores ignore it. Callers still match every
   * item against their full selector; `limit` and `more` then count the keys returned.
   */
  labels?: readonly LabelEquality[];
}

/** One label requirement a store may narrow a list by: label `key` is one of `values`. */
export interface LabelEquality {
  readonly key: string;
  readonly values: readonly string[];
}

export interface ListResult {
  /** Keys under the prefix in byte order of their UTF-8 form. */
  kvs: KeyValue[];
  /** True when keys beyond `limit` remain. */
  more: boolean;
  /** With `countRemaining`: how many keys under the prefix lie past this page (0 unless `more`). */
  remaining?: number;
  /** The revision the whole list was read at; pass it back to read the next page from the same snapshot. */
  revision: number;
}

export interface WriteResult {
  /** The store revision of this write. */
  revision: number;
}

export interface PutResult extends WriteResult {
  kv: KeyValue;
}

export interface DeleteResult extends WriteResult {
  /** The value that was deleted. */
  prevKv: KeyValue;
}

export type WatchEvent =
  | { type: 'put'; revision: number; kv: KeyValue; prevKv?: KeyValue }
  | { type: 'delete'; revision: number; key: string; prevKv: KeyValue }
  /** Every event at or below `revision` for this watch has been delivered. */
  | { type: 'progress'; revision: number };

export interface WatchOptions {
  /**
   * Deliver every change with revision > afterRevision, in order. 0 means "from the latest revision
   * this implementation has observed" (a cache may be a moment behind the store): callers that need
   * an exact start pass the revision they read at.
   */
  afterRevision: number;
  /** Aborting ends the watch (cleanly); without a signal, the consumer's stop() ends it. */
  signal?: AbortSignal;
}

/**
 * An ordered, gap-free, duplicate-free stream of changes under a prefix, pushed to one sink (or
 * iterated with `for await`, one or the other). A failure (Compacted, Unavailable) ends it with
 * that StorageError; aborting the watch's signal ends it cleanly.
 */
export interface StoreWatch extends PushStream<WatchEvent>, AsyncIterable<WatchEvent> {
  /** Ask for a `progress` event once every event up to the store's current revision has been delivered. */
  requestProgress(): void;
}

export type StorageErrorCode =
  | 'KeyNotFound'
  | 'KeyExists'
  | 'Conflict'
  /** The store did not answer in time (etcd without quorum); the write may or may not have happened. */
  | 'Timeout'
  | 'Compacted'
  | 'RevisionTooLarge'
  | 'ValueTooLarge'
  | 'Unavailable'
  /** Not served right now (a watch cache re-initializing); retry after `retryAfterSeconds`. */
  | 'TooManyRequests';

/** The only error that leaves storage. `current` carries the key's current value on Conflict / KeyExists. */
export class StorageError extends Error {
  constructor(
    readonly code: StorageErrorCode,
    message: string,
    readonly key?: string,
    readonly current?: KeyValue,
    /** For Compacted: the compacted revision; for RevisionTooLarge: the current revision. */
    readonly revision?: number,
    /** For TooManyRequests: when to try again. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'StorageError';
  }
}

/**
 * The store's history went backwards (etcd restored from an older snapshot): revisions this
 * process has seen no longer exist, or will mean other writes. Watches end with it (a 410 for
 * clients, who then re-list) and caches re-list.
 */
export class HistoryRewound extends StorageError {
  constructor(
    readonly from: number,
    readonly to: number,
  ) {
    super('Compacted', `the store's revision went back from ${from} to ${to} (restored from an older snapshot?); list again`, undefined, undefined, to);
  }
}

export const isStorageError = (e: unknown, code?: StorageErrorCode): e is StorageError =>
  e instanceof StorageError && (code === undefined || e.code === code);

export interface RevisionedStore {
  /** Current value of one key. */
  get(key: string, opts?: GetOptions): Promise<GetResult>;
  /** Keys under a prefix (a prefix `/a/` never matches `/ab`), ordered by key. */
  list(prefix: string, opts?: ListOptions): Promise<ListResult>;
  /** Number of live keys under a prefix. */
  count(prefix: string): Promise<number>;
  /**
   * Writes `value` if the key's modRevision equals `expectedModRevision` (0: the key must not exist).
   * Throws KeyExists (expected 0, key exists), KeyNotFound (expected > 0, key missing) or Conflict,
   * each with `current` set to the key's current value when there is one. Durable when it resolves.
   */
  optimisticPut(key: string, value: Uint8Array, expectedModRevision: number): Promise<PutResult>;
  /** Deletes the key if its modRevision equals `expectedModRevision`; KeyNotFound / Conflict otherwise. */
  optimisticDelete(key: string, expectedModRevision: number): Promise<DeleteResult>;
  /**
   * Streams changes under a prefix; throws Compacted (on iteration) if afterRevision < compacted
   * revision. A store that cannot take a watch at all right now (a watch cache re-initializing)
   * throws TooManyRequests at once, so the caller can answer before it starts a response.
   */
  watch(prefix: string, opts: WatchOptions): StoreWatch;
  /** The latest revision of the whole store. */
  currentRevision(): Promise<number>;
  /** The oldest revision still readable (history at or below it, except current values, is gone). */
  compactedRevision(): Promise<number>;
  /** Drops history older than `revision`; reads and watches below it then fail with Compacted. */
  compact(revision: number): Promise<void>;
  /** Ends every watch and releases resources. */
  close(): Promise<void>;
}
