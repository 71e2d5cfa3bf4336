// Admission configuration on etcd with two replicas: a ValidatingAdmissionPolicy, its binding
// and a webhook configuration written through one replica are in force on the other within a
// bound (each replica reads them through its own informers over the shared store), and the
// policy's status is written once per generation whichever replica's controller gets there.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { startServer, type TestServer } from './harness.js';
import { requireEtcd, startEtcdCluster, type EtcdCluster } from '../support/etcd-process.js';
import { seededDataDirs } from '../support/replica-data-dirs.js';
import { startHttpsPeer, type HttpsPeer } from '../support/https-peer.js';
import { eventually } from '../support/polling.js';
import { binding, policy, SC, serviceCIDR, VAP, VAPB, VWC } from '../support/admission-fixtures.js';

const haveEtcd = requireEtcd('policies and webhooks are shared by replicas on a real etcd') !== undefined;
/** How long a configuration written through one replica may take to apply on the other. */
const BOUND_MS = 10_000;

describe('admission configuration shared by two replicas on one etcd', { skip: !haveEtcd }, () => {
  let etcd: EtcdCluster;
  let a: TestServer;
  let b: TestServer;
  let seeded: { dirs: string[]; cleanup(): void };
  let peer: HttpsPeer;

  before(async () => {
    etcd = await startEtcdCluster();
    seeded = await seededDataDirs(2);
    const args = ['--controllers=-service-cidr-controller', '--storage-backend', 'etcd', '--etcd-servers', etcd.endpoints, '--etcd-prefix', `/admission-replicas-${process.pid}`];
    [a, b] = await Promise.all(seeded.dirs.map((dataDir) => startServer({ dataDir, removeOnStop: true, args })));
    peer = await startHttpsPeer((_req, body, res: ServerResponse) => {
      const review = JSON.parse(body);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: review.request.uid, allowed: false, status: { code: 403, message: 'refused by the shared webhook' } } }));
    });
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await peer?.stop();
    await etcd?.stop();
    seeded?.cleanup();
  });

  test('a policy created through A denies on B within the bound, and stops when deleted through A', async (t) => {
    const p = policy('replicated', { validations: [{ expression: "object.spec.cidrs.all(c, c.startsWith('10.'))", message: 'only 10/8 ranges' }] });
    assert.equal((await a.request('POST', VAP, { body: p })).status, 201);
    const started = Date.now();
    assert.equal((await a.request('POST', VAPB, { body: binding('replicated', 'replicated', ['Deny']) })).status, 201);
    const denied = await eventually(() => b.request('POST', `${SC}?dryRun=All`, { body: serviceCIDR('outside', ['192.168.0.0/24']) }), (r) => r.status === 422, BOUND_MS, 50);
    assert.equal(denied.status, 422, `not in force on B within ${BOUND_MS} ms`);
    assert.equal(denied.json.message, `servicecidrs.networking.platform.io "outside" is forbidden: ValidatingAdmissionPolicy 'replicated' with binding 'replicated' denied request: only 10/8 ranges`);
    t.diagnostic(`policy in force on the other replica after ${Date.now() - started} ms`);
    // Both replicas' status controllers report the one generation.
    const status = await eventually(async () => (await b.request('GET', `${VAP}/replicated`)).json.status, (s) => s?.observedGeneration === 1, BOUND_MS, 100);
    assert.deepEqual(status, { observedGeneration: 1, typeChecking: {} });
    assert.equal((await a.request('DELETE', `${VAPB}/replicated`)).status, 200);
    const allowed = await eventually(() => b.request('POST', `${SC}?dryRun=All`, { body: serviceCIDR('outside', ['192.168.0.0/24']) }), (r) => r.status === 201, BOUND_MS, 50);
    assert.equal(allowed.status, 201);
  });

  test('a webhook configuration created through B is called for writes through A', async () => {
    const webhook = {
      name: 'shared.example.com',
      clientConfig: { url: `${peer.url}/validate`, caBundle: Buffer.from(peer.caPem).toString('base64') },
      rules: [{ operations: ['CREATE'], apiGroups: ['networking.platform.io'], apiVersions: ['v1'], resources: ['servicecidrs'] }],
      objectSelector: { matchLabels: { shared: 'yes' } },
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
    };
    assert.equal((await b.request('POST', VWC, { body: { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'shared' }, webhooks: [webhook] } })).status, 201);
    const r = await eventually(() => a.request('POST', `${SC}?dryRun=All`, { body: serviceCIDR('hooked', ['10.1.0.0/24'], { shared: 'yes' }) }), (x) => x.status === 403, BOUND_MS, 50);
    assert.equal(r.status, 403);
    assert.equal(r.json.message, 'admission webhook "shared.example.com" denied the request: refused by the shared webhook');
    assert.ok((peer.hits.get('/validate') ?? 0) >= 1);
  });
});
