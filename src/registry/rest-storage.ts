// What http/ handlers call: the verbs of one endpoint (a resource, or its /status subresource).
// GenericStore implements it; handlers never see storage.

import type { DeleteOptions, KubeObject } from '../apimachinery/object-meta.js';
import type { RequestContext } from '../apimachinery/request-context.js';
import type { PushStream } from '../storage/push-stream.js';
import type { ResourceDefinition } from './resource-definition.js';

export interface GetQuery {
  /** "" (consistent read) or a revision; "0" means any recent version is fine. */
  resourceVersion?: string;
}

export interface ListQuery {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
  /** A watch option: a list (or delete-collection) that carries it is refused, as kube refuses it. */
  sendInitialEvents?: boolean;
}

export interface ListOutput<T extends KubeObject> {
  /** Read-only: items may be shared with other readers of the same stored values. */
  items: T[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface WriteOptions {
  /** Manager recorded in managedFields (query `fieldManager` or the user-agent default). */
  fieldManager: string;
  /**
   * Re-run the update function on a lost race even though the object it returns carries a
   * resourceVersion (patches: the version is the one the patch was applied to, not the client's).
   */
  retryOnConflict?: boolean;
  /** A replace (PUT): a missing object is created when the kind allows it (strategy allowCreateOnUpdate). */
  createIfMissing?: boolean;
}

/**
 * Computes the object to store from the current one (kube's UpdatedObjectInfo).
 * `current` is undefined when the object does not exist. Called again when an
 * optimistic write loses a race, so it must be free of side effects.
 */
export type UpdateFn<T extends KubeObject> = (current: T | undefined) => T | Promise<T>;

export interface ApplyOptions {
  /** The applier (required for apply). */
  fieldManager: string;
  /** Take ownership of conflicting fields instead of failing with 409. */
  force: boolean;
}

export interface UpdateOutput<T extends KubeObject> {
  object: T;
  created: boolean;
}

export interface DeleteOutput<T extends KubeObject> {
  object: T;
  /** False when the object was only marked (deletionTimestamp set, finalizers pending). */
  deleted: boolean;
}

export interface WatchQuery extends ListQuery {
  allowWatchBookmarks?: boolean;
}

export type ObjectWatchEvent<T extends KubeObject> =
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: T }
  /** Progress: every change up to resourceVersion was sent. `initialEventsEnd` ends sendInitialEvents. */
  | { type: 'BOOKMARK'; resourceVersion: string; initialEventsEnd?: boolean };

/**
 * Events in resourceVersion order, pushed to one sink (or iterated); a watch that cannot go on
 * ends with a StatusError (e.g. 410).
 */
export interface ObjectWatch<T extends KubeObject> extends PushStream<ObjectWatchEvent<T>>, AsyncIterable<ObjectWatchEvent<T>> {
  /** Ask for a BOOKMARK once everything before the current revision was delivered. */
  requestBookmark(): void;
}

export interface RestStorage<T extends KubeObject = KubeObject> {
  readonly definition: ResourceDefinition<T>;
  /** Subresource this endpoint serves ("" for the main resource). */
  readonly subresource: string;
  /** Read-only: the object may be shared with other readers of the same stored value. */
  get(ctx: RequestContext, name: string, query: GetQuery): Promise<T>;
  list(ctx: RequestContext, query: ListQuery): Promise<ListOutput<T>>;
  create(ctx: RequestContext, obj: T, opts: WriteOptions): Promise<T>;
  update(ctx: RequestContext, name: string, fn: UpdateFn<T>, opts: WriteOptions): Promise<UpdateOutput<T>>;
  /** Server-side apply of a configuration; creates the object when it does not exist (main resource only). */
  apply(ctx: RequestContext, name: string, config: Record<string, unknown>, opts: ApplyOptions): Promise<UpdateOutput<T>>;
  delete(ctx: RequestContext, name: string, opts: DeleteOptions): Promise<DeleteOutput<T>>;
  deleteCollection(ctx: RequestContext, opts: DeleteOptions, query: ListQuery): Promise<ListOutput<T>>;
  /** Changes matching the query's selectors; ends when `signal` aborts or by the watch's stop(). */
  watch(ctx: RequestContext, query: WatchQuery, signal?: AbortSignal): Promise<ObjectWatch<T>>;
}
