// Stopping a request's work once nobody waits for it (the request timeout answered 504, or the
// client went away), at the points where stopping leaves nothing half done: before a storage
// write starts and before expensive steps (decoding, validation, another page of a list, another
// round of a conflict-retry loop). Never between a write's commit and its answer: a write that
// reached storage is reported as what it is (the audit log records its outcome).

import type { RequestContext } from '../apimachinery/request-context.js';
import { requestTimedOut } from '../apimachinery/status-error.js';

/**
 * Whether the request's work should stop. The deadline is read from the clock: the timeout's
 * timer cannot fire while the event loop is held (a long synchronous step of this very request),
 * and a write sent then would commit after its client was answered 504.
 */
export function isAbandoned(ctx: RequestContext): boolean {
  if (ctx.deadline !== undefined && performance.now() >= ctx.deadline) return true;
  return ctx.abandoned ? ctx.abandoned() : ctx.signal.aborted;
}

/** Throws when the request's work should stop; call only where stopping is safe. */
export function stopIfAbandoned(ctx: RequestContext): void {
  // The request timeout's Status (already sent to the client, or to nobody: the client is gone).
  if (isAbandoned(ctx)) throw requestTimedOut();
}
