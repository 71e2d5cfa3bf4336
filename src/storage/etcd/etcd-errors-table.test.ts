// Every row of toStorageError's table: which StorageError code each etcd or gRPC failure
// becomes, and what the message and the error's context carry (a client's Status and its code
// follow from the code).

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { StorageError } from '../revisioned-store.js';
import { toStorageError } from './etcd-errors.js';

const ROWS: [string, StorageError['code']][] = [
  ['etcdserver: mvcc: required revision has been compacted', 'Compacted'],
  ['etcdserver: mvcc: required revision is a future revision', 'RevisionTooLarge'],
  ['3 INVALID_ARGUMENT: etcdserver: request is too large', 'ValueTooLarge'],
  ['8 RESOURCE_EXHAUSTED: Received message larger than max (2097152 vs. 1048576)', 'ValueTooLarge'],
  ['8 RESOURCE_EXHAUSTED: Attempted to send message larger than max', 'ValueTooLarge'],
  ['etcdserver: request timed out', 'Timeout'],
  ['4 DEADLINE_EXCEEDED: Deadline exceeded after 5s', 'Timeout'],
  ['deadline exceeded', 'Timeout'],
  ['DEADLINE_EXCEEDED', 'Timeout'],
  ['etcdserver: leader changed', 'Unavailable'],
  ['etcdserver: no leader', 'Unavailable'],
  ['etcdserver: not capable', 'Unavailable'],
  ['etcdserver: too many requests', 'Unavailable'],
  ['etcdserver: server stopped', 'Unavailable'],
  ['etcdserver: mvcc: database space exceeded', 'Unavailable'],
  ['14 UNAVAILABLE: Connection dropped', 'Unavailable'],
  ['connect ECONNREFUSED 127.0.0.1:2379', 'Unavailable'],
  ['Breaker is open', 'Unavailable'],
  ['Connection pool has no hosts', 'Unavailable'],
  ['the client was closed', 'Unavailable'],
  // Anything else is still a failure a client may retry, with etcd's reason in the message.
  ['etcdserver: permission denied', 'Unavailable'],
  ['8 RESOURCE_EXHAUSTED: etcdserver: too many requests', 'Unavailable'],
];

describe('toStorageError', () => {
  for (const [text, code] of ROWS) {
    test(`${text} → ${code}`, () => {
      const err = toStorageError(new Error(text), { key: '/k' });
      assert.equal(err.code, code);
      assert.equal(err.message, `etcd: ${text}`);
      assert.equal(err.key, '/k');
    });
  }

  test("grpc-js's empty resolution note goes however it is joined on", () => {
    for (const [text, message] of [
      ['lost Resolution note: ', 'etcd: lost'],
      ['lost.Resolution note:', 'etcd: lost'],
      ['lost.  Resolution note:  ', 'etcd: lost'],
      ['lost. Resolution note: DNS', 'etcd: lost. Resolution note: DNS'],
    ]) {
      assert.equal(toStorageError(new Error(text)).message, message);
    }
  });

  test('Compacted carries the compacted revision; RevisionTooLarge the current one', () => {
    const compacted = toStorageError(new Error('etcdserver: mvcc: required revision has been compacted'), { compacted: 40, current: 90 });
    assert.equal(compacted.revision, 40);
    const future = toStorageError(new Error('etcdserver: mvcc: required revision is a future revision'), { compacted: 40, current: 90 });
    assert.equal(future.revision, 90);
  });

  test('a StorageError passes through as it is; a thrown string is read by its text', () => {
    const own = new StorageError('Conflict', 'lost the compare', '/k');
    assert.equal(toStorageError(own), own);
    const err = toStorageError('etcdserver: request timed out');
    assert.equal(err.code, 'Timeout');
    assert.equal(err.message, 'etcd: etcdserver: request timed out');
    assert.equal(err.key, undefined);
  });
});
