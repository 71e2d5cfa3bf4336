// client-go's EventCorrelator (tools/record/events_cache.go), which every kube controller's
// recorder runs before it writes: similar events (same source, object, type and reason) that
// differ only by message are combined into one "(combined from similar events): …" event once
// ten distinct messages were seen within ten minutes; an event seen before is written as a
// patch of the existing one (count + 1, lastTimestamp, message); and each source may report at
// most 25 events about one object at once, then one every five minutes (a token bucket), so a
// controller failing in a hot loop cannot flood the store. Caches are LRUs of 4096 entries.

import type { EventObject } from './event-api.js';

const LRU_ENTRIES = 4096;
const AGGREGATE_MAX_EVENTS = 10;
const AGGREGATE_INTERVAL_MS = 600_000;
const SPAM_BURST = 25;
const SPAM_QPS = 1 / 300;

/** A least-recently-used map (Map keeps insertion order: a get moves the key to the end). */
class Lru<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(key: string): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }
  set(key: string, v: V): void {
    this.map.delete(key);
    this.map.set(key, v);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value!);
  }
}

const ref = (e: EventObject) => e.involvedObject ?? {};

/** getEventKey: source, object, type, reason and message. */
export function eventKey(e: EventObject): string {
  const r = ref(e);
  return [e.source?.component, e.source?.host, r.kind, r.namespace, r.name, r.fieldPath, r.uid, r.apiVersion, e.type, e.reason, e.message].map((x) => x ?? '').join('');
}

/** getSpamKey: source and object. */
function spamKey(e: EventObject): string {
  const r = ref(e);
  return [e.source?.component, e.source?.host, r.kind, r.namespace, r.name, r.uid, r.apiVersion].map((x) => x ?? '').join('');
}

/** EventAggregatorByReasonFunc: what similar events share (the message is what tells them apart). */
function aggregateKey(e: EventObject): string {
  const r = ref(e);
  return [e.source?.component, e.source?.host, r.kind, r.namespace, r.name, r.uid, r.apiVersion, e.type, e.reason, e.reportingComponent, e.reportingInstance].map((x) => x ?? '').join('');
}

/** x/time/rate's token bucket as client-go's TryAccept uses it: starts full, refills continuously. */
class TokenBucket {
  private tokens = SPAM_BURST;
  constructor(private last: number) {}
  tryAccept(now: number): boolean {
    this.tokens = Math.min(SPAM_BURST, this.tokens + ((now - this.last) / 1000) * SPAM_QPS);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

interface Observation {
  count: number;
  firstTimestamp: string | null | undefined;
  name: string;
  resourceVersion: string;
}

export interface Correlated {
  /** The event to write. */
  event: EventObject;
  /** True when it updates an event written before (count, lastTimestamp, message), false to create it. */
  update: boolean;
}

export interface CorrelatorClock {
  now(): Date;
  /** A name for an event about `name` (kube's `<name>.<unix nanoseconds in hex>`). */
  eventName(name: string): string;
  rfc3339(d: Date): string;
}

export class EventCorrelator {
  private readonly aggregates = new Lru<{ messages: Set<string>; last: number }>(LRU_ENTRIES);
  private readonly observations = new Lru<Observation>(LRU_ENTRIES);
  private readonly spam = new Lru<TokenBucket>(LRU_ENTRIES);

  constructor(private readonly clock: CorrelatorClock) {}

  /** EventCorrelate: undefined when the event is to be dropped (its source is over its budget). */
  correlate(incoming: EventObject): Correlated | undefined {
    const [aggregated, key] = this.aggregate(incoming);
    const observed = this.observe(aggregated, key);
    if (!this.accept(observed.event)) return undefined;
    return observed;
  }

  /** UpdateState: what the server answered (its name and resourceVersion) for the next patch. */
  updateState(written: EventObject): void {
    this.observations.set(eventKey(written), {
      count: written.count ?? 0,
      firstTimestamp: written.firstTimestamp,
      name: written.metadata.name ?? '',
      resourceVersion: written.metadata.resourceVersion ?? '',
    });
  }

  private aggregate(e: EventObject): [EventObject, string] {
    const now = this.clock.now();
    const fullKey = eventKey(e);
    const groupKey = aggregateKey(e);
    let record = this.aggregates.get(groupKey);
    if (!record || now.getTime() - record.last > AGGREGATE_INTERVAL_MS) record = { messages: new Set(), last: 0 };
    record.messages.add(e.message ?? '');
    record.last = now.getTime();
    this.aggregates.set(groupKey, record);
    if (record.messages.size < AGGREGATE_MAX_EVENTS) return [e, fullKey];
    // Never keep more than the threshold's worth of messages.
    record.messages.delete(record.messages.values().next().value!);
    const t = this.clock.rfc3339(now);
    const combined: EventObject = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: this.clock.eventName(e.involvedObject?.name ?? ''), namespace: e.metadata.namespace },
      involvedObject: e.involvedObject,
      reason: e.reason,
      message: `(combined from similar events): ${e.message ?? ''}`,
      source: e.source,
      firstTimestamp: t,
      lastTimestamp: t,
      count: 1,
      type: e.type,
    };
    return [combined, groupKey];
  }

  private observe(e: EventObject, key: string): Correlated {
    const event: EventObject = { ...e, metadata: { ...e.metadata } };
    const last = this.observations.get(key);
    const update = !!last && last.count > 0;
    if (last && update) {
      event.metadata.name = last.name;
      if (last.resourceVersion) event.metadata.resourceVersion = last.resourceVersion;
      event.firstTimestamp = last.firstTimestamp;
      event.count = last.count + 1;
    }
    this.observations.set(key, { count: event.count ?? 0, firstTimestamp: event.firstTimestamp, name: event.metadata.name ?? '', resourceVersion: event.metadata.resourceVersion ?? '' });
    return { event, update };
  }

  private accept(e: EventObject): boolean {
    const key = spamKey(e);
    const now = this.clock.now().getTime();
    let bucket = this.spam.get(key);
    if (!bucket) bucket = new TokenBucket(now);
    const ok = bucket.tryAccept(now);
    this.spam.set(key, bucket);
    return ok;
  }
}
