// Events expire: kube-apiserver writes each event with a storage lease of --event-ttl (1 h by
// default), renewed by every write of it, and etcd deletes the key when it runs out. Here the
// server deletes them itself, on every backend alike (SQLite has no leases; kine, etcd's shim
// over SQL, expires keys the same way): an informer sees each write of an event, and the event
// is deleted TTL after its last write, on the condition that it was not written since (a
// resourceVersion precondition; a 409 or 404 means it was, or someone else deleted it first,
// which is how replicas sharing etcd share the work). Events found at start (or after a relist)
// expire TTL after their last recorded write (managedFields times, creation), at once when that
// passed and never later than TTL from now.

import type { Logger, UserInfo } from '../../apimachinery/request-context.js';
import { isStatusError } from '../../apimachinery/status-error.js';
import type { RestStorage } from '../../registry/rest-storage.js';
import type { Clock, TimerHandle } from '../clock.js';
import { Informer } from '../informer.js';
import { coreEventsContext, type EventObject } from './event-api.js';

/** After a failed delete (storage unavailable), the next try. */
const RETRY_MS = 10_000;

export interface EventTTLOptions {
  events: RestStorage<EventObject>;
  ttlMs: number;
  user: UserInfo;
  clock: Clock;
  logger: Logger;
}

interface Expiry {
  at: number;
  key: string;
  resourceVersion: string;
}

/** A binary min-heap on `at`. */
class ExpiryHeap {
  readonly items: Expiry[] = [];
  push(e: Expiry): void {
    const a = this.items;
    a.push(e);
    for (let i = a.length - 1; i > 0; ) {
      const p = (i - 1) >> 1;
      if (a[p]!.at <= a[i]!.at) break;
      [a[p], a[i]] = [a[i]!, a[p]!];
      i = p;
    }
  }
  peek(): Expiry | undefined {
    return this.items[0];
  }
  pop(): Expiry | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length && last) {
      a[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && a[l]!.at < a[m]!.at) m = l;
        if (r < a.length && a[r]!.at < a[m]!.at) m = r;
        if (m === i) break;
        [a[m], a[i]] = [a[i]!, a[m]!];
        i = m;
      }
    }
    return top;
  }
}

const keyOf = (e: EventObject): string => `${e.metadata.namespace ?? ''}/${e.metadata.name ?? ''}`;

/** The last write of an event as far as the object tells: its newest managedFields time, or its creation (NaN: unknown). */
function lastWriteOf(e: EventObject): number {
  const times = [e.metadata.creationTimestamp, ...(e.metadata.managedFields ?? []).map((m) => m.time)].map((t) => Date.parse(t ?? '')).filter((t) => !Number.isNaN(t));
  return times.length ? Math.max(...times) : Number.NaN;
}

export class EventTTL {
  readonly informer: Informer<EventObject>;
  private readonly heap = new ExpiryHeap();
  /** The resourceVersion each live event expires at (heap entries for other versions are stale). */
  private readonly live = new Map<string, string>();
  private timer: TimerHandle | undefined;
  private timerAt = Number.POSITIVE_INFINITY;
  private synced = false;
  private stopped = false;
  private deleting = 0;
  /** Deleted by this reaper (tests, logs). */
  expired = 0;

  constructor(private readonly o: EventTTLOptions) {
    this.informer = new Informer<EventObject>({
      source: o.events,
      user: o.user,
      clock: o.clock,
      logger: o.logger,
      handlers: {
        onAdd: (e) => this.schedule(e, !this.synced),
        onUpdate: (_old, e) => this.schedule(e, false),
        onDelete: (e) => void this.live.delete(keyOf(e)),
      },
    });
  }

  async start(): Promise<void> {
    this.informer.start();
    await this.informer.synced;
    this.synced = true;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    await this.informer.stop();
  }

  /** Events waiting to expire. */
  get pending(): number {
    return this.live.size;
  }

  private schedule(e: EventObject, found: boolean): void {
    const now = this.o.clock.now().getTime();
    const ttl = this.o.ttlMs;
    // Seen as it is written: TTL from now. Found already there: TTL from its last write, within [now, now + TTL].
    const written = found ? lastWriteOf(e) : now;
    const at = Number.isNaN(written) ? now + ttl : Math.min(now + ttl, Math.max(now, written + ttl));
    const key = keyOf(e);
    const resourceVersion = e.metadata.resourceVersion ?? '';
    this.live.set(key, resourceVersion);
    this.heap.push({ at, key, resourceVersion });
    // Stale entries (versions since rewritten) are dropped as they come due; rebuild when they dominate.
    if (this.heap.items.length > 2 * this.live.size + 1024) this.compact();
    this.arm();
  }

  private compact(): void {
    const keep = this.heap.items.filter((x) => this.live.get(x.key) === x.resourceVersion);
    this.heap.items.length = 0;
    for (const x of keep) this.heap.push(x);
  }

  private arm(): void {
    const next = this.heap.peek();
    if (!next || this.stopped || next.at >= this.timerAt) return;
    this.timer?.cancel();
    this.timerAt = next.at;
    this.timer = this.o.clock.after(next.at - this.o.clock.now().getTime(), () => {
      this.timerAt = Number.POSITIVE_INFINITY;
      this.timer = undefined;
      this.expireDue();
    });
  }

  private expireDue(): void {
    const now = this.o.clock.now().getTime();
    for (let next = this.heap.peek(); next && next.at <= now; next = this.heap.peek()) {
      this.heap.pop();
      if (this.live.get(next.key) !== next.resourceVersion) continue;
      void this.expire(next);
    }
    this.arm();
  }

  private async expire(x: Expiry): Promise<void> {
    const [namespace, name] = [x.key.slice(0, x.key.indexOf('/')), x.key.slice(x.key.indexOf('/') + 1)];
    const ctx = coreEventsContext(this.o.user, this.o.logger, namespace, 'delete');
    this.deleting++;
    try {
      await this.o.events.delete(ctx, name, { preconditions: { resourceVersion: x.resourceVersion } });
      this.expired++;
    } catch (err) {
      // Written again (a newer version expires later) or gone already: nothing to do.
      if (isStatusError(err) && (err.code === 404 || err.code === 409)) return;
      if (this.stopped) return;
      this.o.logger.warn({ err, event: x.key }, 'an expired event could not be deleted; trying again');
      if (this.live.get(x.key) === x.resourceVersion) {
        this.heap.push({ ...x, at: this.o.clock.now().getTime() + RETRY_MS });
        this.arm();
      }
    } finally {
      this.deleting--;
    }
  }
}
