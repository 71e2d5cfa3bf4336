// Filter: the request timeout (kube's WithTimeoutForNonLongRunningRequests, --request-timeout).
// A request that is not long-running must be answered within the timeout, counted from its
// arrival, or within its ?timeout= when that is shorter (kube's WithRequestDeadline; an
// unparsable one is a 400): past it, the client gets 504 Timeout at once, the request's signal aborts so its
// work can stop, and whatever the handler writes later is dropped (the reply is already sent).
// A watch keeps its own timeoutSeconds.

import { badRequest, timeout, type StatusError } from '../../apimachinery/status-error.js';
import { parseGoDuration } from '../go-duration.js';
import { passThrough, type Filter } from './filter.js';

export function timedOut(): StatusError {
  const err = timeout('request did not complete within the allotted timeout');
  err.status.details = {};
  return err;
}

/** The request's own ?timeout=, in ms, when it asks for one shorter than the server's. */
function budgetMs(query: URLSearchParams, requestTimeoutMs: number): number {
  const text = query.get('timeout');
  if (!text) return requestTimeoutMs;
  let asked: number;
  try {
    asked = parseGoDuration(text);
  } catch (err) {
    throw badRequest(`invalid timeout specified in the request URL - ${(err as Error).message}`);
  }
  return asked > 0 && asked < requestTimeoutMs ? asked : requestTimeoutMs;
}

export function timeoutFilter(requestTimeoutMs: number): Filter {
  if (requestTimeoutMs <= 0) return passThrough;
  return async (s, next) => {
    if (s.longRunning) return next();
    const remaining = s.receivedAt + budgetMs(s.query, requestTimeoutMs) - performance.now();
    if (remaining <= 0) {
      s.cancellation.cancel();
      throw timedOut();
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
