// How etcd and gRPC failures read once they are StorageErrors (what a client's Status says).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toStorageError } from './etcd-errors.js';

test('a refused connection is Unavailable, without grpc-js\'s empty resolution note', () => {
  const err = toStorageError(new Error('14 UNAVAILABLE: No connection established. Last error: Error: connect ECONNREFUSED 127.0.0.1:2379. Resolution note: '));
  assert.equal(err.code, 'Unavailable');
  assert.equal(err.message, 'etcd: 14 UNAVAILABLE: No connection established. Last error: Error: connect ECONNREFUSED 127.0.0.1:2379');
});

test('a resolution note that says something is kept', () => {
  const err = toStorageError(new Error('14 UNAVAILABLE: No addresses resolved. Resolution note: DNS lookup failed'));
  assert.match(err.message, /Resolution note: DNS lookup failed$/);
});

test('etcd\'s own timeouts are Timeout', () => {
  assert.equal(toStorageError(new Error('etcdserver: request timed out')).code, 'Timeout');
});
