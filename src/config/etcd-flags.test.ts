// The etcd storage flags as kube-apiserver names them: parsed into the etcd storage config,
// and refused (with the flag named) when incomplete or malformed.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFlags } from './flags.js';

const parse = (...args: string[]) => parseFlags(args, 'test');

test('--storage-backend etcd with servers, prefix and TLS files', () => {
  const c = parse('--storage-backend', 'etcd', '--etcd-servers', 'https://10.0.0.1:2379/, https://10.0.0.2:2379', '--etcd-prefix', '/kube/', '--etcd-cafile', 'ca.pem', '--etcd-certfile', 'c.pem', '--etcd-keyfile', 'k.pem');
  assert.deepEqual(c.storage, { kind: 'etcd', servers: ['https://10.0.0.1:2379', 'https://10.0.0.2:2379'], prefix: '/kube', caFile: 'ca.pem', certFile: 'c.pem', keyFile: 'k.pem' });
});

test('the default prefix is /registry; sqlite stays the default backend', () => {
  const c = parse('--storage-backend', 'etcd3', '--etcd-servers', 'http://127.0.0.1:2379');
  assert.equal(c.storage.kind, 'etcd');
  assert.equal(c.storage.kind === 'etcd' && c.storage.prefix, '/registry');
  assert.equal(parse().storage.kind, 'sqlite');
});

test('incomplete or malformed etcd flags are refused', () => {
  assert.throws(() => parse('--storage-backend', 'etcd'), /needs --etcd-servers/);
  assert.throws(() => parse('--storage-backend', 'etcd', '--etcd-servers', '127.0.0.1:2379'), /--etcd-servers: "127.0.0.1:2379" is not an http/);
  assert.throws(() => parse('--storage-backend', 'etcd', '--etcd-servers', 'http://a:1', '--etcd-certfile', 'c.pem'), /go together/);
  assert.throws(() => parse('--storage-backend', 'etcd', '--etcd-servers', 'http://a:1', '--etcd-prefix', 'registry'), /must start with \//);
  assert.throws(() => parse('--storage-backend', 'mysql'), /sqlite, memory or etcd/);
});
