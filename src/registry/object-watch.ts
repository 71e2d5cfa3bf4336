// A watch of one kind's objects over the store's change stream: initial state as ADDED events
// when asked, then ADDED / MODIFIED / DELETED with kube's selector transitions (an object that
// stops matching is DELETED, one that starts matching is ADDED), and BOOKMARKs on request.
// Push-based like the store's watch: a store event becomes an object event in the same call.

import type { KubeObject } from '../apimachinery/object-meta.js';
import { resourceExpired, serviceUnavailable } from '../apimachinery/status-error.js';
import { iterate, type EventSink } from '../storage/push-stream.js';
import { isStorageError, type KeyValue, type RevisionedStore, type StoreWatch, type WatchEvent } from '../storage/revisioned-store.js';
import { matchesSelectors, type Selectors } from './list-options.js';
import { restampShared } from './object-codec.js';
import type { ResourceDefinition } from './resource-definition.js';
import type { ObjectWatch, ObjectWatchEvent } from './rest-storage.js';

export interface ObjectWatchOptions<T extends KubeObject> {
  storage: RevisionedStore;
  prefix: string;
  /** The one key a `metadata.name=x` field selector allows, when a name is a key (undefined: any). */
  onlyKey?: string;
  /** A stored value as the kind's shared object (decoded once per version; converted for a kind stored as another). */
  decode(kv: KeyValue): T;
  definition: ResourceDefinition<T>;
  selectors: Selectors;
  /** Changes after this revision are sent. */
  afterRevision: number;
  /** Sent first, as ADDED (the initial state); then a BOOKMARK marks their end when `initialEventsEnd`. */
  initial: T[];
  initialEventsEnd: boolean;
  signal?: AbortSignal;
}

/**
 * Selector results per shared (decoded once, never mutated) object and selector text: a thousand
 * watchers with the same selector evaluate it once per event.
 */
const matchMemo = new WeakMap<object, Map<string, boolean>>();

/**
 * The last store event translated, for whom, and the result: a fan-out hands one store event
 * to every watcher in a row, so watchers of one kind with one selector share one translation
 * (and one event object) instead of each looking the event up and allocating its own.
 */
let lastEvent: WatchEvent | undefined;
let lastDefinition: ResourceDefinition | undefined;
let lastSelectors: string | undefined;
let lastTranslation: ObjectWatchEvent<KubeObject> | undefined;

export function watchObjects<T extends KubeObject>(o: ObjectWatchOptions<T>): ObjectWatch<T> {
  return new ObjectEvents(o);
}

/**
 * Both ends in one object (a watch is long-lived and there may be thousands): the ObjectWatch
 * its consumer sees, and the sink of the store watch beneath it.
 */
class ObjectEvents<T extends KubeObject> implements ObjectWatch<T>, EventSink<WatchEvent> {
  private readonly stream: StoreWatch;
  private readonly definition: ResourceDefinition<T>;
  private readonly selectors: Selectors;
  private readonly decode: (kv: KeyValue) => T;
  private readonly afterRevision: number;
  private readonly initialEventsEnd: boolean;
  /**
   * The one key a `metadata.name=x` field selector allows (undefined without one): an event of
   * any other key matches neither before nor after, and is dropped without decoding its objects.
   */
  private readonly onlyKey: string | undefined;
  /** The initial events still to deliver (undefined once done), then the end-of-initial-events bookmark. */
  private initial: T[] | undefined;
  private initialAt = 0;
  private sink: EventSink<ObjectWatchEvent<T>> | undefined;

  constructor(o: ObjectWatchOptions<T>) {
    // Opened now, so that nothing committed after afterRevision is missed while the initial
    // events go out: the store's events wait in its bounded queue meanwhile.
    this.stream = o.storage.watch(o.prefix, { afterRevision: o.afterRevision, signal: o.signal });
    this.definition = o.definition;
    this.selectors = o.selectors;
    this.onlyKey = o.onlyKey;
    this.decode = o.decode;
    this.afterRevision = o.afterRevision;
    this.initialEventsEnd = o.initialEventsEnd;
    this.initial = o.initial;
  }

  start(sink: EventSink<ObjectWatchEvent<T>>): void {
    this.sink = sink;
    this.pumpInitial();
  }

  resume(): void {
    if (this.initial) this.pumpInitial();
    else this.stream.resume();
  }

  stop(): void {
    this.initial = undefined;
    this.sink = undefined;
    this.stream.stop();
  }

  requestBookmark(): void {
    this.stream.requestProgress();
  }

  [Symbol.asyncIterator](): AsyncIterator<ObjectWatchEvent<T>> {
    return iterate(this);
  }

  /** The store watch's sink: one change, translated (or dropped by the selectors). */
  next(e: WatchEvent): boolean {
    let out: ObjectWatchEvent<T> | undefined;
    // The same event for the same kind and selectors as the previous call: the same answer
    // (progress events become bookmarks, which every watcher shares as well).
    if (e === lastEvent && this.definition === lastDefinition && this.selectors.text === lastSelectors) out = lastTranslation as ObjectWatchEvent<T> | undefined;
    else {
      out = this.translate(e);
      lastEvent = e;
      lastDefinition = this.definition as ResourceDefinition;
      lastSelectors = this.selectors.text;
      lastTranslation = out;
    }
    return out && this.sink ? this.sink.next(out) : true;
  }

  end(err?: unknown): void {
    this.sink?.end(err === undefined ? undefined : statusOf(err, this.afterRevision));
  }

  private pumpInitial(): void {
    for (let e = this.nextInitial(); e; e = this.nextInitial()) if (!this.sink?.next(e)) return;
    if (!this.initial) return; // stopped meanwhile
    this.initial = undefined;
    this.stream.start(this);
  }

  private nextInitial(): ObjectWatchEvent<T> | undefined {
    const items = this.initial;
    if (!items) return undefined;
    if (this.initialAt < items.length) return { type: 'ADDED', object: items[this.initialAt++]! };
    if (this.initialEventsEnd && this.initialAt++ === items.length) return { type: 'BOOKMARK', resourceVersion: String(this.afterRevision), initialEventsEnd: true };
    return undefined;
  }

  /** Selector results are shared by every watcher with the same selector text. */
  private matches(obj: T): boolean {
    const s = this.selectors;
    if (s.everything) return true;
    let memo = matchMemo.get(obj);
    if (!memo) matchMemo.set(obj, (memo = new Map()));
    let ok = memo.get(s.text);
    if (ok === undefined) memo.set(s.text, (ok = matchesSelectors(this.definition, s, obj)));
    return ok;
  }

  private translate(e: WatchEvent): ObjectWatchEvent<T> | undefined {
    if (e.type === 'progress') return { type: 'BOOKMARK', resourceVersion: String(e.revision) };
    // The name is the key's last segment and never changes: another key's object never matches.
    if (this.onlyKey !== undefined && (e.type === 'delete' ? e.key : e.kv.key) !== this.onlyKey) return undefined;
    // Shared across watchers of this event: decoded once, never mutated.
    if (e.type === 'delete') {
      const prev = e.prevKv ? this.decode(e.prevKv) : undefined;
      if (!prev || !this.matches(prev)) return undefined;
      // The deleted object carries the deletion's revision; the prevKv belongs to this event alone.
      restampShared(prev, String(e.revision));
      return { type: 'DELETED', object: prev };
    }
    const cur = this.decode(e.kv);
    const now = this.matches(cur);
    // The previous version is decoded only when a selector must judge it: without selectors it
    // matched (an informer's watch sees every update; most watches select nothing).
    const before = e.prevKv ? this.selectors.everything || this.matches(this.decode(e.prevKv)) : false;
    if (now && before) return { type: 'MODIFIED', object: cur };
    if (now) return { type: 'ADDED', object: cur };
    if (before) {
      // kube's cacher and etcd watcher both send the object as it was, stamped with this
      // event's revision: the watcher last saw it matching, and its resourceVersion moves on.
      // The prevKv is this event's alone, so its decoded form may be restamped.
      const prev = this.decode(e.prevKv!);
      restampShared(prev, String(e.revision));
      return { type: 'DELETED', object: prev };
    }
    return undefined;
  }
}

/** The API error a storage failure ends the watch with. */
function statusOf(err: unknown, afterRevision: number): unknown {
  if (isStorageError(err, 'Compacted')) return resourceExpired(`too old resource version: ${afterRevision} (${err.revision ?? 0})`);
  if (isStorageError(err)) return serviceUnavailable(err.message);
  return err;
}
