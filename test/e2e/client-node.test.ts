// @kubernetes/client-node 1.x specifics against the real server: an Informer (list, then watch
// from the list's resourceVersion) stays in sync through writes and a restart of the server; the
// object API's default strategic patch (with its user-agent field manager) and ServerSideApply.
// The suite both majors share (CRUD, four patch types, informers through a 410, bookmarks) is
// client-node-suite.ts, run by client-node-majors.test.ts.

// The ServiceCIDR controller's own writes (finalizer, Ready) are tested in controllers.test.ts; these
// tests pin API behaviour exactly (events, managedFields, finalizers), so it is off here.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { startServer, type TestServer } from './harness.js';

const GROUP = 'networking.platform.io';
const PATH = `/apis/${GROUP}/v1/servicecidrs`;

async function waitFor(what: string, cond: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('client-node informer', () => {
  let server: TestServer;
  let informer: k8s.Informer<k8s.KubernetesObject> & k8s.ObjectCache<k8s.KubernetesObject>;
  const seen: string[] = [];
  let done = false;

  before(async () => {
    server = await startServer({ args: ['--controllers=-service-cidr-controller'] });
  });
  after(async () => {
    done = true;
    await informer?.stop();
    await server?.stop();
  });

  const names = () => informer.list().map((o) => o.metadata?.name).sort();
  const labelOf = (name: string) => informer.list().find((o) => o.metadata?.name === name)?.metadata?.labels?.v;
  const write = (method: string, path: string, body?: object) =>
    server.request(method, path, { body, headers: method === 'PATCH' ? { 'Content-Type': 'application/merge-patch+json' } : {} });

  test('stays in sync through adds, updates, deletes and a server restart', async () => {
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfigPath);
    const api = kc.makeApiClient(k8s.CustomObjectsApi);
    informer = k8s.makeInformer(kc, PATH, () => api.listClusterCustomObject({ group: GROUP, version: 'v1', plural: 'servicecidrs' }) as never);
    informer.on('add', (o) => seen.push(`add ${o.metadata?.name}`));
    informer.on('update', (o) => seen.push(`update ${o.metadata?.name}`));
    informer.on('delete', (o) => seen.push(`delete ${o.metadata?.name}`));
    // An informer stops on errors other than 410; during the restart, start it again (not after the test).
    informer.on('error', () => setTimeout(() => void (done ? undefined : informer.start()), 500).unref());
    await informer.start();

    const sc = (name: string, v: string) => ({ apiVersion: `${GROUP}/v1`, kind: 'ServiceCIDR', metadata: { name, labels: { v } }, spec: { cidrs: ['10.0.0.0/8'] } });
    assert.equal((await write('POST', PATH, sc('one', '1'))).status, 201);
    assert.equal((await write('POST', PATH, sc('two', '1'))).status, 201);
    await waitFor('two adds', () => names().join() === 'one,two');
    await write('PATCH', `${PATH}/one`, { metadata: { labels: { v: '2' } } });
    await write('DELETE', `${PATH}/two`);
    await waitFor('update and delete', () => names().join() === 'one' && labelOf('one') === '2');

    // Restart on the same port and data dir; the informer resumes from its last resourceVersion.
    const { port, dataDir } = server;
    await server.stop({ keepData: true });
    server = await startServer({ dataDir, removeOnStop: true, args: ['--controllers=-service-cidr-controller', '--secure-port', String(port)] });
    assert.equal((await write('POST', PATH, sc('three', '1'))).status, 201);
    await write('PATCH', `${PATH}/one`, { metadata: { labels: { v: '3' } } });
    await waitFor('changes after the restart', () => names().join() === 'one,three' && labelOf('one') === '3');
    assert.deepEqual(seen.slice(0, 4), ['add one', 'add two', 'update one', 'delete two']);
  });
});

describe('client-node KubernetesObjectApi patch and apply', () => {
  let server: TestServer;
  let client: k8s.KubernetesObjectApi;
  before(async () => {
    server = await startServer({ args: ['--controllers=-service-cidr-controller'] });
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfigPath);
    client = k8s.KubernetesObjectApi.makeApiClient(kc);
  });
  after(async () => {
    await server?.stop();
  });

  const sc = (metadata: Record<string, unknown>) => ({ apiVersion: `${GROUP}/v1`, kind: 'ServiceCIDR', metadata: { name: 'via-client', ...metadata }, spec: { cidrs: ['10.50.0.0/24'] } });

  test('the default strategic merge patch merges finalizers as a set', async () => {
    await client.create(sc({ finalizers: ['example.com/a'] }));
    const patched: k8s.KubernetesObject = await client.patch({ apiVersion: `${GROUP}/v1`, kind: 'ServiceCIDR', metadata: { name: 'via-client', finalizers: ['example.com/b'] } });
    assert.deepEqual(patched.metadata?.finalizers, ['example.com/a', 'example.com/b']);
    // client-node sends no fieldManager: the user agent's product ("node-fetch") is the manager,
    // and its create and patch merge into one Update entry owning both finalizers.
    const entries = patched.metadata?.managedFields ?? [];
    assert.deepEqual(entries.map((e) => [e.manager, e.operation]), [['node-fetch', 'Update']]);
    assert.deepEqual(Object.keys((entries[0]!.fieldsV1 as any)['f:metadata']['f:finalizers']), ['.', 'v:"example.com/a"', 'v:"example.com/b"']);
  });

  test('ServerSideApply: applies with a field manager, conflicts without force, wins with it', async () => {
    const apply = (labels: Record<string, string>, manager: string, force: boolean): Promise<k8s.KubernetesObject> =>
      client.patch<k8s.KubernetesObject>(sc({ labels }), undefined, undefined, manager, force, k8s.PatchStrategy.ServerSideApply);
    const first = await apply({ owner: 'ctrl-a' }, 'ctrl-a', false);
    assert.equal(first.metadata?.labels?.owner, 'ctrl-a');
    await assert.rejects(apply({ owner: 'ctrl-b' }, 'ctrl-b', false), (err: unknown) => {
      const e = err as { code?: number; body?: string };
      assert.equal(e.code, 409);
      assert.match(String(e.body), /Apply failed with 1 conflict: conflict with \\"ctrl-a\\": .metadata.labels.owner/);
      return true;
    });
    const forced = await apply({ owner: 'ctrl-b' }, 'ctrl-b', true);
    assert.equal(forced.metadata?.labels?.owner, 'ctrl-b');
    const appliers = forced.metadata?.managedFields?.filter((e) => e.operation === 'Apply').map((e) => e.manager).sort();
    assert.deepEqual(appliers, ['ctrl-a', 'ctrl-b']);
    // Clean up the finalizer so the server can stop with nothing pending.
    await client.patch({ apiVersion: `${GROUP}/v1`, kind: 'ServiceCIDR', metadata: { name: 'via-client', finalizers: null } } as never, undefined, undefined, undefined, undefined, k8s.PatchStrategy.MergePatch);
  });
});
