// What a failed transaction means for the write it carried, as etcd's clientv3 decides whether
// a mutating call may be retried (isSafeRetryMutableRPC): only a call that provably never
// reached a member (no connection to send it on) is retried; a call that was sent may have been
// applied even though its answer was lost (a dropped connection, a member stopped mid-write, a
// raft timeout). Such a write is found out by reading the key; if that cannot settle it, the
// client gets kube's honest answer: a timeout that says the write may have been applied.

import { StorageError } from '../revisioned-store.js';

const text = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** gRPC had no connection to send the call on: it never left this process. */
export const neverSent = (err: unknown): boolean => /No connection established|there is no (?:address|connection) available/i.test(text(err));

/** etcd refused the request before proposing it to raft: it was not and will not be applied. */
const REFUSED = [
  /etcdserver: no leader/,
  /etcdserver: not capable/,
  /etcdserver: too many requests/,
  /database space exceeded/,
  /request is too large/,
  /RESOURCE_EXHAUSTED/,
  /etcdserver: permission denied/,
  /etcdserver: invalid auth token/,
  /etcdserver: user name is empty/,
];

/** Whether the transaction may have been applied although it failed. */
export function mayHaveBeenApplied(err: unknown): boolean {
  if (err instanceof StorageError) return false;
  if (neverSent(err)) return false;
  const t = text(err);
  return !REFUSED.some((re) => re.test(t));
}

/** The answer for a write whose outcome stays unknown (kube-apiserver: 504 with this reason). */
export function outcomeUnknown(key: string, err: unknown): StorageError {
  const reason = text(err).replace(/\.?\s*Resolution note:\s*$/, '');
  return new StorageError('Timeout', `request did not complete within requested timeout - the write may have been applied (etcd: ${reason})`, key);
}

export const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength)) === 0;
