// Filter: the request timeout (kube's WithTimeoutForNonLongRunningRequests, --request-timeout).
// A request that is not long-running must be answered within the timeout, counted from its
// arrival: past it, the client gets 504 Timeout at once, the request's signal aborts so its
// work can stop, and whatever the handler writes later is dropped (the reply is already sent).
// A watch keeps its own timeoutSeconds.

import { timeout, type StatusError } from '../../apimachinery/status-error.js';
import { passThrough, type Filter } from './filter.js';

export function timedOut(): StatusError {
  const err = timeout('request did not complete within the allotted timeout');
  err.status.details = {};
  return err;
}

export function timeoutFilter(requestTimeoutMs: number): Filter {
  if (requestTimeoutMs <= 0) return passThrough;
  return (s, next) => {
    if (s.longRunning) return next();
    const remaining = s.receivedAt + requestTimeoutMs - performance.now();
    if (remaining <= 0) {
      s.cancellation.cancel();
      return Promise.reject(timedOut());
    }
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        s.cancellation.cancel();
        s.logger.debug({ path: s.path }, 'request timed out');
        reject(timedOut());
      }, remaining);
      next().then(
        () => {
          clearTimeout(timer);
          resolve();
        },
        (err: unknown) => {
          clearTimeout(timer);
          reject(err);
        },
      );
    });
  };
}
