// The loop every queue-driven controller runs: take a key, sync it, and on failure re-queue it
// with per-key backoff, giving up after maxRetries (kube's 15: about 82 s of retries) so one
// bad object can never stall the others or spin. A key given up on comes back with its next
// change or the next resync.

import type { Logger } from '../apimachinery/request-context.js';
import type { WorkQueue } from './work-queue.js';

export const MAX_RETRIES = 15;

export async function runWorker(queue: WorkQueue, sync: (key: string) => Promise<void>, logger: Logger, maxRetries = MAX_RETRIES): Promise<void> {
  for (;;) {
    const key = await queue.get();
    if (key === undefined) return;
    try {
      await sync(key);
      queue.forget(key);
    } catch (err) {
      if (queue.numRequeues(key) < maxRetries) {
        logger.debug({ err, key }, 'sync failed; retrying');
        queue.addRateLimited(key);
      } else {
        logger.warn({ err, key }, 'sync failed too often; dropping the key until it changes');
        queue.forget(key);
      }
    } finally {
      queue.done(key);
    }
  }
}
