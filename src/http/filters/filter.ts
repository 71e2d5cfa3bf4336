// The request path's building block: a filter sees one request's state and either answers (by
// throwing a StatusError, rendered once by the server) or lets it go on. Filters run in the order
// chain.ts lists them, as kube's handler chain runs them, each around all that follow; here each
// is a few plain functions (`FilterSteps`) that one loop (`runFilters`) calls for every request,
// instead of a closure and a promise per filter per request:
//   enter   before the rest (a promise only when it must wait: authentication, a turn);
//   around  wraps the promise of the rest (the timeout, racing it against the deadline);
//   leave   after the rest, innermost first, told whether it failed;
//   ended   once the response is over (one 'close' listener per request serves them all).
// A watch's response outlives the request path by up to an hour: from then on its listener
// keeps only what `ended` reads (`EndedRequest`), not the whole state, so an idle watch does not
// hold its request's query, request info, logger and the like.
// A filter is still callable as `(state, next)` (its unit tests run it so, through the same loop).
import type { HttpReply, HttpRequest } from '../transport/exchange.js';
import type { Logger, RequestInfo, UserInfo } from '../../apimachinery/request-context.js';
import type { RequestAudit } from './audit-log.js';
import { responseClosed } from '../transport/response-closed.js';
import { requestKind, type RequestKind, type RequestLabels } from '../../apimachinery/request-observer.js';
import type { WorkEstimator } from './work-estimate.js';

/**
 * What a request's `ended` steps may read: all that is kept of a watch once the request path is
 * done with it (see the header).
 */
export interface EndedRequest {
  readonly reply: HttpReply;
  /** When the request arrived (performance.now()), for the request timeout and latency. */
  readonly receivedAt: number;
  /** A watch: long-running, so it holds no in-flight slot and has no request timeout. */
  readonly longRunning: boolean;
  /** The in-flight seats the request holds (max-in-flight.ts), given back when its response is over. */
  readonly heldSeats?: { release(): void };
  /** The request's metric labels (metrics.ts), made once as it enters the metrics filter. */
  readonly metricLabels?: RequestLabels;
  /** How many of the chain's filters the request has entered (the ones whose `ended` runs). */
  readonly filtersEntered?: number;
}

/** What the filters learn about a request as it goes down the chain. */
export interface RequestState extends EndedRequest {
  readonly req: HttpRequest;
  readonly reply: HttpReply;
  readonly requestId: string;
  readonly receivedAt: number;
  /** The decoded path (each %XX escape resolved, as kube-apiserver sees it). */
  path: string;
  query: URLSearchParams;
  pretty: boolean;
  info: RequestInfo;
  logger: Logger;
  body: Buffer | undefined;
  /** Served to anyone, without authentication or authorization (/healthz, /version, ...). */
  isPublic: boolean;
  longRunning: boolean;
  /** Who authenticated. */
  authenticated?: UserInfo;
  /** Who the request acts as, when it impersonates. */
  impersonated?: UserInfo;
  audit?: RequestAudit;
  /** Says when the request's work should stop: the client went away or the request timed out. */
  readonly cancellation: Cancellation;
  /**
   * Set by the timeout filter when it answered 504 while the handler was still working: settles,
   * when that work is over, with the code the handler's own answer had (a write that committed
   * after the deadline is still a 201 to the audit log).
   */
  abandonedWork?: Promise<number>;
  /** Who acts and what the request weighs, found once (policyOf) for the filters that limit by user. */
  policy?: RequestPolicy;
  /** When the request must be answered (performance.now()), set by the timeout filter. */
  deadline?: number;
  heldSeats?: { release(): void };
  metricLabels?: RequestLabels;
  filtersEntered?: number;
}

const PRIVILEGED_GROUP = 'system:masters';

/** What load shedding, the turn budget and the in-flight limit each need to know of a request. */
export interface RequestPolicy {
  readonly user: UserInfo | undefined;
  /** The user's name ('' for nobody), the key of per-user budgets. */
  readonly who: string;
  /** system:masters: never shed, delayed or limited. */
  readonly privileged: boolean;
  readonly kind: RequestKind;
  /** The request's width in seats (work-estimate.ts), estimated before it runs. */
  readonly seats: number;
}

/**
 * The request's policy, computed the first time a filter asks (once the identity, impersonation
 * included, is known) and kept: the filters that weigh a request all see the same figures.
 */
export function policyOf(s: RequestState, estimator: WorkEstimator): RequestPolicy {
  if (s.policy) return s.policy;
  const user = effectiveUser(s);
  return (s.policy = {
    user,
    who: user?.username ?? '',
    privileged: user?.groups.includes(PRIVILEGED_GROUP) === true,
    kind: requestKind(s.info),
    seats: estimator.seats(s.info, s.query),
  });
}

/**
 * A request's cancellation. Its signal aborts when the response is over (finished or the
 * connection gone; the request's own 'close' fires too early) or on cancel(). The
 * AbortController is made only when the signal is asked for or a cancel happens: most requests
 * never need one, and one per request is measurable on the hot path.
 */
export class Cancellation {
  private controller: AbortController | undefined;
  private cancelled = false;

  constructor(private readonly response: Parameters<typeof responseClosed>[0] & { once(event: 'close', listener: () => void): unknown }) {}

  get signal(): AbortSignal {
    if (!this.controller) {
      const controller = new AbortController();
      this.controller = controller;
      if (this.cancelled || responseClosed(this.response)) controller.abort();
      else this.response.once('close', () => controller.abort());
    }
    return this.controller.signal;
  }

  /** Whether the work should stop; cheap (no AbortController made), for checks on the hot path. */
  get aborted(): boolean {
    return this.cancelled || responseClosed(this.response) || this.controller?.signal.aborted === true;
  }

  cancel(): void {
    this.cancelled = true;
    this.controller?.abort();
  }
}

/** The identity the request acts as (impersonated or authenticated). */
export const effectiveUser = (s: RequestState): UserInfo | undefined => s.impersonated ?? s.authenticated;

export type Next = () => Promise<void>;

/** What `enter` says: go on (undefined), or STOP: the request ends here, quietly (its client went away). */
export const STOP = 'stop' as const;
export type Entered = void | typeof STOP;

/** A filter's parts (see the header); each is optional. */
export interface FilterSteps {
  enter?(s: RequestState): Entered | Promise<Entered>;
  around?(s: RequestState, rest: Promise<void>): Promise<void>;
  leave?(s: RequestState, failed: boolean): void;
  ended?(s: EndedRequest): void;
}

/** A filter: its steps, and callable as `(state, next)` around `next`. */
export type Filter = ((state: RequestState, next: Next) => Promise<void>) & { readonly steps: FilterSteps };

/** Makes a filter of its steps. */
export function filter(steps: FilterSteps): Filter {
  const one = [uniform(steps)];
  return Object.assign((state: RequestState, next: Next) => runFilters(one, state, next), { steps });
}

/** A filter that only passes the request on (a feature switched off). */
export const passThrough: Filter = filter({});

/** Runs `filters` in order around `handler`; each may stop the request or let it go on. */
export function compose(filters: readonly Filter[], handler: (state: RequestState) => Promise<void>): (state: RequestState) => Promise<void> {
  const steps = filters.map((f) => uniform(f.steps));
  return (state) => runFilters(steps, state, handler);
}

/** The steps with every field present, so the loop reads one shape of object (its property reads stay monomorphic). */
function uniform(f: FilterSteps): FilterSteps {
  return { enter: f.enter, around: f.around, leave: f.leave, ended: f.ended };
}

/** The one loop: every filter's steps in order, the handler, and the way back out. */
export function runFilters(filters: readonly FilterSteps[], s: RequestState, handler: (state: RequestState) => Promise<void>): Promise<void> {
  return runFrom(filters, 0, s, handler);
}

async function runFrom(filters: readonly FilterSteps[], from: number, s: RequestState, handler: (state: RequestState) => Promise<void>): Promise<void> {
  let entered = from;
  let failed = false;
  let error: unknown;
  try {
    let i = from;
    for (; i < filters.length; i++) {
      const f = filters[i]!;
      if (f.enter) {
        let r = f.enter(s);
        // Stryker disable next-line ConditionalExpression: equivalent, awaiting undefined or STOP gives it back (the check spares a microtask per filter)
        if (r !== undefined && r !== STOP) r = await r;
        if (r === STOP) break;
      }
      entered = i + 1;
      // Stryker disable next-line ConditionalExpression: equivalent, the listener calls only the ended steps there are (registered at the first that has one, to spare the others)
      if (f.ended) watchEnd(s, filters);
      if ((s.filtersEntered ?? 0) < entered) s.filtersEntered = entered;
      if (f.around) {
        // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, runFrom past the last filter runs the handler (the shortcut spares a frame)
        await f.around(s, i + 1 === filters.length ? handler(s) : runFrom(filters, i + 1, s, handler));
        break;
      }
    }
    if (i === filters.length) await handler(s);
  } catch (err) {
    failed = true;
    error = err;
  }
  for (let j = entered - 1; j >= from; j--) filters[j]!.leave?.(s, failed);
  if (from === 0) keepOnlyEnding(s);
  if (failed) throw error;
}

/** Where the response's single 'close' listener finds its request and the chain's filters. */
const ENDING = Symbol('filter chain ending');
interface Ending {
  state: EndedRequest;
  filters: readonly FilterSteps[];
}
type EndingResponse = RequestState['reply']['raw'] & { [ENDING]?: Ending };

/** Registers the request's one 'close' listener (at the first filter with an `ended` step). */
function watchEnd(s: RequestState, filters: readonly FilterSteps[]): void {
  const raw = s.reply.raw as EndingResponse;
  // Stryker disable next-line ConditionalExpression: equivalent, a second listener finds the ending taken by the first and returns
  if (raw[ENDING]) return;
  raw[ENDING] = { state: s, filters };
  raw.on('close', onResponseClose);
}

/**
 * The request path is done with a long-running request (its handler returned, every `leave`
 * ran): if its response is still open, its 'close' listener keeps only what `ended` reads from
 * now on. (Other responses end within moments: their state is not worth a copy.)
 */
function keepOnlyEnding(s: RequestState): void {
  // Stryker disable next-line ConditionalExpression: equivalent, a copy for a request that is not long-running holds the same (it is skipped as not worth it)
  if (!s.longRunning) return;
  const ending = (s.reply.raw as EndingResponse)[ENDING];
  if (ending?.state !== s) return;
  ending.state = { reply: s.reply, receivedAt: s.receivedAt, longRunning: s.longRunning, heldSeats: s.heldSeats, metricLabels: s.metricLabels, filtersEntered: s.filtersEntered };
}

/** The response is over: each entered filter's `ended`, in the chain's order. */
function onResponseClose(this: EndingResponse): void {
  const ending = this[ENDING];
  if (!ending) return;
  this[ENDING] = undefined;
  const { state, filters } = ending;
  const n = state.filtersEntered ?? 0;
  for (let i = 0; i < n && i < filters.length; i++) filters[i]!.ended?.(state);
}
