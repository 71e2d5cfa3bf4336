// The request path, in one place: the filters every request passes through, in kube-apiserver's
// handler-chain order, around the handler that serves it. A new concern is a new filter file
// and one line here.
//
//   request info → audit init → cache control → authentication → impersonation → audit → load shedding
//   → turn budget → in-flight limit → authorization → metrics → timeout → handler
//
// As in kube-apiserver: the audit trail is opened before authentication (refused requests are
// audited) and its level decided once the identity, impersonation included, is known; the
// load shedding, the turn budget (our single-threaded addition: a user's burst is spread over
// turns of the event loop) and the in-flight limit need the user (system:masters is exempt) and
// come before authorization; all weigh a request with the same work estimate (a wide list costs
// more).
// kube runs its timeout outside authentication; here the timeout is counted from the request's
// arrival, so the time spent before it is charged all the same. A request the timeout ends is
// still counted by the metrics filter, which wraps it.

import type { Logger } from '../../apimachinery/request-context.js';
import type { Authenticator } from '../../auth/authenticator.js';
import type { Authorizer } from '../../auth/authorizer.js';
import type { AuditLog } from './audit-log.js';
import { auditFilter, auditInit } from './audit.js';
import { authenticationFilter } from './authentication.js';
import { authorizationFilter } from './authorization.js';
import { cacheControlFilter } from './cache-control.js';
import { compose, type RequestState } from './filter.js';
import { impersonationFilter } from './impersonation.js';
import { loadShedFilter } from './load-shed.js';
import { maxInFlightFilter, SEAT_GRACE_MS, type InflightLimits } from './max-in-flight.js';
import { metricsFilter } from './metrics.js';
import { requestInfoFilter } from './request-info.js';
import type { RequestObserver } from '../../apimachinery/request-observer.js';
import { timeoutFilter } from './timeout.js';
import { turnBudgetFilter } from './turn-budget.js';
import { WorkEstimator } from './work-estimate.js';

export interface ChainOptions {
  authenticator: Authenticator;
  authorizer: Authorizer;
  clientCertificates: boolean;
  audit?: AuditLog;
  limits: InflightLimits;
  /** --max-event-loop-delay in ms (0: no shedding), and the event loop's current delay. */
  maxEventLoopDelayMs: number;
  eventLoopLag: () => number;
  requestTimeoutMs: number;
  observer: RequestObserver;
  /** Whether metrics may name this group/version/resource (served ones only: bounded labels). */
  served: (group: string, version: string, resource: string) => boolean;
  logger: Logger;
}

export function buildChain(o: ChainOptions, handler: (state: RequestState) => Promise<void>): (state: RequestState) => Promise<void> {
  const estimator = new WorkEstimator();
  return compose(
    [
      requestInfoFilter,
      auditInit(o.audit),
      cacheControlFilter,
      authenticationFilter({ authenticator: o.authenticator, clientCertificates: o.clientCertificates, logger: o.logger }),
      impersonationFilter(o.authorizer),
      auditFilter,
      loadShedFilter({ maxDelayMs: o.maxEventLoopDelayMs, lag: o.eventLoopLag, estimator, observer: o.observer }),
      turnBudgetFilter(estimator),
      maxInFlightFilter(o.limits, o.observer, estimator, o.requestTimeoutMs > 0 ? o.requestTimeoutMs + SEAT_GRACE_MS : 0),
      authorizationFilter(o.authorizer),
      metricsFilter(o.observer, o.served),
      timeoutFilter(o.requestTimeoutMs),
    ],
    handler,
  );
}
