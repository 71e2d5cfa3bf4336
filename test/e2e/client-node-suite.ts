// One suite that drives @kubernetes/client-node the way controllers do, run against each major
// (client-node-majors.test.ts passes the 1.x and the 2.x module): KubernetesObjectApi CRUD and
// the four patch strategies on both kinds, an Informer over each kind through a 410 (its
// resourceVersion compacted away while it was stopped), and a watch that asks for bookmarks;
// IPAddresses through KubernetesObjectApi; Events through the typed CoreV1Api and EventsV1Api,
// KubernetesObjectApi (namespaced) and an Informer over every namespace's events.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type * as K8s from '@kubernetes/client-node';
import { startServer, type TestServer } from './harness.js';
import { makeCACert } from '../fixtures/certs.js';


type Module = typeof K8s;
type Obj = K8s.KubernetesObject & { spec?: Record<string, unknown> };

interface Kind {
  group: string;
  version: string;
  kind: string;
  plural: string;
  make(name: string, labels?: Record<string, string>): Obj;
}

async function waitFor(what: string, cond: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The HTTP status of a client-node ApiException (1.x and 2.x both carry `code`). */
const statusOf = (err: unknown): number | undefined => (err as { code?: number }).code;

export function describeClientNodeSuite(label: string, k8s: Module): void {
  describe(`client-node ${label}`, () => {
    let server: TestServer;
    let kc: K8s.KubeConfig;
    let objects: K8s.KubernetesObjectApi;
    let custom: K8s.CustomObjectsApi;
    let pem: string;
    const kinds: Kind[] = [];

    before(async () => {
      // History older than a second is compacted, so an informer stopped for a moment gets a 410.
      // These tests pin API behaviour exactly (resourceVersions, finalizers, events); the
      // ServiceCIDR controllers' own writes are tested in controllers.test.ts.
      server = await startServer({ args: ['--controllers=-service-cidr-controller', '--etcd-compaction-interval', '1s'] });
      kc = new k8s.KubeConfig();
      kc.loadFromFile(server.kubeconfigPath);
      objects = k8s.KubernetesObjectApi.makeApiClient(kc);
      custom = kc.makeApiClient(k8s.CustomObjectsApi);
      pem = (await makeCACert({ commonName: `client-node-${label}` })).pem;
      kinds.push(
        {
          group: 'networking.platform.io',
          version: 'v1',
          kind: 'ServiceCIDR',
          plural: 'servicecidrs',
          make: (name, labels) => ({ apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name, labels }, spec: { cidrs: ['10.80.0.0/24'] } }),
        },
        {
          group: 'certificates.platform.io',
          version: 'v1beta1',
          kind: 'ClusterTrustBundle',
          plural: 'clustertrustbundles',
          make: (name, labels) => ({ apiVersion: 'certificates.platform.io/v1beta1', kind: 'ClusterTrustBundle', metadata: { name, labels }, spec: { trustBundle: pem } }),
        },
      );
    });
    after(async () => {
      await server?.stop();
    });

    const ref = (k: Kind, name: string) => ({ apiVersion: `${k.group}/${k.version}`, kind: k.kind, metadata: { name } });

    test('KubernetesObjectApi create, read, list, replace and delete on both kinds', async () => {
      for (const k of kinds) {
        const created = await objects.create(k.make('crud', { step: 'created' }));
        assert.match(created.metadata?.uid ?? '', /^[0-9a-f-]{36}$/, k.kind);
        const read = await objects.read(ref(k, 'crud'));
        assert.equal(read.metadata?.resourceVersion, created.metadata?.resourceVersion);
        const list = await objects.list(`${k.group}/${k.version}`, k.kind);
        assert.deepEqual(list.items.map((o) => o.metadata?.name), ['crud']);
        assert.match(list.metadata?.resourceVersion ?? '', /^[1-9]\d*$/);
        const replaced = await objects.replace({ ...read, metadata: { ...read.metadata, labels: { step: 'replaced' } } });
        assert.deepEqual(replaced.metadata?.labels, { step: 'replaced' });
        assert.notEqual(replaced.metadata?.resourceVersion, read.metadata?.resourceVersion);
        await assert.rejects(objects.replace({ ...read, metadata: { ...read.metadata, labels: { step: 'stale' } } }), (e) => statusOf(e) === 409);
        await objects.delete(ref(k, 'crud'));
        await assert.rejects(objects.read(ref(k, 'crud')), (e) => statusOf(e) === 404);
      }
    });

    test('all four patch strategies on both kinds', async () => {
      for (const k of kinds) {
        await objects.create(k.make('patched', { a: '1' }));
        // Strategic merge (KubernetesObjectApi's default): labels merge.
        const smp = await objects.patch({ ...ref(k, 'patched'), metadata: { name: 'patched', labels: { b: '2' } } });
        assert.deepEqual(smp.metadata?.labels, { a: '1', b: '2' }, `${k.kind} strategic`);
        // JSON merge patch: null removes.
        const merge = await objects.patch<Obj>(
          { ...ref(k, 'patched'), metadata: { name: 'patched', labels: { a: null } } } as unknown as Obj,
          undefined,
          undefined,
          undefined,
          undefined,
          k8s.PatchStrategy.MergePatch,
        );
        assert.deepEqual(merge.metadata?.labels, { b: '2' }, `${k.kind} merge`);
        // JSON patch: a controller sends operations through the custom objects API.
        const json: Obj = await custom.patchClusterCustomObject(
          { group: k.group, version: k.version, plural: k.plural, name: 'patched', body: [{ op: 'add', path: '/metadata/labels/c', value: '3' }, { op: 'test', path: '/metadata/labels/b', value: '2' }] },
          k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch),
        );
        assert.deepEqual(json.metadata?.labels, { b: '2', c: '3' }, `${k.kind} json patch`);
        await assert.rejects(
          custom.patchClusterCustomObject(
            { group: k.group, version: k.version, plural: k.plural, name: 'patched', body: [{ op: 'test', path: '/metadata/labels/b', value: 'no' }] },
            k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch),
          ),
          (e) => statusOf(e) === 422,
        );
        // Server-side apply with a field manager; a second manager conflicts unless it forces.
        const applied = await objects.patch(k.make('patched', { owner: 'ctrl-a' }), undefined, undefined, 'ctrl-a', false, k8s.PatchStrategy.ServerSideApply);
        assert.equal(applied.metadata?.labels?.owner, 'ctrl-a');
        await assert.rejects(objects.patch(k.make('patched', { owner: 'ctrl-b' }), undefined, undefined, 'ctrl-b', false, k8s.PatchStrategy.ServerSideApply), (e) => statusOf(e) === 409);
        const forced = await objects.patch(k.make('patched', { owner: 'ctrl-b' }), undefined, undefined, 'ctrl-b', true, k8s.PatchStrategy.ServerSideApply);
        assert.equal(forced.metadata?.labels?.owner, 'ctrl-b');
        assert.deepEqual(forced.metadata?.managedFields?.filter((e) => e.operation === 'Apply').map((e) => e.manager).sort(), ['ctrl-a', 'ctrl-b']);
        await objects.delete(ref(k, 'patched'));
      }
    });

    for (const which of [0, 1]) {
      test(`an Informer over ${which === 0 ? 'ServiceCIDRs' : 'ClusterTrustBundles'} relists after a 410 and catches up`, async () => {
        const k = kinds[which]!;
        const path = `/apis/${k.group}/${k.version}/${k.plural}`;
        const list = () => custom.listClusterCustomObject({ group: k.group, version: k.version, plural: k.plural }) as never;
        const informer = k8s.makeInformer<Obj>(kc, path, list);
        const events: string[] = [];
        informer.on('add', (o) => events.push(`add ${o.metadata?.name}`));
        informer.on('update', (o) => events.push(`update ${o.metadata?.name}`));
        informer.on('delete', (o) => events.push(`delete ${o.metadata?.name}`));
        const errors: unknown[] = [];
        informer.on('error', (e) => errors.push(e));
        const names = () => informer.list().map((o) => o.metadata?.name).sort().join();
        try {
          await informer.start();
          await objects.create(k.make('keep'));
          await objects.create(k.make('gone'));
          await waitFor('the first two objects', () => names() === 'gone,keep');
          const resumeFrom = (informer as unknown as K8s.ListWatch<Obj>).latestResourceVersion();

          // Stopped, the informer misses changes, and the history it would resume from is compacted.
          await informer.stop();
          await objects.delete(ref(k, 'gone'));
          await objects.create(k.make('new'));
          await objects.patch({ ...ref(k, 'keep'), metadata: { name: 'keep', labels: { v: 'after' } } });
          let expired = false;
          for (let i = 0; i < 100 && !expired; i++) {
            const r = await server.request('GET', `${path}?resourceVersion=${resumeFrom}&resourceVersionMatch=Exact`);
            expired = r.status === 410;
            if (!expired) await new Promise((resolve) => setTimeout(resolve, 100));
          }
          assert.ok(expired, `resourceVersion ${resumeFrom} was compacted`);

          await informer.start(); // watches from resumeFrom: 410, then a relist
          await waitFor('the relist', () => names() === 'keep,new' && informer.get('keep')?.metadata?.labels?.v === 'after');
          assert.ok(events.includes('delete gone'), events.join());
          assert.ok(events.includes('add new'), events.join());
          // stop() aborts the open watch, which both majors report as an AbortError; nothing else.
          assert.deepEqual(errors.filter((e) => (e as Error).name !== 'AbortError'), []);
        } finally {
          await informer.stop();
          for (const name of ['keep', 'new']) await objects.delete(ref(k, name)).catch(() => undefined);
        }
      });
    }

    test('a watch with bookmarks: initial events, then the initial-events-end BOOKMARK', async () => {
      const k = kinds[0]!;
      await objects.create(k.make('bookmarked'));
      const seen: { type: string; obj: Obj }[] = [];
      let ended: unknown = 'open';
      const watch = new k8s.Watch(kc);
      const req = await watch.watch(
        `/apis/${k.group}/${k.version}/${k.plural}`,
        { allowWatchBookmarks: true, sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' },
        (type: string, obj: Obj) => seen.push({ type, obj }),
        (err: unknown) => (ended = err),
      );
      try {
        await waitFor('the bookmark', () => seen.some((e) => e.type === 'BOOKMARK'));
        assert.deepEqual(seen.map((e) => [e.type, e.obj.metadata?.name]), [['ADDED', 'bookmarked'], ['BOOKMARK', undefined]]);
        const mark = seen[1]!.obj;
        assert.equal(mark.metadata?.annotations?.['k8s.io/initial-events-end'], 'true');
        assert.ok(Number(mark.metadata?.resourceVersion) >= Number(seen[0]!.obj.metadata?.resourceVersion));
        assert.equal(mark.spec, undefined, 'a bookmark carries only metadata');
        // The watch is live after the bookmark.
        await objects.patch({ ...ref(k, 'bookmarked'), metadata: { name: 'bookmarked', labels: { live: 'yes' } } });
        await waitFor('the change', () => seen.some((e) => e.type === 'MODIFIED'));
        assert.equal(ended, 'open');
      } finally {
        req.abort();
        await objects.delete(ref(k, 'bookmarked'));
      }
    });

    test('IPAddresses: KubernetesObjectApi create, read, list, patch and delete; a bad name is a 422', async () => {
      const ip = (name: string): Obj => ({ apiVersion: 'networking.platform.io/v1', kind: 'IPAddress', metadata: { name }, spec: { parentRef: { resource: 'services', namespace: 'default', name: 'web' } } });
      const created = await objects.create(ip('10.90.0.1'));
      // Read into client-node's own IPAddress model (it knows the kind from networking.k8s.io): compared as JSON.
      assert.deepEqual(JSON.parse(JSON.stringify(created.spec)), { parentRef: { resource: 'services', namespace: 'default', name: 'web' } });
      const listed = await objects.list('networking.platform.io/v1', 'IPAddress');
      assert.deepEqual(listed.items.map((o) => o.metadata?.name), ['10.90.0.1']);
      const patched = await objects.patch({ ...ip('10.90.0.1'), metadata: { name: '10.90.0.1', labels: { p: '1' } } } as Obj);
      assert.deepEqual(patched.metadata?.labels, { p: '1' });
      await assert.rejects(objects.create(ip('10.90.0.01')), (e) => statusOf(e) === 422);
      await objects.delete(ip('10.90.0.1'));
      await assert.rejects(objects.read({ apiVersion: 'networking.platform.io/v1', kind: 'IPAddress', metadata: { name: '10.90.0.1' } }), (e) => statusOf(e) === 404);
    });

    test('Events: typed CoreV1Api and EventsV1Api over the same objects, KubernetesObjectApi in a namespace, an Informer over all namespaces', async () => {
      const coreApi = kc.makeApiClient(k8s.CoreV1Api);
      const eventsApi = kc.makeApiClient(k8s.EventsV1Api);
      const involvedObject = { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', name: 'kubernetes' };
      const informer = k8s.makeInformer<K8s.CoreV1Event>(kc, '/api/v1/events', () => coreApi.listEventForAllNamespaces() as never);
      const seen: string[] = [];
      informer.on('add', (e) => seen.push(`${e.metadata?.namespace}/${e.metadata?.name}`));
      await informer.start();
      try {
        const made = await coreApi.createNamespacedEvent({
          namespace: 'default',
          body: { metadata: { name: `kubernetes.node-${label}` }, involvedObject, reason: 'NodeTested', message: 'from client-node', type: 'Normal', count: 1, source: { component: 'client-node' } },
        });
        assert.equal(made.metadata?.namespace, 'default');
        const selected = await coreApi.listEventForAllNamespaces({ fieldSelector: 'involvedObject.kind=ServiceCIDR,reason=NodeTested' });
        assert.deepEqual(selected.items.map((e) => e.metadata?.name), [`kubernetes.node-${label}`]);
        const asV1 = await eventsApi.readNamespacedEvent({ name: `kubernetes.node-${label}`, namespace: 'default' });
        assert.equal(asV1.note, 'from client-node');
        assert.equal(asV1.regarding?.kind, 'ServiceCIDR');
        const modern = (eventTime: Date): K8s.EventsV1Event => ({
          metadata: { name: `lease.node-${label}` },
          eventTime,
          reportingController: 'client-node.example.com/suite',
          reportingInstance: 'suite-1',
          action: 'Testing',
          reason: 'NodeTested',
          regarding: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: 'kube-system', name: 'l' },
          type: 'Warning',
        });
        // A plain Date is written with milliseconds, which kube's MicroTime refuses with Go's own error;
        // client-node's V1MicroTime writes the six digits.
        await assert.rejects(eventsApi.createNamespacedEvent({ namespace: 'kube-system', body: modern(new Date('2026-01-02T03:04:05.678Z')) }), (e) => {
          assert.equal(statusOf(e), 400);
          assert.equal(JSON.parse((e as { body: string }).body).message, 'Event in version "v1" cannot be handled as a Event: parsing time "2026-01-02T03:04:05.678Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".678Z" as ".000000"');
          return true;
        });
        const v1 = await eventsApi.createNamespacedEvent({ namespace: 'kube-system', body: modern(new k8s.V1MicroTime('2026-01-02T03:04:05.678Z')) });
        assert.equal(new Date(v1.eventTime).toISOString(), '2026-01-02T03:04:05.678Z');
        assert.equal(v1.metadata?.namespace, 'kube-system');
        const viaObjects = await objects.read({ apiVersion: 'v1', kind: 'Event', metadata: { name: `lease.node-${label}`, namespace: 'kube-system' } });
        assert.equal((viaObjects as unknown as K8s.CoreV1Event).reportingComponent, 'client-node.example.com/suite');
        const listed = await objects.list('v1', 'Event', 'kube-system');
        assert.deepEqual(listed.items.map((o) => o.metadata?.name), [`lease.node-${label}`]);
        await waitFor('both events in the informer', () => seen.length >= 2);
        assert.deepEqual(seen.sort(), [`default/kubernetes.node-${label}`, `kube-system/lease.node-${label}`]);
        await assert.rejects(coreApi.createNamespacedEvent({ namespace: 'team-a', body: { metadata: { name: 'x' }, involvedObject } }), (e) => statusOf(e) === 404);
        await coreApi.deleteNamespacedEvent({ name: `kubernetes.node-${label}`, namespace: 'default' });
        await objects.delete({ apiVersion: 'v1', kind: 'Event', metadata: { name: `lease.node-${label}`, namespace: 'kube-system' } });
      } finally {
        await informer.stop();
      }
    });

    test(
      // client-node percent-encodes the ':' of signer-linked names; the server decodes path segments.
      "signer-linked bundles (':' in names): read, patch, replace and delete",
      async () => {
        const k = kinds[1]!;
        const name = 'example.com:signer:x';
        await objects.create({ ...k.make(name), spec: { signerName: 'example.com/signer', trustBundle: pem } });
        const read = await objects.read(ref(k, name));
        assert.equal(read.metadata?.name, name);
        const patched = await objects.patch({ ...ref(k, name), metadata: { name, labels: { p: '1' } } });
        assert.deepEqual(patched.metadata?.labels, { p: '1' });
        const replaced = await objects.replace({ ...patched, metadata: { ...patched.metadata, labels: { r: '1' } } });
        assert.deepEqual(replaced.metadata?.labels, { r: '1' });
        await objects.delete(ref(k, name));
        await assert.rejects(objects.read(ref(k, name)), (e) => statusOf(e) === 404);
      },
    );
  });
}
