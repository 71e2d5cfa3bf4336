// A watch of one kind's objects over the store's change stream: initial state as ADDED events
// when asked, then ADDED / MODIFIED / DELETED with kube's selector transitions (an object that
// stops matching is DELETED, one that starts matching is ADDED), and BOOKMARKs on request.

import type { KubeObject } from '../apimachinery/object-meta.js';
import { resourceExpired, serviceUnavailable } from '../apimachinery/status-error.js';
import { isStorageError, type RevisionedStore, type WatchEvent } from '../storage/revisioned-store.js';
import { matchesSelectors, type Selectors } from './list-options.js';
import { decodeShared } from './object-codec.js';
import type { ResourceDefinition } from './resource-definition.js';
import type { ObjectWatch, ObjectWatchEvent } from './rest-storage.js';

export interface ObjectWatchOptions<T extends KubeObject> {
  storage: RevisionedStore;
  prefix: string;
  definition: ResourceDefinition<T>;
  selectors: Selectors;
  /** Changes after this revision are sent. */
  afterRevision: number;
  /** Sent first, as ADDED (the initial state); then a BOOKMARK marks their end when `initialEventsEnd`. */
  initial: T[];
  initialEventsEnd: boolean;
  signal: AbortSignal;
}

export function watchObjects<T extends KubeObject>(o: ObjectWatchOptions<T>): ObjectWatch<T> {
  const stream = o.storage.watch(o.prefix, { afterRevision: o.afterRevision, signal: o.signal });
  const matches = (obj: T): boolean => matchesSelectors(o.definition, o.selectors, obj);

  function translate(e: WatchEvent): ObjectWatchEvent<T> | undefined {
    if (e.type === 'progress') return { type: 'BOOKMARK', resourceVersion: String(e.revision) };
    // Shared across watchers of this event: decoded once, never mutated.
    const prev = e.prevKv ? decodeShared<T>(e.prevKv) : undefined;
    if (e.type === 'delete') {
      if (!prev || !matches(prev)) return undefined;
      // The deleted object carries the deletion's revision; the prevKv belongs to this event alone.
      if (prev.metadata.resourceVersion !== String(e.revision)) prev.metadata.resourceVersion = String(e.revision);
      return { type: 'DELETED', object: prev };
    }
    const cur = decodeShared<T>(e.kv);
    const now = matches(cur);
    const before = prev ? matches(prev) : false;
    if (now && before) return { type: 'MODIFIED', object: cur };
    if (now) return { type: 'ADDED', object: cur };
    if (before) return { type: 'DELETED', object: cur };
    return undefined;
  }

  return {
    requestBookmark: () => stream.requestProgress(),
    async *[Symbol.asyncIterator]() {
      for (const object of o.initial) yield { type: 'ADDED', object } as ObjectWatchEvent<T>;
      if (o.initialEventsEnd) yield { type: 'BOOKMARK', resourceVersion: String(o.afterRevision), initialEventsEnd: true } as ObjectWatchEvent<T>;
      try {
        for await (const e of stream) {
          const out = translate(e);
          if (out) yield out;
        }
      } catch (err) {
        if (isStorageError(err, 'Compacted')) throw resourceExpired(`too old resource version: ${o.afterRevision} (${err.revision ?? 0})`);
        if (isStorageError(err)) throw serviceUnavailable(err.message);
        throw err;
      }
    },
  };
}
