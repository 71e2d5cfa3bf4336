// Filter: the in-flight limit (kube's WithMaxInFlightLimit, --max-requests-inflight and
// --max-mutating-requests-inflight). A request holds a slot of its kind until its response is
// over; past the limit it is refused at once with 429 and Retry-After: 1. Never limited:
// long-running requests (watches), the health and version paths, and system:masters (kube
// lets the super-user through so an administrator can always act). A limit of 0 is no limit.

import { tooManyRequests } from '../../apimachinery/status-error.js';
import { effectiveUser, passThrough, type Filter } from './filter.js';
import { InflightPool } from './inflight-pool.js';
import type { RequestKind, RequestObserver } from '../../apimachinery/request-observer.js';

const READ_ONLY_VERBS = new Set(['get', 'list', 'watch']);
const PRIVILEGED_GROUP = 'system:masters';
const RETRY_AFTER_SECONDS = 1;

export interface InflightLimits {
  maxRequestsInflight: number;
  maxMutatingRequestsInflight: number;
}

export function maxInFlightFilter(limits: InflightLimits, observer: RequestObserver): Filter {
  if (limits.maxRequestsInflight <= 0 && limits.maxMutatingRequestsInflight <= 0) return passThrough;
  const pools: Record<RequestKind, InflightPool | undefined> = {
    readOnly: limits.maxRequestsInflight > 0 ? new InflightPool(limits.maxRequestsInflight) : undefined,
    mutating: limits.maxMutatingRequestsInflight > 0 ? new InflightPool(limits.maxMutatingRequestsInflight) : undefined,
  };
  return async (s, next) => {
    if (s.longRunning || s.isPublic) return next();
    const kind: RequestKind = READ_ONLY_VERBS.has(s.info.verb) ? 'readOnly' : 'mutating';
    const pool = pools[kind];
    if (!pool) return next();
    const user = effectiveUser(s);
    const who = user?.username ?? '';
    if (!pool.tryAcquire(who)) {
      if (user?.groups.includes(PRIVILEGED_GROUP)) return next();
      observer.rejected(kind, 'too-many-requests');
      throw tooManyRequests('Too many requests, please try again later.', RETRY_AFTER_SECONDS);
    }
    observer.inflight(kind, 1);
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      pool.release(who);
      observer.inflight(kind, -1);
    };
    // The slot is held until the response is over, as kube's is until it is written.
    s.reply.raw.once('close', release);
    if (s.reply.raw.closed) release();
    return next();
  };
}
