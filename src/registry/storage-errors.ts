// The only place storage errors become API errors (docs/architecture.md).

import {
  alreadyExists,
  conflict,
  notFound,
  timeout,
  requestEntityTooLarge,
  resourceExpired,
  resourceVersionTooLarge,
  serviceUnavailable,
  tooManyRequests,
  type GroupResource,
} from '../apimachinery/status-error.js';
import { isStorageError } from '../storage/revisioned-store.js';

/** Translates a StorageError for `name`; anything else is rethrown unchanged (rendered as 500). */
export function translateStorageError(err: unknown, gr: GroupResource, name: string, requestedRevision?: number | bigint): never {
  if (!isStorageError(err)) throw err;
  switch (err.code) {
    case 'Timeout':
      // As kube-apiserver: 504 with etcd's reason, and when to try again.
      throw timeout(err.message, 1);
    case 'KeyExists':
      throw alreadyExists(gr, name);
    case 'KeyNotFound':
      throw notFound(gr, name);
    case 'Conflict':
      throw conflict(gr, name);
    case 'Compacted':
      throw resourceExpired(`too old resource version: ${requestedRevision ?? 0} (${err.revision ?? 0})`);
    case 'RevisionTooLarge':
      throw resourceVersionTooLarge(requestedRevision ?? 0, err.revision ?? 0);
    case 'ValueTooLarge':
      throw requestEntityTooLarge('etcdserver: request is too large');
    case 'Unavailable':
      throw serviceUnavailable(err.message);
    case 'TooManyRequests':
      throw tooManyRequests(err.message, err.retryAfterSeconds ?? 1);
  }
}
