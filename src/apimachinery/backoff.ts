// The one retry backoff: bounded exponential steps (backoffStep), and the same with jitter
// (backoffDelay). Stores and watch caches reconnect with jitter, so that a store that keeps
// failing is retried ever more slowly (never a hot loop) and many caches or replicas that lost
// the same store do not all come back in the same instant; the controllers' work queue retries
// a key on the plain steps, as client-go's per-item rate limiter does.

export interface BackoffOptions {
  /** The first delay (default 100 ms). */
  initialMs?: number;
  /** The longest delay (default 30 s). */
  maxMs?: number;
  /**
   * A session that stayed healthy this long starts the next retry over at the first delay
   * (default 60 s); one that failed sooner keeps climbing.
   */
  resetAfterMs?: number;
}

export const DEFAULT_BACKOFF: Required<BackoffOptions> = { initialMs: 100, maxMs: 30_000, resetAfterMs: 60_000 };

/** The exponential step before retry number `attempt` (0 for the first): initialMs · 2^attempt, capped at maxMs. */
export function backoffStep(attempt: number, opts: BackoffOptions = {}): number {
  const initial = opts.initialMs ?? DEFAULT_BACKOFF.initialMs;
  const max = opts.maxMs ?? DEFAULT_BACKOFF.maxMs;
  // 2^attempt overflows to Infinity harmlessly; the cap applies first.
  return Math.min(max, initial * 2 ** Math.max(0, attempt));
}

/**
 * The delay before retry number `attempt`: its step drawn uniformly from the upper half
 * ("equal jitter"), so it stays within [step/2, step] and never exceeds maxMs.
 */
export function backoffDelay(attempt: number, opts: BackoffOptions = {}, random: () => number = Math.random): number {
  const step = backoffStep(attempt, opts);
  return step / 2 + (random() * step) / 2;
}
