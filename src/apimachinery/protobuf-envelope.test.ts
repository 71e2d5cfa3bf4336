import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeEnvelope, protoMessage, protoString } from './protobuf-envelope.js';
import { isStatusError } from './status-error.js';

/** Encodes length-delimited fields (enough to build test envelopes). */
const field = (n: number, value: Buffer | string): Buffer => {
  const v = Buffer.isBuffer(value) ? value : Buffer.from(value);
  return Buffer.concat([Buffer.from([(n << 3) | 2, v.length]), v]);
};

test('decodes a SelfSubjectAccessReview envelope as kubectl sends it', () => {
  const attrs = Buffer.concat([field(1, 'default'), field(2, 'create'), field(3, 'networking.platform.io'), field(5, 'servicecidrs'), field(7, 'x')]);
  const raw = Buffer.concat([field(1, Buffer.alloc(0)), field(2, field(1, attrs))]);
  const typeMeta = Buffer.concat([field(1, 'authorization.k8s.io/v1'), field(2, 'SelfSubjectAccessReview')]);
  const body = Buffer.concat([Buffer.from('k8s\0'), field(1, typeMeta), field(2, raw), field(3, ''), field(4, '')]);
  const env = decodeEnvelope(body);
  assert.equal(env.apiVersion, 'authorization.k8s.io/v1');
  assert.equal(env.kind, 'SelfSubjectAccessReview');
  const ra = protoMessage(protoMessage(env.raw, 2), 1);
  assert.deepEqual([1, 2, 3, 5, 6, 7].map((n) => protoString(ra, n)), ['default', 'create', 'networking.platform.io', 'servicecidrs', '', 'x']);
});

test('bodies without the magic or with truncated fields are 400', () => {
  assert.throws(() => decodeEnvelope(Buffer.from('{}')), (e: unknown) => isStatusError(e) && e.code === 400);
  assert.throws(() => decodeEnvelope(Buffer.concat([Buffer.from('k8s\0'), Buffer.from([0x0a, 0x50, 0x01])])), (e: unknown) => isStatusError(e) && e.code === 400);
});
