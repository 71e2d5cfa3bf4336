// A migration's claim on its etcd prefix, so that a kill -9 at any step never leaves a prefix a
// server would serve half-filled: one transaction finds the prefix empty and writes the prefix's
// unfinished mark (etcd-unfinished.ts) and the owner key, held on a lease kept alive while this
// process runs. The final transaction deletes both, after the copy is verified and compacted.
// A prefix found marked by a migration that is gone (its owner key expired with its lease, or
// its pid is dead on this host) is cleaned first: every key under the prefix created after the
// mark (the prefix was empty then, and no server serves it meanwhile) and the revision padding.

import { hostname } from 'node:os';
import type { Lease } from 'etcd3';
import { encodeMark, ownerKeyFor, readEtcdUnfinished, unfinishedKeyFor, type EtcdUnfinishedMark } from '../../storage/etcd/etcd-unfinished.js';
import { pausePoint } from '../../storage/sqlite/pause-point.js';
import type { EtcdPrefix } from './etcd-range.js';
import { PADDING_KEY } from './etcd-writer.js';
import { MigrationError } from './migration-error.js';

/** The owner key's lease: a killed migration's claim lapses this long after it died. */
export const CLAIM_TTL_SECONDS = 10;

export interface PrefixClaim {
  /** etcd's revision when the prefix was found empty (keys created after it are the migration's). */
  emptyAt: number;
  /** What an interrupted migration had left (its keys removed first). */
  cleaned?: { mark: EtcdUnfinishedMark; removed: number };
  /** Ends the claim after success: deletes the mark and the owner key in one transaction. */
  complete(): Promise<void>;
  /** Ends the claim after a failure the caller has cleaned up: the mark and the owner key go. */
  abandon(): Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Waits (at most a lease's TTL and a little) for the owner key of a gone migration to expire. */
async function ownerGone(target: EtcdPrefix, mark: EtcdUnfinishedMark): Promise<boolean> {
  const owner = ownerKeyFor(target.endpoint.prefix);
  const held = async (): Promise<boolean> => Number((await target.call('read the prefix owner', () => target.client.kv.range({ key: owner, count_only: true }))).count) > 0;
  if (!(await held())) return true;
  // On this host a dead pid settles it at once; elsewhere only the lease can tell.
  if (mark.host === hostname() && mark.pid > 0 && !processAlive(mark.pid)) {
    await target.call('remove a dead migration\'s owner key', () => target.client.kv.deleteRange({ key: owner }));
    return true;
  }
  for (const end = Date.now() + (CLAIM_TTL_SECONDS + 3) * 1000; Date.now() < end; ) {
    await sleep(500);
    if (!(await held())) return true;
  }
  return false;
}

/** Deletes every key under the prefix created after `after`, each guarded by its mod revision, and the padding key. */
async function removeCreatedAfter(target: EtcdPrefix, after: number): Promise<number> {
  let removed = 0;
  for await (const page of target.pages()) {
    const doomed = page.filter((kv) => kv.createRevision > after);
    for (let i = 0; i < doomed.length; i += 100) {
      const batch = doomed.slice(i, i + 100);
      const res = await target.call('remove what the interrupted migration wrote', () =>
        target.client.kv.txn({
          compare: batch.map((d) => ({ key: target.keys.toEtcd(d.key), target: 'Mod' as const, result: 'Equal' as const, mod_revision: d.modRevision })),
          success: batch.map((d) => ({ request_delete_range: { key: target.keys.toEtcd(d.key) } })),
          failure: [],
        }),
      );
      if (!res.succeeded) throw new MigrationError(`a key under ${target.endpoint.prefix}/ changed while the interrupted migration's keys were removed: something else writes there; stop it and run again`);
      removed += batch.length;
    }
  }
  await target.call('remove the revision padding', () => target.client.kv.deleteRange({ key: Buffer.from(PADDING_KEY) }));
  return removed;
}

/**
 * Claims the prefix for a migration: it must be empty (or hold only what a gone migration left,
 * which is removed). `command` is the command line to run again, for the mark.
 */
export async function claimPrefix(target: EtcdPrefix, command: string): Promise<PrefixClaim> {
  const prefix = target.endpoint.prefix;
  const markKey = unfinishedKeyFor(prefix);
  const ownerKey = ownerKeyFor(prefix);
  let cleaned: PrefixClaim['cleaned'];
  const { count } = await target.count();
  const left = await target.call('read the prefix\'s unfinished mark', () => readEtcdUnfinished(target.client, prefix));
  if (left) {
    if (!(await ownerGone(target, left.mark))) {
      throw new MigrationError(`a migration into etcd prefix ${prefix}/ is running (\`${left.mark.command}\`, pid ${left.mark.pid} on ${left.mark.host}, started ${left.mark.startedAt}): wait for it to finish; nothing was written`);
    }
    cleaned = { mark: left.mark, removed: await removeCreatedAfter(target, left.createRevision) };
  } else if (count > 0) {
    throw new MigrationError(`etcd prefix ${prefix}/ already holds ${count} key${count === 1 ? '' : 's'}: migrate only into an empty prefix (another --etcd-prefix, or remove them first); nothing was written`);
  }
  const lease: Lease = target.client.lease(CLAIM_TTL_SECONDS);
  const leaseId = await target.call('grant the migration\'s lease', () => lease.grant());
  const mark: EtcdUnfinishedMark = { command, pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
  const res = await target.call('mark the prefix unfinished', () =>
    target.client.kv.txn({
      compare: [
        // The prefix empty, the mark as found (absent, or the gone migration's), nobody else's owner key.
        { key: target.start, range_end: target.end, target: 'Create', result: 'Equal', create_revision: 0 },
        left ? { key: markKey, target: 'Mod', result: 'Equal', mod_revision: left.modRevision } : { key: markKey, target: 'Create', result: 'Equal', create_revision: 0 },
        { key: ownerKey, target: 'Create', result: 'Equal', create_revision: 0 },
      ],
      success: [{ request_put: { key: markKey, value: encodeMark(mark) } }, { request_put: { key: ownerKey, value: Buffer.from(String(process.pid)), lease: leaseId } }],
      failure: [],
    }),
  );
  if (!res.succeeded) {
    await lease.revoke().catch(() => undefined);
    throw new MigrationError(`etcd prefix ${prefix}/ changed while the migration claimed it (another migration or a server writing there?); nothing was written`);
  }
  const markRevision = Number(res.header.revision);
  pausePoint('migrate-to-etcd:marked');
  const end = async (doing: string): Promise<void> => {
    const done = await target.call(doing, () =>
      target.client.kv.txn({
        compare: [{ key: markKey, target: 'Mod', result: 'Equal', mod_revision: markRevision }],
        success: [{ request_delete_range: { key: markKey } }, { request_delete_range: { key: ownerKey } }],
        failure: [],
      }),
    );
    await lease.revoke().catch(() => undefined);
    if (!done.succeeded) throw new MigrationError(`the prefix's unfinished mark was changed by someone else during the migration (another migration?): ${prefix}/ is left marked unfinished`);
  };
  return {
    emptyAt: markRevision,
    cleaned,
    complete: () => end('mark the prefix complete'),
    abandon: () => end('remove the prefix\'s unfinished mark'),
  };
}
