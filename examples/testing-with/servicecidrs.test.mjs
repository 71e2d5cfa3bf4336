// Testing code that talks to the Kubernetes API against a real platform-apiserver, started in the
// test's own process by platform-apiserver/testing (docs/testing-with.md). Run: node --test
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { startTestServer } from 'platform-apiserver/testing';

/** A read-only role on ServiceCIDRs, bound to the group `viewers`. */
const policy = [
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'servicecidr-viewer' },
    rules: [{ apiGroups: ['networking.platform.io'], resources: ['servicecidrs'], verbs: ['get', 'list', 'watch'] }],
  },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'viewers' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'servicecidr-viewer' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'viewers' }],
  },
];

let server;
before(async () => {
  server = await startTestServer({ users: [{ name: 'vera', groups: ['viewers'] }], policy });
});
after(() => server.stop());

/** client-node's generic client, for the admin or another user's kubeconfig. */
function clientFor(kubeconfig) {
  const kc = new k8s.KubeConfig();
  kc.loadFromString(kubeconfig);
  return k8s.KubernetesObjectApi.makeApiClient(kc);
}

const serviceCIDR = (name, cidrs) => ({ apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name }, spec: { cidrs } });

test('the server starts with its default ServiceCIDR', async () => {
  const list = await clientFor(server.kubeconfig).list('networking.platform.io/v1', 'ServiceCIDR');
  assert.deepEqual(list.items.map((s) => s.metadata.name), ['kubernetes']);
});

test('the admin creates a ServiceCIDR and reads it back', async () => {
  const admin = clientFor(server.kubeconfig);
  await admin.create(serviceCIDR('pods', ['10.96.0.0/16']));
  const read = await admin.read(serviceCIDR('pods'));
  assert.deepEqual(read.spec.cidrs, ['10.96.0.0/16']);
});

test('an invalid object is refused as kube-apiserver refuses it (422)', async () => {
  await assert.rejects(clientFor(server.kubeconfig).create(serviceCIDR('bad', ['10.0.0.1/16'])), (err) => err.code === 422);
});

test('a viewer may list ServiceCIDRs but not create one', async () => {
  const vera = clientFor(server.kubeconfigFor('vera'));
  const list = await vera.list('networking.platform.io/v1', 'ServiceCIDR');
  assert.ok(list.items.length > 0);
  await assert.rejects(vera.create(serviceCIDR('mine', ['10.97.0.0/16'])), (err) => err.code === 403);
});
