// etcd's health as /readyz reports it (kube-apiserver's `etcd` readiness check): every few
// seconds one linearizable, count-only read with a short deadline, so an etcd without quorum
// or out of reach shows within seconds. Readiness asks synchronously; the last answer is kept.

import { toStorageError } from './etcd-errors.js';
import type { EtcdStore } from './etcd-store.js';

export interface EtcdHealth {
  /** Undefined when etcd answered the last probe; otherwise why not. */
  problem(): string | undefined;
  stop(): void;
}

export function monitorEtcdHealth(store: EtcdStore, intervalMs = 3000, timeoutMs = 2000): EtcdHealth {
  let problem: string | undefined = 'etcd: not checked yet';
  let running = false;
  const probe = async (): Promise<void> => {
    if (running) return;
    running = true;
    try {
      await store.client.kv.range({ key: Buffer.from([0]), count_only: true }, { deadline: Date.now() + timeoutMs });
      problem = undefined;
    } catch (err) {
      problem = `etcd: ${toStorageError(err).message.replace(/^etcd: /, '')}`;
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void probe(), intervalMs);
  timer.unref();
  void probe();
  return {
    problem: () => problem,
    stop: () => clearInterval(timer),
  };
}
