// The table that decides what a failed etcd transaction means for its write (issue #35): a
// write etcd refused before raft, or one that never left this process, was not applied and is
// reported as the failure it is; one that was sent and lost its answer may have been applied,
// and is settled by a read or answered as kube's "may have been applied" timeout.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { StorageError } from '../revisioned-store.js';
import { mayHaveBeenApplied, neverSent, outcomeUnknown, sameBytes } from './etcd-write-outcome.js';

// Messages as grpc-js and the etcd3 client word them.
const REFUSED = [
  '14 UNAVAILABLE: etcdserver: no leader',
  'etcdserver: not capable',
  '8 RESOURCE_EXHAUSTED: etcdserver: too many requests',
  '8 RESOURCE_EXHAUSTED: etcdserver: mvcc: database space exceeded',
  '3 INVALID_ARGUMENT: etcdserver: request is too large',
  '8 RESOURCE_EXHAUSTED: Received message larger than max (2097152 vs. 1048576)',
  '7 PERMISSION_DENIED: etcdserver: permission denied',
  '16 UNAUTHENTICATED: etcdserver: invalid auth token',
  '3 INVALID_ARGUMENT: etcdserver: user name is empty',
];

const NEVER_SENT = [
  '14 UNAVAILABLE: No connection established. Last error: Error: connect ECONNREFUSED 127.0.0.1:2379. Resolution note: ',
  '14 UNAVAILABLE: there is no address available',
  '14 UNAVAILABLE: there is no connection available',
];

const SENT_AND_LOST = [
  'etcdserver: request timed out',
  '4 DEADLINE_EXCEEDED: Deadline exceeded after 5.001s',
  '14 UNAVAILABLE: Connection dropped',
  '13 INTERNAL: Received RST_STREAM with code 2',
  '14 UNAVAILABLE: etcdserver: leader changed',
  '14 UNAVAILABLE: etcdserver: server stopped',
  '14 UNAVAILABLE: read ECONNRESET',
];

describe('mayHaveBeenApplied', () => {
  for (const message of REFUSED) {
    test(`refused before raft, not applied: ${message}`, () => {
      assert.equal(mayHaveBeenApplied(new Error(message)), false);
    });
  }
  for (const message of NEVER_SENT) {
    test(`never sent, not applied: ${message}`, () => {
      assert.equal(neverSent(new Error(message)), true);
      assert.equal(mayHaveBeenApplied(new Error(message)), false);
    });
  }
  for (const message of SENT_AND_LOST) {
    test(`sent and its answer lost, may have been applied: ${message}`, () => {
      assert.equal(neverSent(new Error(message)), false);
      assert.equal(mayHaveBeenApplied(new Error(message)), true);
    });
  }

  test('our own StorageErrors (a compare that failed, a value too large) were decided by us, not applied', () => {
    assert.equal(mayHaveBeenApplied(new StorageError('Unavailable', 'etcdserver: request timed out')), false);
  });

  test('a thrown non-Error is read by its text', () => {
    assert.equal(mayHaveBeenApplied('etcdserver: no leader'), false);
    assert.equal(mayHaveBeenApplied('Connection dropped'), true);
    assert.equal(neverSent('No connection established'), true);
  });

  test('the refused table matches etcd\'s words only, in their case', () => {
    // A message merely mentioning a leader is not etcd refusing for lack of one.
    assert.equal(mayHaveBeenApplied(new Error('etcdserver: leader changed; no leader yet? retry')), true);
    assert.equal(mayHaveBeenApplied(new Error('ETCDSERVER: NO LEADER')), true);
  });
});

describe('outcomeUnknown', () => {
  test("kube's timeout that says the write may have been applied, with etcd's reason and no empty resolution note", () => {
    const err = outcomeUnknown('/registry/x', new Error('14 UNAVAILABLE: Connection dropped. Resolution note: '));
    assert.ok(err instanceof StorageError);
    assert.equal(err.code, 'Timeout');
    assert.equal(err.key, '/registry/x');
    assert.equal(err.message, 'request did not complete within requested timeout - the write may have been applied (etcd: 14 UNAVAILABLE: Connection dropped)');
  });

  test("grpc-js's empty resolution note goes however it is joined on: with or without a period, spaces or none", () => {
    const reason = (message: string) => outcomeUnknown('k', new Error(message)).message.replace(/^.*\(etcd: (.*)\)$/, '$1');
    assert.equal(reason('lost Resolution note: '), 'lost');
    assert.equal(reason('lost.Resolution note:'), 'lost');
    assert.equal(reason('lost.  Resolution note:  '), 'lost');
  });

  test('a non-Error and a resolution note that says something keep their text', () => {
    assert.equal(outcomeUnknown('k', 'lost').message, 'request did not complete within requested timeout - the write may have been applied (etcd: lost)');
    assert.match(outcomeUnknown('k', new Error('x. Resolution note: DNS')).message, /\(etcd: x\. Resolution note: DNS\)$/);
  });
});

describe('sameBytes', () => {
  test('compares the viewed bytes, not the buffers under them', () => {
    const backing = Uint8Array.from([9, 1, 2, 3, 9]);
    assert.equal(sameBytes(backing.subarray(1, 4), Uint8Array.from([1, 2, 3])), true);
    assert.equal(sameBytes(backing.subarray(1, 4), Uint8Array.from([1, 2, 4])), false);
    assert.equal(sameBytes(backing.subarray(1, 4), Uint8Array.from([1, 2])), false);
    assert.equal(sameBytes(new Uint8Array(0), new Uint8Array(0)), true);
  });
});
