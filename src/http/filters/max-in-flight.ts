// Filter: the in-flight limit (kube's WithMaxInFlightLimit, --max-requests-inflight and
// --max-mutating-requests-inflight), counted in seats as kube's priority and fairness counts
// them: a request holds its width in seats (work-estimate.ts: a list of many objects up to 10)
// until its response is over, so the limit also bounds how many multi-megabyte list responses
// are being written at once (the memory they hold while a slow client reads). Past the limit a
// request is refused at once with 429 and Retry-After: 1. Never limited: long-running requests
// (watches), the health and version paths, and system:masters (kube lets the super-user
// through so an administrator can always act). A limit of 0 is no limit.
// Seats come back at the latest shortly after the request timeout: a response still not over by
// then (a client gone in a way Node never noticed, see paced-body.ts abortResponse) is cut off,
// so no seat is kept for ever.

import { tooManyRequests } from '../../apimachinery/status-error.js';
import { filter, policyOf, type Filter, type RequestState } from './filter.js';
import { DeadlineEntry, Deadlines } from './deadlines.js';
import { InflightPool } from './inflight-pool.js';
import { WorkEstimator } from './work-estimate.js';
import { responseClosed } from '../transport/response-closed.js';
import { abortResponse } from '../transport/paced-body.js';
import type { RequestKind, RequestObserver } from '../../apimachinery/request-observer.js';

const RETRY_AFTER_SECONDS = 1;
/** How long past the request timeout a response may take to end before its seats are taken back. */
export const SEAT_GRACE_MS = 5000;

export interface InflightLimits {
  maxRequestsInflight: number;
  maxMutatingRequestsInflight: number;
}

/**
 * `seatDeadlineMs`: how long after they were taken a request's seats are taken back if its
 * response is still not over (the request timeout plus SEAT_GRACE_MS; 0: never).
 */
export function maxInFlightFilter(limits: InflightLimits, observer: RequestObserver, estimator = new WorkEstimator(), seatDeadlineMs = 0): Filter {
  const pools: Record<RequestKind, InflightPool | undefined> = {
    readOnly: limits.maxRequestsInflight > 0 ? new InflightPool(limits.maxRequestsInflight) : undefined,
    mutating: limits.maxMutatingRequestsInflight > 0 ? new InflightPool(limits.maxMutatingRequestsInflight) : undefined,
  };
  // Seat deadlines are entries in one shared list (deadlines.ts), not a timer per request; they
  // do not keep the process alive.
  const deadlines = seatDeadlineMs > 0 ? new Deadlines(false) : undefined;
  return filter({
    enter(s) {
      if (s.longRunning || s.isPublic) return;
      const p = policyOf(s, estimator);
      const pool = pools[p.kind];
      if (!pool) return;
      const seats = pool.seatsFor(p.seats);
      if (!pool.tryAcquire(p.who, seats)) {
        if (p.privileged) return;
        observer.rejected(p.kind, 'too-many-requests');
        throw tooManyRequests('Too many requests, please try again later.', RETRY_AFTER_SECONDS);
      }
      observer.inflight(p.kind, 1);
      const held = new HeldSeats(s, pool, seats, observer, deadlines);
      s.heldSeats = held;
      // The seats are held until the response is over (`ended`), as kube's are until it is written.
      if (responseClosed(s.reply.raw)) held.release();
      // Counted from now, not from the arrival: one duration for every request keeps each
      // deadline an append to the list's tail.
      else if (deadlines) deadlines.add(held, performance.now() + seatDeadlineMs, seatDeadlineMs);
    },
    // Every list teaches the estimator its collection's size, limited or not.
    leave(s) {
      estimator.learn(s.req, s.info);
    },
    ended(s) {
      s.heldSeats?.release();
    },
  });
}

/** One request's seats, from when they were taken until its response is over or its deadline. */
class HeldSeats extends DeadlineEntry {
  private released = false;

  constructor(
    private readonly s: RequestState,
    private readonly pool: InflightPool,
    private readonly seats: number,
    private readonly observer: RequestObserver,
    private readonly deadlines: Deadlines | undefined,
  ) {
    super();
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.deadlines?.remove(this);
    const p = this.s.policy!;
    this.pool.release(p.who, this.seats);
    this.observer.inflight(p.kind, -1);
  }

  /** The response is still not over past the deadline: cut off, its seats taken back. */
  expire(): void {
    this.s.logger.warn({ path: this.s.path, user: this.s.policy!.who }, 'response still not over past the request timeout: cut off, its in-flight seats taken back');
    abortResponse(this.s.reply.raw);
    this.release();
  }
}
