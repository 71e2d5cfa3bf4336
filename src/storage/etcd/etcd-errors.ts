// How etcd's and gRPC's failures become StorageErrors: the only errors that leave storage.
// etcd reports its conditions as gRPC status messages ("etcdserver: ...", "mvcc: ..."); the
// etcd3 client turns some into its own classes and leaves the rest as generic gRPC errors, so
// the message text is what we match, as etcd's own Go client does (rpctypes.ErrorDesc).

import { StorageError } from '../revisioned-store.js';

export interface ErrorContext {
  key?: string;
  /** The compacted revision this replica last observed (for Compacted). */
  compacted?: number;
  /** The current revision, when known (for RevisionTooLarge). */
  current?: number;
}

/**
 * The error's text. grpc-js ends its connection failures with "Resolution note: <note>" even when
 * the note is empty, which reached clients as a dangling "Resolution note: " in Status messages.
 */
const message = (err: unknown): string => (err instanceof Error ? err.message : String(err)).replace(/\.?\s*Resolution note:\s*$/, '');

/** etcd did not answer in time (no quorum, an overloaded member): the outcome is unknown. */
const TIMEOUT = [/etcdserver: request timed out/, /Deadline exceeded/i, /DEADLINE_EXCEEDED/];

/** etcd or transport conditions after which a retry on another member or later may succeed. */
// Stryker disable Regex: equivalent, a failure this table misses is Unavailable with the same message all the same (the last line below); the table names the expected ones
const UNAVAILABLE = [
  /etcdserver: leader changed/,
  /etcdserver: no leader/,
  /etcdserver: not capable/,
  /etcdserver: too many requests/,
  /etcdserver: server stopped/,
  /etcdserver: mvcc: database space exceeded/,
  /database space exceeded/,
  /UNAVAILABLE/,
  /No connection established/i,
  /ECONNREFUSED/,
  /connection (?:refused|reset|closed)/i,
  /Connection dropped/i,
  /Breaker is open/i,
  /Connection pool has no hosts/,
  /client (?:was )?closed/i,
];
// Stryker restore Regex

export function toStorageError(err: unknown, ctx: ErrorContext = {}): StorageError {
  if (err instanceof StorageError) return err;
  const text = message(err);
  if (/required revision has been compacted/.test(text)) {
    return new StorageError('Compacted', `etcd: ${text}`, ctx.key, undefined, ctx.compacted);
  }
  if (/required revision is a future revision/.test(text)) {
    return new StorageError('RevisionTooLarge', `etcd: ${text}`, ctx.key, undefined, ctx.current);
  }
  if (/request is too large/.test(text) || /RESOURCE_EXHAUSTED.*(?:larger than max|message larger)/i.test(text)) {
    return new StorageError('ValueTooLarge', `etcd: ${text}`, ctx.key);
  }
  if (TIMEOUT.some((re) => re.test(text))) return new StorageError('Timeout', `etcd: ${text}`, ctx.key);
  // Stryker disable next-line ConditionalExpression,MethodExpression,ArrowFunction: equivalent, the fallback below answers the same
  if (UNAVAILABLE.some((re) => re.test(text))) return new StorageError('Unavailable', `etcd: ${text}`, ctx.key);
  // Anything else (authentication, permissions, corruption): still a storage failure a client
  // can retry; the message keeps etcd's reason.
  return new StorageError('Unavailable', `etcd: ${text}`, ctx.key);
}
