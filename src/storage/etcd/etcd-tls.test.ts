// TLS to etcd (--etcd-cafile, --etcd-certfile, --etcd-keyfile): a real etcd serving clients over
// TLS and requiring client certificates; the store verifies etcd against the CA and presents its
// own certificate. Without the client certificate etcd refuses the store.

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EtcdStore } from './etcd-store.js';
import { isStorageError } from '../revisioned-store.js';
import { ensureServingCertificates } from '../../config/certificates.js';
import { requireEtcd, startEtcdCluster, type EtcdCluster } from '../../../test/support/etcd-process.js';
import { clientCertificate } from '../../../test/support/etcd-client-cert.js';

const haveEtcd = requireEtcd('TLS to etcd is tested against a real etcd') !== undefined;

describe('TLS to etcd', { skip: !haveEtcd }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'etcd-tls-'));
  let etcd: EtcdCluster | undefined;
  after(async () => {
    await etcd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the store verifies etcd with the CA and authenticates with its client certificate', async () => {
    await ensureServingCertificates({ dir, hosts: ['127.0.0.1'] });
    const client = await clientCertificate(dir);
    const tls = { certFile: join(dir, 'apiserver.crt'), keyFile: join(dir, 'apiserver.key'), caFile: join(dir, 'ca.crt'), clientCertFile: client.certFile, clientKeyFile: client.keyFile };
    etcd = await startEtcdCluster({ tls });
    assert.match(etcd.endpoints, /^https:\/\//);
    const store = new EtcdStore({ servers: etcd.endpoints.split(','), caFile: tls.caFile, certFile: client.certFile, keyFile: client.keyFile, root: '', prefix: '/tls' });
    try {
      const put = await store.optimisticPut('/k', new TextEncoder().encode('over tls'), 0);
      assert.equal(new TextDecoder().decode((await store.get('/k')).kv!.value), 'over tls');
      assert.equal(await store.currentRevision(), put.revision);
    } finally {
      await store.close();
    }
    const anonymous = new EtcdStore({ servers: etcd.endpoints.split(','), caFile: tls.caFile, root: '', prefix: '/tls', requestTimeoutMs: 3000 });
    try {
      await assert.rejects(anonymous.get('/k'), (e: unknown) => isStorageError(e));
    } finally {
      await anonymous.close();
    }
  });
});
