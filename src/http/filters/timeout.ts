// Filter: the request timeout (kube's WithTimeoutForNonLongRunningRequests, --request-timeout).
// A request that is not long-running must be answered within the timeout, counted from its
// arrival, or within its ?timeout= when that is shorter (kube's WithRequestDeadline; an
// unparsable one is a 400): past it, the client gets 504 Timeout at once, the request's
// cancellation aborts so its work stops where that is safe (the registry checks it before each
// storage write and expensive step: registry/abandon.ts), and whatever the handler writes later is
// dropped (the reply is already sent). What that work ended with (a write that committed after
// all, or the abandonment) is handed to the audit filter as `abandonedWork`. An answer whose
// body is still being written at the deadline (paced-body.ts) is cut off instead.
// A watch keeps its own timeoutSeconds. The deadline is an entry in a shared list (deadlines.ts),
// not a timer of its own.

import { badRequest, isStatusError, requestTimedOut } from '../../apimachinery/status-error.js';
import { parseGoDuration } from '../../apimachinery/go-duration.js';
import { filter, passThrough, type Filter, type RequestState } from './filter.js';
import { DeadlineEntry, Deadlines } from './deadlines.js';
import { abortResponse } from '../transport/paced-body.js';

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
  const deadlines = new Deadlines(true);
  return filter({
    enter(s) {
      if (s.longRunning) return;
      const budget = budgetMs(s.query, requestTimeoutMs);
      const deadline = s.receivedAt + budget;
      if (deadline - performance.now() <= 0) {
        s.cancellation.cancel();
        throw requestTimedOut();
      }
      s.deadline = deadline;
    },
    around(s, work) {
      if (s.longRunning || s.deadline === undefined) return work;
      const run = new TimedRun(s, work, deadlines);
      // One list per budget in whole ms (the server's, or a request's own ?timeout=): deadlines arrive
      // almost in order. Rounded: the difference of two floats is not always the budget exactly.
      deadlines.add(run, s.deadline, Math.round(s.deadline - s.receivedAt));
      return run.answered;
    },
  });
}

/** A request's work racing its deadline: `answered` settles with the work, or at the deadline. */
class TimedRun extends DeadlineEntry {
  readonly answered: Promise<void>;
  private resolve!: () => void;
  private reject!: (err: unknown) => void;

  constructor(
    private readonly s: RequestState,
    private readonly work: Promise<void>,
    private readonly deadlines: Deadlines,
  ) {
    super();
    this.answered = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    work.then(
      () => {
        deadlines.remove(this);
        this.resolve();
      },
      (err: unknown) => {
        deadlines.remove(this);
        this.reject(err);
      },
    );
  }

  expire(): void {
    const s = this.s;
    s.cancellation.cancel();
    s.logger.debug({ path: s.path }, 'request timed out');
    // The answer has begun (a large body still being written to a slow reader): it cannot
    // become a 504 any more, so it is cut off, the connection closed or the HTTP/2 stream
    // reset, as kube's timeout filter aborts its handler then.
    if (s.reply.raw.headersSent) {
      abortResponse(s.reply.raw);
      return this.resolve();
    }
    // The handler goes on until it reaches a point where stopping is safe (the registry
    // checks the request's cancellation before each storage write, never after): what it
    // ends with is still what happened, for the audit log.
    s.abandonedWork = this.work.then(
      () => s.reply.raw.statusCode,
      (err: unknown) => (isStatusError(err) ? err.status.code : 500),
    );
    this.reject(requestTimedOut());
  }
}
