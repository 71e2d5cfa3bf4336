// The request path's building block: a filter sees one request's state and either answers (by
// throwing a StatusError, rendered once by the server) or passes it on with `next()`. Filters
// run in the order chain.ts lists them, each wrapping all that follow (kube's handler chain).

import type { HttpReply, HttpRequest } from '../transport/exchange.js';
import type { Logger, RequestInfo, UserInfo } from '../../apimachinery/request-context.js';
import type { RequestAudit } from './audit-log.js';
import { responseClosed } from '../transport/response-closed.js';

/** What the filters learn about a request as it goes down the chain. */
export interface RequestState {
  readonly req: HttpRequest;
  readonly reply: HttpReply;
  readonly requestId: string;
  /** When the request arrived (performance.now()), for the request timeout and latency. */
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
  /** A watch: long-running, so it holds no in-flight slot and has no request timeout. */
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
export type Filter = (state: RequestState, next: Next) => Promise<void>;

/** A filter that only passes the request on (a feature switched off). */
export const passThrough: Filter = (_s, next) => next();

/** Runs `filters` in order around `handler`; each may stop the request or call the next. */
export function compose(filters: readonly Filter[], handler: (state: RequestState) => Promise<void>): (state: RequestState) => Promise<void> {
  return (state) => {
    const step = (i: number): Promise<void> => (i === filters.length ? handler(state) : filters[i]!(state, () => step(i + 1)));
    return step(0);
  };
}
