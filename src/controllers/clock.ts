// Time as the controllers see it: "now" and one-shot timers, injectable so that unit tests can
// drive deletion grace periods, backoff and resyncs with a fake clock instead of sleeping.

export interface TimerHandle {
  cancel(): void;
}

export interface Clock {
  now(): Date;
  /** Calls `fn` once after `ms` milliseconds (or never, once cancelled). */
  after(ms: number, fn: () => void): TimerHandle;
}

export const realClock: Clock = {
  now: () => new Date(),
  after(ms, fn) {
    const t = setTimeout(fn, Math.max(0, ms));
    // Controller timers never keep the process alive on their own: shutdown is explicit.
    t.unref();
    return { cancel: () => clearTimeout(t) };
  },
};

/** Resolves after `ms` on `clock`, or at once when `signal` aborts. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const onAbort = (): void => {
      timer.cancel();
      resolve();
    };
    const timer = clock.after(ms, () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
