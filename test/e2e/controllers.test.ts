// The in-process controllers end to end, over HTTPS with the real kubectl: a fresh server has
// the `kubernetes` ServiceCIDR Ready; `kubectl wait --for=condition=Ready` works right after
// `kubectl create`; deleting a ServiceCIDR goes through its finalizer; a restart with a changed
// --service-cluster-ip-range upgrades single- to dual-stack and never overwrites other ranges;
// ClusterTrustBundle expiry warnings as kubectl prints them.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './harness.js';
import { kubectlFor, tableRows, type Kubectl } from './kubectl.js';
import { requireTool } from './require-tool.js';
import { makeCACert } from '../fixtures/certs.js';

const binary = requireTool('kubectl', 'the controllers end-to-end tests drive the real client');
const FINALIZER = 'networking.platform.io/service-cidr-finalizer';

describe('controllers end to end', { skip: !binary }, () => {
  let server: TestServer;
  let kubectl: Kubectl;

  before(async () => {
    server = await startServer({ args: ['--service-cluster-ip-range', '10.96.0.0/16'] });
    kubectl = kubectlFor(binary!, server.kubeconfigPath);
  });
  after(async () => {
    await server?.stop();
  });

  test('a fresh server has the `kubernetes` ServiceCIDR from the flag, Ready', async () => {
    const wait = await kubectl(['wait', '--for=condition=Ready', 'servicecidr/kubernetes', '--timeout=30s']);
    assert.equal(wait.stdout, 'servicecidr.networking.platform.io/kubernetes condition met\n', wait.stderr);
    const rows = tableRows((await kubectl(['get', 'servicecidrs', '-o', 'wide'])).stdout);
    assert.deepEqual(rows[0], ['NAME', 'CIDRS', 'AGE']);
    assert.deepEqual(rows.slice(1).map((r) => r.slice(0, 2)), [['kubernetes', '10.96.0.0/16']]);
    const obj = JSON.parse((await kubectl(['get', 'servicecidr', 'kubernetes', '-o', 'json'])).stdout);
    assert.deepEqual(obj.metadata.finalizers, [FINALIZER]);
    assert.equal(obj.status.conditions.length, 1);
    const { lastTransitionTime, ...ready } = obj.status.conditions[0];
    assert.match(lastTransitionTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.deepEqual(ready, { type: 'Ready', status: 'True', reason: '', message: 'Kubernetes Service CIDR is ready' });
  });

  test('kubectl wait --for=condition=Ready right after kubectl create', async () => {
    const file = kubectl.manifest('fresh', { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'fresh' }, spec: { cidrs: ['10.200.0.0/24'] } });
    const created = await kubectl(['create', '-f', file]);
    assert.equal(created.stdout, 'servicecidr.networking.platform.io/fresh created\n', created.stderr);
    const wait = await kubectl(['wait', '--for=condition=Ready', 'servicecidr/fresh', '--timeout=30s']);
    assert.equal(wait.stdout, 'servicecidr.networking.platform.io/fresh condition met\n', wait.stderr);
    assert.equal(wait.code, 0);
  });

  test('delete goes through the finalizer: the object waits its grace period, then goes', async () => {
    const file = kubectl.manifest('doomed', { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'doomed' }, spec: { cidrs: ['10.201.0.0/24'] } });
    await kubectl(['create', '-f', file]);
    await kubectl(['wait', '--for=condition=Ready', 'servicecidr/doomed', '--timeout=30s']);
    assert.equal((await kubectl(['get', 'servicecidr', 'doomed', '-o', 'jsonpath={.metadata.finalizers}'])).stdout, `["${FINALIZER}"]`);
    // Without waiting: the object is still there, marked for deletion, finalizer pending.
    const marked = await kubectl(['delete', 'servicecidr', 'doomed', '--wait=false']);
    assert.equal(marked.stdout, 'servicecidr.networking.platform.io "doomed" deleted\n');
    const still = JSON.parse((await kubectl(['get', 'servicecidr', 'doomed', '-o', 'json'])).stdout);
    assert.match(still.metadata.deletionTimestamp, /Z$/);
    assert.deepEqual(still.metadata.finalizers, [FINALIZER]);
    // kubectl's own wait for deletion ends when the controller removed the finalizer.
    const gone = await kubectl(['wait', '--for=delete', 'servicecidr/doomed', '--timeout=60s']);
    assert.equal(gone.code, 0, gone.stderr);
    const get = await kubectl(['get', 'servicecidr', 'doomed']);
    assert.equal(get.stderr.trim(), 'Error from server (NotFound): servicecidrs.networking.platform.io "doomed" not found');
  });

  test('ClusterTrustBundle warnings as kubectl prints them', async () => {
    const DAY = 24 * 3600 * 1000;
    const expired = await makeCACert({ commonName: 'old-root', notBefore: new Date(Date.now() - 400 * DAY), notAfter: new Date('2025-01-01T00:00:00Z') });
    const fine = await makeCACert({ commonName: 'fine-root' });
    const file = kubectl.manifest('ctb', {
      apiVersion: 'certificates.platform.io/v1beta1',
      kind: 'ClusterTrustBundle',
      metadata: { name: 'with-old-root' },
      spec: { trustBundle: fine.pem + expired.pem },
    });
    const r = await kubectl(['create', '-f', file]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, 'Warning: spec.trustBundle: certificate 1 (CN=old-root) expired at 2025-01-01T00:00:00Z\n');
    const soon = await makeCACert({ commonName: 'soon-root', notBefore: new Date(Date.now() - DAY), notAfter: new Date(Date.now() + 10 * DAY) });
    const updated = await kubectl(['patch', 'clustertrustbundle', 'with-old-root', '--type=merge', '-p', JSON.stringify({ spec: { trustBundle: soon.pem } })]);
    assert.equal(updated.code, 0, updated.stderr);
    assert.match(updated.stderr, /^Warning: spec\.trustBundle: certificate 0 \(CN=soon-root\) expires at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ, within 30 days\n$/);
  });
});

describe('--service-cluster-ip-range across restarts', { skip: !binary }, () => {
  let server: TestServer | undefined;
  after(async () => {
    await server?.stop();
  });

  const kubernetesCIDRs = async (s: TestServer) => (await s.request('GET', '/apis/networking.platform.io/v1/servicecidrs/kubernetes')).json.spec.cidrs;

  test('single- to dual-stack is upgraded; a different range is reported and left alone', async () => {
    server = await startServer({ args: ['--service-cluster-ip-range', '10.0.0.0/24'] });
    const dataDir = server.dataDir;
    assert.deepEqual(await kubernetesCIDRs(server), ['10.0.0.0/24']);
    await server.stop({ keepData: true });

    server = await startServer({ dataDir, args: ['--service-cluster-ip-range', '10.0.0.0/24,fd00:10:96::/108'] });
    assert.deepEqual(await kubernetesCIDRs(server), ['10.0.0.0/24', 'fd00:10:96::/108']);
    const k = kubectlFor(binary!, server.kubeconfigPath);
    const wait = await k(['wait', '--for=condition=Ready', 'servicecidr/kubernetes', '--timeout=30s']);
    assert.equal(wait.code, 0, wait.stderr);
    await server.stop({ keepData: true });

    server = await startServer({ dataDir, removeOnStop: true, args: ['--service-cluster-ip-range', '192.168.0.0/24'] });
    assert.deepEqual(await kubernetesCIDRs(server), ['10.0.0.0/24', 'fd00:10:96::/108']);
    assert.match(server.log(), /Inconsistent ServiceCIDR status for kubernetes, controller configuration: \[192\.168\.0\.0\/24\], ServiceCIDR configuration: \[10\.0\.0\.0\/24 fd00:10:96::\/108\]/);
    // Reported as kube's Warning event about `kubernetes`, in default.
    let events: { reason: string; message: string; involvedObject: { name: string } }[] = [];
    for (let i = 0; i < 100 && events.length === 0; i++) {
      events = (await server.request('GET', '/api/v1/namespaces/default/events?fieldSelector=reason%3DKubernetesDefaultServiceCIDRInconsistent')).json.items;
      if (events.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    assert.deepEqual(
      events.map((e) => [e.involvedObject.name, e.message]),
      [['kubernetes', 'The default ServiceCIDR [10.0.0.0/24 fd00:10:96::/108] does not match the controller flag configurations [192.168.0.0/24]']],
    );
  });

  test('an invalid flag stops the server with kube-apiserver\'s message', async () => {
    await assert.rejects(startServer({ args: ['--service-cluster-ip-range', '10.0.0.0/24,10.1.0.0/24'] }), /--service-cluster-ip-range\[0\] and --service-cluster-ip-range\[1\] must be of different IP family/);
    await assert.rejects(startServer({ args: ['--service-cluster-ip-range', '10.0.0.0/8'] }), /specified --service-cluster-ip-range is too large; for 32-bit addresses, the mask must be >= 12/);
  });
});
