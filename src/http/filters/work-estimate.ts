// How wide a request is, in seats (kube's work estimator for priority and fairness): a get, a
// create or an update is one seat; a list is one seat per 100 objects it may return, at least 1
// and at most 10, as kube's list estimate is. kube reads the object count from the last storage
// statistics; here it is the item count the latest full list of the same resource returned
// (the list handler reports it with noteListed), just as cheap and about as fresh. A `limit`
// bounds the estimate, as it bounds what a page returns.

import type { HttpRequest } from '../transport/exchange.js';
import type { RequestInfo } from '../../apimachinery/request-context.js';

export const OBJECTS_PER_SEAT = 100;
export const MAX_SEATS = 10;

/** Item counts the list handler saw, by request, until the estimator reads them. */
const listed = new WeakMap<object, number>();

/** Called by the list handler: this request's collection holds `count` objects. */
export function noteListed(req: HttpRequest, count: number): void {
  listed.set(req, count);
}

export class WorkEstimator {
  /** Objects by group/resource, as the latest list saw them. */
  private readonly counts = new Map<string, number>();

  /** The request's width in seats (before it runs). */
  seats(info: RequestInfo, query: URLSearchParams): number {
    if (info.verb !== 'list' || !info.isResourceRequest) return 1;
    let n = this.counts.get(`${info.apiGroup}/${info.resource}`) ?? 0;
    const limit = Number(query.get('limit') ?? 0);
    if (Number.isInteger(limit) && limit > 0) n = Math.min(n, limit);
    return Math.min(MAX_SEATS, Math.max(1, Math.ceil(n / OBJECTS_PER_SEAT)));
  }

  /** After the request ran: remembers what a list returned. */
  learn(req: HttpRequest, info: RequestInfo): void {
    if (info.verb !== 'list') return;
    const n = listed.get(req);
    if (n === undefined) return;
    // The counts are keyed by served resources only (the handler reported a real list).
    this.counts.set(`${info.apiGroup}/${info.resource}`, n);
  }
}
