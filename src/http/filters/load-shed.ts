// Filter: load shedding on event-loop delay (our single-threaded stand-in for kube's priority
// and fairness saturation). kube refuses with 429 what does not fit its concurrency; in Node the
// backlog sits in sockets and the event loop, not in running handlers, so the in-flight count
// stays low while every request waits seconds. The measure of overload here is the event loop's
// delay: while it exceeds --max-event-loop-delay, each user may start at most
// SHED_SEATS_PER_USER seats (work-estimate.ts) per second, and the rest are refused at once with
// 429 and Retry-After: 1, cheaply, before any storage or serialization work. A client sending a
// few requests keeps being served; a client flooding the server gets its allowance and 429s,
// and the loop stays short enough for the others (and the health checks) to be answered.
// Never shed: the health and version paths and system:masters, as with the in-flight limits.

import { tooManyRequests } from '../../apimachinery/status-error.js';
import type { RequestObserver } from '../../apimachinery/request-observer.js';
import { filter, passThrough, policyOf, STOP, type Entered, type Filter, type RequestState } from './filter.js';
import type { WorkEstimator } from './work-estimate.js';
import { responseClosed } from '../transport/response-closed.js';

const RETRY_AFTER_SECONDS = 1;
/** Seats a user may start per second while the event loop lags. */
export const SHED_SEATS_PER_USER = 50;
const WINDOW_MS = 1000;

export interface LoadShedOptions {
  /** --max-event-loop-delay in ms; 0 turns shedding off. */
  maxDelayMs: number;
  /** The event loop's current delay in ms. */
  lag: () => number;
  estimator: WorkEstimator;
  observer: RequestObserver;
  now?: () => number;
  /** How long a refusal waits, on average, before it is sent (default: its Retry-After). */
  rejectDelayMs?: number;
}

export function loadShedFilter(o: LoadShedOptions): Filter {
  if (o.maxDelayMs <= 0) return passThrough;
  const now = o.now ?? (() => performance.now());
  const rejectDelayMs = o.rejectDelayMs ?? RETRY_AFTER_SECONDS * 1000;
  let window = -1;
  /** Seats each user started in the current window (bounded: one entry per active user, reset every second). */
  let started = new Map<string, number>();
  /** The refusal of a request past its user's allowance. */
  const refuse = async (s: RequestState): Promise<Entered> => {
    // The refusal waits about its Retry-After before it is sent (kube's would have waited in
    // a queue before being rejected): a client that retries at once, on each of its
    // connections, then costs one cheap request per connection per second, not a busy loop
    // of 429s that keeps the event loop as full as the work it replaced. Waiting is a timer,
    // no work. The wait is spread over ±half of it: refusals decided in the same turn (a
    // storm's requests arrive together) would otherwise all be written in one later turn, a
    // burst that every other client's request waits behind.
    if (rejectDelayMs > 0) await new Promise<void>((resolve) => setTimeout(resolve, rejectDelayMs * (0.5 + Math.random())));
    // The client went away meanwhile: nothing to answer (no Status built for nobody).
    if (responseClosed(s.reply.raw)) return STOP;
    throw tooManyRequests('Too many requests, please try again later.', RETRY_AFTER_SECONDS);
  };
  return filter({
    enter(s) {
      if (s.isPublic) return;
      const p = policyOf(s, o.estimator);
      if (p.privileged) return;
      const w = Math.floor(now() / WINDOW_MS);
      if (w !== window) {
        window = w;
        started = new Map();
      }
      const mine = (started.get(p.who) ?? 0) + p.seats;
      if (mine > SHED_SEATS_PER_USER && o.lag() > o.maxDelayMs) {
        o.observer.rejected(p.kind, 'too-many-requests');
        return refuse(s);
      }
      started.set(p.who, mine);
    },
  });
}
