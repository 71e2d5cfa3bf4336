// A write whose request timeout passes while the event loop is held by the request's own work (a
// slow decode, admission or strategy step that never yields) is not applied: the timeout's timer
// cannot fire while the loop is held, so the registry's last check before the storage write reads
// the clock itself. Through real HTTPS on an in-process server, on SQLite and on a real etcd; the
// step is an admission plugin that holds the loop past the deadline.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AdmissionPlugin } from '../../src/apimachinery/admission.js';
import { requireEtcd, startEtcdCluster, type EtcdCluster } from '../support/etcd-process.js';
import type { TestServer } from './harness.js';
import { startInProcessServer } from './in-process-server.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';
const TIMEOUT_MS = 1000;
const cidr = (name: string, labels: Record<string, string> = {}) => ({ apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name, labels }, spec: { cidrs: ['10.67.0.0/24'] } });
const haveEtcd = requireEtcd('the registry stops a timed-out write on etcd too') !== undefined;

/** Holds the event loop (no await) for 1.5 × the request timeout on objects labelled hold=yes. */
const blockingAdmission: AdmissionPlugin = {
  name: 'HoldsTheLoopForTest',
  validate: async (a) => {
    const labels = (a.object as { metadata?: { labels?: Record<string, string> } } | undefined)?.metadata?.labels;
    if (labels?.hold !== 'yes') return;
    const end = performance.now() + TIMEOUT_MS * 1.5;
    while (performance.now() < end) {
      // busy: the timeout's timer cannot run
    }
  },
};

for (const backend of ['sqlite', 'etcd'] as const) {
  describe(`a write whose deadline passed while the loop was held is not applied (${backend})`, { skip: backend === 'etcd' && !haveEtcd }, () => {
    let etcd: EtcdCluster | undefined;
    let server: TestServer;
    before(async () => {
      if (backend === 'etcd') etcd = await startEtcdCluster();
      const flags = etcd ? ['--storage-backend', 'etcd', '--etcd-servers', etcd.endpoints] : [];
      server = await startInProcessServer({ admission: [blockingAdmission], requestTimeoutMs: TIMEOUT_MS, flags });
    });
    after(async () => {
      await server?.stop();
      await etcd?.stop();
    });
    const settle = () => new Promise((r) => setTimeout(r, 1000));

    test('create: 504 Timeout, and no object', async () => {
      const r = await server.request('POST', SC, { body: cidr('blocked-create', { hold: 'yes' }), timeoutMs: 20_000 });
      assert.equal(r.status, 504, r.text);
      assert.equal(r.json.reason, 'Timeout');
      await settle();
      assert.equal((await server.request('GET', `${SC}/blocked-create`)).status, 404, 'a write answered 504 was applied');
    });

    test('update and patch: 504 Timeout, and the object unchanged', async () => {
      const created = await server.request('POST', SC, { body: cidr('blocked-update', { v: '1' }) });
      assert.equal(created.status, 201, created.text);
      const put = await server.request('PUT', `${SC}/blocked-update`, { body: { ...created.json, metadata: { ...created.json.metadata, labels: { v: '2', hold: 'yes' } } }, timeoutMs: 20_000 });
      assert.equal(put.status, 504, put.text);
      const patch = await server.request('PATCH', `${SC}/blocked-update`, { body: { metadata: { labels: { v: '3', hold: 'yes' } } }, headers: { 'Content-Type': 'application/merge-patch+json' }, timeoutMs: 20_000 });
      assert.equal(patch.status, 504, patch.text);
      await settle();
      const got = await server.request('GET', `${SC}/blocked-update`);
      assert.deepEqual(got.json.metadata.labels, { v: '1' }, 'the writes answered 504 were not applied');
    });
  });
}
