// A list-and-watch cache of one kind, read through the registry exactly as a remote client
// reads the API (client-go's reflector + store): list, then watch from the list's
// resourceVersion with bookmarks. A watch that ends is re-opened from the last version seen;
// one that cannot resume (410 Expired) is replaced by a fresh list, whose differences reach the
// handlers as adds, updates and deletes. Failures back off (never a hot loop) and never end
// the informer; only stop() does.

import type { KubeObject } from '../apimachinery/object-meta.js';
import { internalContext, type Logger, type RequestContext, type UserInfo } from '../apimachinery/request-context.js';
import { isStatusError } from '../apimachinery/status-error.js';
import type { ObjectWatch, RestStorage } from '../registry/rest-storage.js';
import { sleep, type Clock } from './clock.js';

export interface InformerHandlers<T extends KubeObject> {
  onAdd?(obj: T): void;
  onUpdate?(old: T, obj: T): void;
  onDelete?(obj: T): void;
}

export interface InformerOptions<T extends KubeObject> {
  source: RestStorage<T>;
  /** Who the informer reads as (the loopback identity of the in-process controllers). */
  user: UserInfo;
  clock: Clock;
  logger: Logger;
  handlers: InformerHandlers<T>;
  labelSelector?: string;
  fieldSelector?: string;
  /**
   * What the cache keeps of each object (client-go's SetTransform): a controller that reads a few
   * fields keeps only those, instead of holding every object whole beside the watch cache's copy.
   * Handlers and get() see the transformed objects.
   */
  transform?: (obj: T) => T;
  /** Objects per page of the list (client-go's pager: 500); the event loop runs between pages. */
  pageSize?: number;
  /** Backoff after a failed list or a watch that ended without events: doubling from min to max. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
}

/** An object's key in the cache: `<namespace>/<name>`, or the name alone for a cluster-scoped one (client-go's MetaNamespaceKeyFunc). */
export const objectKeyOf = (obj: KubeObject): string => (obj.metadata.namespace ? `${obj.metadata.namespace}/${obj.metadata.name}` : obj.metadata.name!);

/** Read-only objects: they may be shared with the watch cache and other readers. */
export class Informer<T extends KubeObject> {
  private readonly items = new Map<string, T>();
  private readonly abort = new AbortController();
  private readonly ctx: RequestContext;
  private syncedOnce!: () => void;
  /** Resolves after the first successful list. */
  readonly synced: Promise<void> = new Promise((r) => (this.syncedOnce = r));
  private running: Promise<void> | undefined;
  /** How many lists were made (a relist after 410 or a failed watch counts). */
  lists = 0;

  constructor(private readonly o: InformerOptions<T>) {
    this.ctx = { ...internalContext(o.user, o.logger, { verb: 'watch', resource: o.source.definition.plural }), signal: this.abort.signal };
  }

  start(): void {
    this.running ??= this.run();
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.running;
  }

  /** The object of a key (objectKeyOf: the name of a cluster-scoped object). */
  get(key: string): T | undefined {
    return this.items.get(key);
  }

  list(): T[] {
    return [...this.items.values()];
  }

  private get stopped(): boolean {
    return this.abort.signal.aborted;
  }

  private async run(): Promise<void> {
    const min = this.o.minBackoffMs ?? 100;
    const max = this.o.maxBackoffMs ?? 30_000;
    let delay = min;
    while (!this.stopped) {
      let rv: string;
      try {
        rv = await this.relist();
        delay = min;
      } catch (err) {
        if (this.stopped) return;
        this.o.logger.warn({ err, resource: this.o.source.definition.plural }, 'informer list failed; retrying');
        await sleep(this.o.clock, delay, this.abort.signal);
        delay = Math.min(max, delay * 2);
        continue;
      }
      // Watch until the version can no longer be resumed from.
      for (;;) {
        if (this.stopped) return;
        let outcome: { rv: string; events: number; expired: boolean };
        try {
          outcome = await this.watchFrom(rv);
        } catch (err) {
          if (this.stopped) return;
          this.o.logger.warn({ err, resource: this.o.source.definition.plural }, 'informer watch failed; re-listing');
          await sleep(this.o.clock, delay, this.abort.signal);
          delay = Math.min(max, delay * 2);
          break;
        }
        rv = outcome.rv;
        if (outcome.expired) break;
        if (outcome.events > 0) delay = min;
        else {
          // Ended at once with nothing delivered: do not spin.
          await sleep(this.o.clock, delay, this.abort.signal);
          delay = Math.min(max, delay * 2);
        }
      }
    }
  }

  /**
   * Lists in pages (one snapshot: every page is read at the first one's resourceVersion), applying
   * each page and letting the event loop run before the next, so 100,000 objects never hold the
   * server's requests for the seconds their decode takes; then reconciles the cache with what it
   * saw, and returns the list's resourceVersion. A continuation that expired (410) lists again
   * from the start.
   */
  private async relist(): Promise<string> {
    const seen = new Set<string>();
    let cont: string | undefined;
    let resourceVersion: string;
    for (;;) {
      let out;
      try {
        out = await this.o.source.list(this.ctx, { labelSelector: this.o.labelSelector, fieldSelector: this.o.fieldSelector, limit: this.o.pageSize ?? 500, continue: cont });
      } catch (err) {
        if (cont === undefined || !(isStatusError(err) && err.code === 410)) throw err;
        seen.clear();
        cont = undefined;
        continue;
      }
      if (this.stopped) return out.resourceVersion;
      for (const obj of out.items) {
        const key = objectKeyOf(obj);
        seen.add(key);
        this.apply(key, obj);
      }
      if (!out.continue) {
        resourceVersion = out.resourceVersion;
        break;
      }
      cont = out.continue;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    this.lists++;
    for (const [name, old] of [...this.items]) {
      if (seen.has(name)) continue;
      this.items.delete(name);
      this.call(() => this.o.handlers.onDelete?.(old));
    }
    this.syncedOnce();
    return resourceVersion;
  }

  private apply(name: string, received: T): void {
    const obj = this.o.transform ? this.o.transform(received) : received;
    const old = this.items.get(name);
    this.items.set(name, obj);
    if (!old) this.call(() => this.o.handlers.onAdd?.(obj));
    else if (old.metadata.resourceVersion !== obj.metadata.resourceVersion) this.call(() => this.o.handlers.onUpdate?.(old, obj));
  }

  /** A handler that throws is logged, never allowed to stop the informer. */
  private call(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.o.logger.error({ err, resource: this.o.source.definition.plural }, 'informer handler failed');
    }
  }

  /**
   * Watches from `rv` until the watch ends. Events are taken by push (the watch calls our sink
   * synchronously as the store delivers them), not through `for await`: an informer sees every
   * event of its kind, and a promise and a pause/resume of the store's queue per event cost
   * more than the handlers themselves.
   */
  private async watchFrom(rv: string): Promise<{ rv: string; events: number; expired: boolean }> {
    let watch: ObjectWatch<T>;
    try {
      watch = await this.o.source.watch(
        this.ctx,
        { resourceVersion: rv, allowWatchBookmarks: true, labelSelector: this.o.labelSelector, fieldSelector: this.o.fieldSelector },
        this.abort.signal,
      );
    } catch (err) {
      if (isStatusError(err) && err.code === 410) return { rv, events: 0, expired: true };
      throw err;
    }
    return new Promise((resolve, reject) => {
      let events = 0;
      let done = false;
      const signal = this.abort.signal;
      const finish = (err?: unknown): void => {
        if (done) return;
        done = true;
        signal.removeEventListener('abort', onAbort);
        if (err === undefined) resolve({ rv, events, expired: false });
        else if (isStatusError(err) && err.code === 410) resolve({ rv, events, expired: true });
        else reject(err as Error);
      };
      const onAbort = (): void => {
        watch.stop();
        finish();
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      watch.start({
        next: (e) => {
          if (done) return false;
          events++;
          if (e.type === 'BOOKMARK') {
            rv = e.resourceVersion;
            return true;
          }
          const key = objectKeyOf(e.object);
          rv = e.object.metadata.resourceVersion ?? rv;
          if (e.type === 'DELETED') {
            const old = this.items.get(key) ?? (this.o.transform ? this.o.transform(e.object) : e.object);
            this.items.delete(key);
            this.call(() => this.o.handlers.onDelete?.(old));
          } else this.apply(key, e.object);
          return true;
        },
        end: (err) => finish(err),
      });
    });
  }
}
