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
import { effectiveUser, type Filter } from './filter.js';
import { InflightPool } from './inflight-pool.js';
import { WorkEstimator } from './work-estimate.js';
import { responseClosed } from '../transport/response-closed.js';
import { abortResponse } from '../transport/paced-body.js';
import { requestKind, type RequestKind, type RequestObserver } from '../../apimachinery/request-observer.js';

const PRIVILEGED_GROUP = 'system:masters';
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
  // Every list teaches the estimator its collection's size, limited or not.
  const run = async (s: Parameters<Filter>[0], next: Parameters<Filter>[1]): Promise<void> => {
    try {
      await next();
    } finally {
      estimator.learn(s.req, s.info);
    }
  };
  return async (s, next) => {
    if (s.longRunning || s.isPublic) return next();
    const kind = requestKind(s.info);
    const pool = pools[kind];
    if (!pool) return run(s, next);
    const user = effectiveUser(s);
    const who = user?.username ?? '';
    const seats = pool.seatsFor(estimator.seats(s.info, s.query));
    if (!pool.tryAcquire(who, seats)) {
      if (user?.groups.includes(PRIVILEGED_GROUP)) return run(s, next);
      observer.rejected(kind, 'too-many-requests');
      throw tooManyRequests('Too many requests, please try again later.', RETRY_AFTER_SECONDS);
    }
    observer.inflight(kind, 1);
    let released = false;
    let deadline: NodeJS.Timeout | undefined;
    const release = (): void => {
      if (released) return;
      released = true;
      clearTimeout(deadline);
      pool.release(who, seats);
      observer.inflight(kind, -1);
    };
    // The seats are held until the response is over, as kube's are until it is written.
    s.reply.raw.once('close', release);
    if (responseClosed(s.reply.raw)) release();
    else if (seatDeadlineMs > 0) {
      // Counted from now, not from the arrival: one duration for every request keeps each timer
      // an append to Node's list for that duration (this runs for every request).
      deadline = setTimeout(() => {
        s.logger.warn({ path: s.path, user: who }, 'response still not over past the request timeout: cut off, its in-flight seats taken back');
        abortResponse(s.reply.raw);
        release();
      }, seatDeadlineMs);
      deadline.unref();
    }
    return run(s, next);
  };
}
