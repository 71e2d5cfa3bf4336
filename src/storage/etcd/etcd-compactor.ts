// Compaction shared by every replica on one etcd, as kube-apiserver coordinates it: each
// replica, once per interval, compare-and-swaps the compaction key (`compact_rev_key`) on its
// version. The one whose swap succeeds compacts etcd to the revision it noted one interval
// earlier; the others see the key moved, note the revision it records as compacted, and wait
// for the next interval. So history is kept for at least one interval, and etcd is compacted
// once per interval however many replicas there are.

import { runEveryInterval, startCompactor, type Compactor } from '../compactor.js';
import type { RevisionedStore } from '../revisioned-store.js';
import { toStorageError } from './etcd-errors.js';
import { COMPACT_KEY, EtcdStore } from './etcd-store.js';

export interface CompactionTurn {
  /** The compaction key's version after this turn (the next turn compares against it). */
  version: number;
  /** etcd's revision at this turn: what the next successful turn compacts to. */
  revision: number;
  /** Whether this replica compacted (and to which revision). */
  compactedTo?: number;
}

/**
 * One turn: `version` is the key version this replica last saw (0 at first), `revision` the
 * revision it noted at its previous turn (0 at first: nothing to compact yet).
 */
export async function compactionTurn(store: EtcdStore, version: number, revision: number): Promise<CompactionTurn> {
  const key = Buffer.from(COMPACT_KEY);
  let res;
  try {
    res = await store.client.kv.txn({
      compare: [{ key, target: 'Version', result: 'Equal', version }],
      success: [{ request_put: { key, value: Buffer.from(String(revision)) } }],
      failure: [{ request_range: { key } }],
    });
  } catch (err) {
    throw toStorageError(err);
  }
  const current = Number(res.header.revision);
  if (!res.succeeded) {
    // Another replica took this interval's turn: note what it compacted to.
    // Stryker disable next-line OptionalChaining: equivalent, etcd answers a failed compare with the failure branch's one Range, whose kvs is a list
    const kv = res.responses[0]?.response_range?.kvs?.[0];
    if (kv) store.observeCompacted(Number(kv.value.toString()) || 0);
    return { version: kv ? Number(kv.version) : 0, revision: current };
  }
  if (revision > 0) {
    await store.compact(revision);
    return { version: version + 1, revision: current, compactedTo: revision };
  }
  return { version: version + 1, revision: current };
}

/** Takes a turn every interval (and once at start, to learn the key's state). */
export function startEtcdCompactor(store: EtcdStore, intervalMs: number, onError: (err: unknown) => void): Compactor {
  if (intervalMs <= 0) {
    // Still learn what the other replicas compacted to, so compactedRevision() is meaningful.
    void store.readCompactionRecord().catch(onError);
    return { stop() {} };
  }
  let version = 0;
  let revision = 0;
  return runEveryInterval(
    intervalMs,
    async () => {
      const turn = await compactionTurn(store, version, revision);
      version = turn.version;
      revision = turn.revision;
    },
    onError,
  );
}

/** The compaction a store needs: SQLite compacts itself; replicas on one etcd take turns through etcd. */
export function startCompaction(store: RevisionedStore, intervalMs: number, onError: (err: unknown) => void): Compactor {
  return store instanceof EtcdStore ? startEtcdCompactor(store, intervalMs, onError) : startCompactor(store, intervalMs, onError);
}
