// client-go's record.EventRecorder with its broadcaster and sink, as kube's controllers run
// them: eventf() builds a core v1 Event about an object (in its namespace, or `default` for a
// cluster-scoped one; named `<name>.<unix nanoseconds in hex>`; source and reportingComponent
// the controller's name), queues it without blocking (at most 1000 waiting, further ones
// dropped and logged), and one writer correlates each (event-correlator.ts) and writes it through
// the Events API: a create, or for a repeat an update of the existing event's count,
// lastTimestamp and message (created afresh when it is gone). A write the server refused is
// logged and dropped; any other failure is retried up to 12 times, 10 s apart (the first wait
// random), as record's recordToSink does.

import type { KubeObject } from '../../apimachinery/object-meta.js';
import type { Logger, UserInfo } from '../../apimachinery/request-context.js';
import { isStatusError } from '../../apimachinery/status-error.js';
import type { RestStorage } from '../../registry/rest-storage.js';
import { sleep, type Clock } from '../clock.js';
import { rfc3339 } from '../service-cidr-api.js';
import { coreEventsContext, referenceTo, type EventObject } from './event-api.js';
import { EventCorrelator } from './event-correlator.js';

const MAX_QUEUED = 1000;
const MAX_TRIES = 12;
const RETRY_SLEEP_MS = 10_000;

export interface EventRecorder {
  /** Records an event about `obj` (type Normal or Warning). Never blocks, never throws. */
  eventf(obj: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): void;
}

export interface EventRecorderOptions {
  events: RestStorage<EventObject>;
  /** The reporting component (the controller's name). */
  component: string;
  /** Who writes (the controllers' loopback identity) and the field manager its writes record. */
  user: UserInfo;
  fieldManager: string;
  clock: Clock;
  logger: Logger;
  random?: () => number;
}

export class EventBroadcaster implements EventRecorder {
  private readonly queue: EventObject[] = [];
  private readonly correlator: EventCorrelator;
  private wake: (() => void) | undefined;
  private readonly abort = new AbortController();
  private readonly running: Promise<void>;
  private idle!: () => void;
  private idlePromise: Promise<void> = Promise.resolve();
  private lastNano = 0n;

  constructor(private readonly o: EventRecorderOptions) {
    this.correlator = new EventCorrelator({ now: () => o.clock.now(), eventName: (name) => this.eventName(name), rfc3339 });
    this.running = this.run();
  }

  eventf(obj: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
    if (this.abort.signal.aborted) return;
    const involvedObject = referenceTo(obj);
    const t = rfc3339(this.o.clock.now());
    const event: EventObject = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: this.eventName(involvedObject.name ?? ''), namespace: involvedObject.namespace || 'default' },
      involvedObject,
      reason,
      message,
      source: { component: this.o.component },
      firstTimestamp: t,
      lastTimestamp: t,
      count: 1,
      type,
      reportingComponent: this.o.component,
      reportingInstance: '',
    };
    // kube's structured logging of every event, beside the write.
    this.o.logger.info({ object: `${event.metadata.namespace}/${involvedObject.name ?? ''}`, kind: involvedObject.kind, type, reason, message: message }, 'Event occurred');
    if (this.queue.length >= MAX_QUEUED) {
      this.o.logger.error({ reason, message }, 'Unable to record event: too many queued events, dropped event');
      return;
    }
    if (this.queue.length === 0) this.idlePromise = new Promise((r) => (this.idle = r));
    this.queue.push(event);
    this.wake?.();
  }

  /** Resolves once every event queued so far was written or given up on (tests). */
  drained(): Promise<void> {
    return this.idlePromise;
  }

  /** Stops writing; queued events are dropped (kube's Shutdown). */
  async shutdown(): Promise<void> {
    this.abort.abort();
    this.wake?.();
    await this.running;
    this.queue.length = 0;
    this.idle?.();
  }

  /** `<name>.<unix nanoseconds, hex>`, each one later than the last (kube's clock has nanoseconds). */
  private eventName(name: string): string {
    let nano = BigInt(this.o.clock.now().getTime()) * 1_000_000n;
    if (nano <= this.lastNano) nano = this.lastNano + 1n;
    this.lastNano = nano;
    return `${name}.${nano.toString(16)}`;
  }

  private async run(): Promise<void> {
    for (;;) {
      while (this.queue.length === 0) {
        if (this.abort.signal.aborted) return;
        await new Promise<void>((r) => (this.wake = r));
        this.wake = undefined;
      }
      if (this.abort.signal.aborted) return;
      const next = this.queue[0]!;
      try {
        await this.recordToSink(next);
      } catch (err) {
        this.o.logger.error({ err, reason: next.reason }, 'Unable to record event (will not retry!)');
      }
      this.queue.shift();
      if (this.queue.length === 0) this.idle();
    }
  }

  private async recordToSink(incoming: EventObject): Promise<void> {
    const correlated = this.correlator.correlate(incoming);
    if (!correlated) return;
    for (let tries = 0; ; ) {
      if (await this.recordEvent(correlated.event, correlated.update)) return;
      if (++tries >= MAX_TRIES) {
        this.o.logger.error({ reason: incoming.reason }, 'Unable to write event (retry limit exceeded!)');
        return;
      }
      // The first wait is random, so that many writers do not retry together.
      const delay = tries === 1 ? RETRY_SLEEP_MS * (this.o.random ?? Math.random)() : RETRY_SLEEP_MS;
      await sleep(this.o.clock, delay, this.abort.signal);
      if (this.abort.signal.aborted) return;
    }
  }

  /** recordEvent: true when written or to be given up on, false to retry. */
  private async recordEvent(event: EventObject, update: boolean): Promise<boolean> {
    const ctx = coreEventsContext(this.o.user, this.o.logger, event.metadata.namespace ?? 'default');
    const opts = { fieldManager: this.o.fieldManager };
    try {
      let written: EventObject | undefined;
      if (update) {
        try {
          // The strategic merge patch record sends: count, lastTimestamp and message.
          written = (
            await this.o.events.update(
              ctx,
              event.metadata.name!,
              (cur) => ({ ...cur!, count: event.count, lastTimestamp: event.lastTimestamp, message: event.message, metadata: { ...cur!.metadata, resourceVersion: undefined } }),
              { ...opts, retryOnConflict: true },
            )
          ).object;
        } catch (err) {
          if (!(isStatusError(err) && err.code === 404)) throw err;
        }
      }
      written ??= await this.o.events.create(ctx, { ...event, metadata: { ...event.metadata, resourceVersion: undefined } }, opts);
      this.correlator.updateState(written);
      return true;
    } catch (err) {
      if (isStatusError(err)) {
        this.o.logger.error({ err, reason: event.reason }, 'Server rejected event (will not retry!)');
        return true;
      }
      this.o.logger.error({ err, reason: event.reason }, 'Unable to write event (may retry after sleeping)');
      return false;
    }
  }
}
