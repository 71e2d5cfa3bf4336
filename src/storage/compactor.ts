// Periodic compaction, as kube-apiserver runs it: every interval, compact the store to the
// revision it had one interval earlier, so history is kept for at least one interval.

import type { RevisionedStore } from './revisioned-store.js';

export interface Compactor {
  stop(): void;
}

/**
 * Runs `work` now and then every interval, never two at once (a slow run makes the next tick
 * skip); failures go to `onError` and the schedule goes on.
 */
export function runEveryInterval(intervalMs: number, work: () => Promise<void>, onError: (err: unknown) => void): Compactor {
  let running = false;
  const tick = async (): Promise<void> => {
    if (running) return;
    running = true;
    try {
      await work();
    } catch (err) {
      onError(err);
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void tick(), intervalMs);
  timer.unref();
  void tick();
  return { stop: () => clearInterval(timer) };
}

export function startCompactor(store: RevisionedStore, intervalMs: number, onError: (err: unknown) => void): Compactor {
  if (intervalMs <= 0) return { stop() {} };
  let previous = 0;
  return runEveryInterval(
    intervalMs,
    async () => {
      if (previous > 0) await store.compact(previous);
      previous = await store.currentRevision();
    },
    onError,
  );
}
