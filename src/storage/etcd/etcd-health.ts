// etcd's health as /livez and /readyz report it (kube-apiserver's `etcd` and `etcd-readiness`
// checks): asked when a check runs, not polled in the background, so an etcd without quorum or
// out of reach fails the first check that asks. As kube's newETCD3Check, probes are rate-limited
// to one per half deadline (one a second at the 2 s default), each a linearizable read with that
// deadline; a check within the window gets the probe under way (so /readyz's two etcd checks
// share one probe) or, when none is, the last answer.

import { toStorageError } from './etcd-errors.js';
import type { EtcdStore } from './etcd-store.js';

export interface EtcdHealth {
  /** Undefined when etcd answers; otherwise why not. */
  liveness(): Promise<string | undefined>;
  readiness(): Promise<string | undefined>;
  stop(): void;
}

/**
 * A check that runs `probe` (given its deadline, ms since the epoch) at most once per
 * `timeoutMs / 2`; the answer of a probe is kept only if no later-started probe answered first.
 */
export function rateLimitedCheck(probe: (deadline: number) => Promise<void>, timeoutMs: number, now: () => number = Date.now): () => Promise<string | undefined> {
  let last: string | undefined = 'etcd client connection not yet established';
  let lastStarted = Number.NEGATIVE_INFINITY;
  let lastStored = Number.NEGATIVE_INFINITY;
  let inFlight: Promise<string | undefined> | undefined;
  return () => {
    const started = now();
    if (started - lastStarted < timeoutMs / 2) return inFlight ?? Promise.resolve(last);
    lastStarted = started;
    const answer = probe(started + timeoutMs).then(
      () => undefined,
      (err: unknown) => `etcd: ${toStorageError(err).message.replace(/^etcd: /, '')}`,
    );
    const settled = answer.then((problem) => {
      if (started >= lastStored) {
        last = problem;
        lastStored = started;
      }
      if (inFlight === settled) inFlight = undefined;
      return problem;
    });
    inFlight = settled;
    return settled;
  };
}

export function etcdHealthChecks(store: EtcdStore, timeoutMs = 2000): EtcdHealth {
  let stopped = false;
  // A count-only read of one key: linearizable (it needs a quorum), and nothing is sent back.
  const probe = async (deadline: number): Promise<void> => {
    if (stopped) throw new Error('etcd: the server is shutting down');
    await store.client.kv.range({ key: Buffer.from([0]), count_only: true }, { deadline });
  };
  const check = rateLimitedCheck(probe, timeoutMs);
  return {
    liveness: check,
    readiness: check,
    stop: () => {
      stopped = true;
    },
  };
}
