// Filter: the request timeout (kube's WithTimeoutForNonLongRunningRequests, --request-timeout).
// A request that is not long-running must be answered within the timeout, counted from its
// arrival, or within its ?timeout= when that is shorter (kube's WithRequestDeadline; an
// unparsable one is a 400): past it, the client gets 504 Timeout at once, the request's
// cancellation aborts so its work stops where that is safe (the registry checks it before each
// storage write and expensive step: registry/abandon.ts), and whatever the handler writes later is
// dropped (the reply is already sent). What that work ended with (a write that committed after
// all, or the abandonment) is handed to the audit filter as `abandonedWork`. An answer whose
// body is still being written at the deadline (paced-body.ts) is cut off instead.
// A watch keeps its own timeoutSeconds.

import { badRequest, isStatusError, timeout, type StatusError } from '../../apimachinery/status-error.js';
import { parseGoDuration } from '../../apimachinery/go-duration.js';
import { passThrough, type Filter } from './filter.js';
import { abortResponse } from '../transport/paced-body.js';

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
    const work = next();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        s.cancellation.cancel();
        s.logger.debug({ path: s.path }, 'request timed out');
        // The answer has begun (a large body still being written to a slow reader): it cannot
        // become a 504 any more, so it is cut off, the connection closed or the HTTP/2 stream
        // reset, as kube's timeout filter aborts its handler then.
        if (s.reply.raw.headersSent) {
          abortResponse(s.reply.raw);
          return resolve();
        }
        // The handler goes on until it reaches a point where stopping is safe (the registry
        // checks the request's cancellation before each storage write, never after): what it
        // ends with is still what happened, for the audit log.
        s.abandonedWork = work.then(
          () => s.reply.raw.statusCode,
          (err: unknown) => (isStatusError(err) ? err.status.code : 500),
        );
        reject(timedOut());
      }, remaining);
      work.then(
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
