// IPAddress and the Events API over real HTTPS, on SQLite and on etcd: validation and messages,
// namespaced paths and kube's answers for wrong ones, both Event versions over the same objects,
// field selectors, Tables, watch, patch and apply, events expiring after --event-ttl, and a
// ServiceCIDR whose deletion is held while an allocated address is inside it.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, watchEvents, type TestServer } from './harness.js';
import { requireEtcd, startEtcdCluster, type EtcdCluster } from '../support/etcd-process.js';

const IP = '/apis/networking.platform.io/v1/ipaddresses';
const SC = '/apis/networking.platform.io/v1/servicecidrs';
const CORE = '/api/v1/namespaces/default/events';
const V1 = '/apis/events.k8s.io/v1/namespaces/default/events';
const TABLE = { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
const haveEtcd = requireEtcd('the IPAddress and Events tests run on etcd too') !== undefined;

const ipAddress = (name: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'networking.platform.io/v1',
  kind: 'IPAddress',
  metadata: { name, labels },
  spec: { parentRef: { resource: 'services', namespace: 'default', name: 'web' } },
});
const allocated = (ip: string) => ipAddress(ip, { 'ipaddress.kubernetes.io/managed-by': 'ipallocator.k8s.io', 'ipaddress.kubernetes.io/ip-family': ip.includes(':') ? 'IPv6' : 'IPv4' });
const coreEvent = (name: string, extra: object = {}) => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name },
  involvedObject: { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', name: 'kubernetes' },
  reason: 'Tested',
  message: 'an event',
  type: 'Normal',
  source: { component: 'e2e' },
  count: 1,
  firstTimestamp: '2026-01-01T00:00:00Z',
  lastTimestamp: '2026-01-01T00:00:00Z',
  ...extra,
});

async function until(what: string, cond: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const backends: { name: string; skip: boolean; args: () => string[] }[] = [];
let etcd: EtcdCluster | undefined;
backends.push({ name: 'sqlite', skip: false, args: () => [] });
backends.push({ name: 'etcd', skip: !haveEtcd, args: () => ['--storage-backend', 'etcd', '--etcd-servers', etcd!.endpoints, '--etcd-prefix', `/ip-events-${process.pid}`] });

before(async () => {
  if (haveEtcd) etcd = await startEtcdCluster();
});
after(async () => {
  await etcd?.stop();
});

for (const backend of backends) {
  describe(`IPAddress and Events on ${backend.name}`, { skip: backend.skip }, () => {
    let s: TestServer;
    before(async () => {
      // Short enough to see events expire in a test, long enough for the others to read theirs on a busy machine.
      s = await startServer({ args: [...backend.args(), '--event-ttl', '15s'] });
    });
    after(async () => {
      await s?.stop();
    });

    test("IPAddress: kube's validation messages, immutable parentRef, Table, selectors, generateName kept as is", async () => {
      const bad = await s.request('POST', IP, { body: { ...ipAddress('10.0.0.01'), spec: {} } });
      assert.equal(bad.status, 422, bad.text);
      assert.equal(bad.json.message, 'IPAddress.networking.platform.io "10.0.0.01" is invalid: [metadata.name: Invalid value: "10.0.0.01": must not have leading 0s, spec.parentRef: Required value]');
      const mapped = await s.request('POST', IP, { body: ipAddress('::ffff:10.0.0.1') });
      assert.equal(mapped.json.message, 'IPAddress.networking.platform.io "::ffff:10.0.0.1" is invalid: metadata.name: Invalid value: "::ffff:10.0.0.1": must not be an IPv4-mapped IPv6 address');
      const upper = await s.request('POST', IP, { body: ipAddress('2001:DB8::1') });
      assert.equal(upper.json.message, 'IPAddress.networking.platform.io "2001:DB8::1" is invalid: metadata.name: Invalid value: "2001:DB8::1": must be in canonical form ("2001:db8::1")');
      const refs = await s.request('POST', IP, { body: { ...ipAddress('10.0.0.2'), spec: { parentRef: { group: 'Bad_Group', name: 'a/b' } } } });
      assert.deepEqual(
        refs.json.details.causes.map((c: any) => `${c.field}: ${c.message}`),
        [
          "spec.parentRef.group: Invalid value: \"Bad_Group\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
          'spec.parentRef.resource: Required value',
          "spec.parentRef.name: Invalid value: \"a/b\": may not contain '/'",
        ],
      );
      // From a listed resourceVersion, so a watch that connects late on a loaded machine still replays the create.
      const listed = await s.request('GET', IP);
      const watch = watchEvents(s, `${IP}?watch=true&fieldSelector=metadata.name%3D10.0.0.2&timeoutSeconds=20&resourceVersion=${listed.json.metadata.resourceVersion}`, 3);
      const created = await s.request('POST', IP, { body: ipAddress('10.0.0.2') });
      assert.equal(created.status, 201, created.text);
      const changed = await s.request('PUT', `${IP}/10.0.0.2`, { body: { ...created.json, spec: { parentRef: { resource: 'services', namespace: 'default', name: 'other' } } } });
      assert.equal(changed.status, 422);
      assert.equal(changed.json.message, 'IPAddress.networking.platform.io "10.0.0.2" is invalid: spec.parentRef: Invalid value: {"Group":"","Resource":"services","Namespace":"default","Name":"other"}: field is immutable');
      const labelled = await s.request('PATCH', `${IP}/10.0.0.2`, { body: { metadata: { labels: { a: 'b' } } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
      assert.equal(labelled.status, 200, labelled.text);
      const applied = await s.request('PATCH', `${IP}/fd00::5?fieldManager=e2e`, { body: JSON.stringify(ipAddress('fd00::5')), headers: { 'Content-Type': 'application/apply-patch+yaml' } });
      assert.equal(applied.status, 201, applied.text);
      const generated = await s.request('POST', IP, { body: { ...ipAddress(''), metadata: { generateName: '10.0.0.3' } } });
      assert.equal(generated.status, 201, generated.text);
      assert.equal(generated.json.metadata.name, '10.0.0.3');
      const table = await s.request('GET', `${IP}?fieldSelector=metadata.name%3D10.0.0.2`, { headers: TABLE });
      assert.deepEqual(table.json.columnDefinitions.map((c: any) => c.name), ['Name', 'ParentRef']);
      assert.deepEqual(table.json.rows.map((r: any) => r.cells.slice(0, 2)), [['10.0.0.2', 'services/default/web']]);
      assert.equal(table.json.rows[0].cells.length, 3, "kube's printer adds an undeclared Age cell");
      const unknown = await s.request('GET', `${IP}?fieldSelector=spec.parentRef.name%3Dweb`);
      assert.equal(unknown.status, 400);
      assert.equal(unknown.json.message, '"spec.parentRef.name" is not a known field selector: only "metadata.name", "metadata.namespace"');
      assert.equal((await s.request('GET', `/apis/networking.platform.io/v1/namespaces/default/ipaddresses`)).status, 404);
      for (const ip of ['10.0.0.2', 'fd00::5', '10.0.0.3']) assert.equal((await s.request('DELETE', `${IP}/${ip}`)).status, 200);
      assert.deepEqual((await watch).events.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED 10.0.0.2', 'MODIFIED 10.0.0.2', 'DELETED 10.0.0.2']);
    });

    test('Events: both versions over the same objects, namespaced paths, field selectors, Tables', async () => {
      const created = await s.request('POST', CORE, { body: coreEvent('kubernetes.e1') });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.json.metadata.namespace, 'default');
      assert.equal(created.json.reportingComponent, '');
      assert.equal(created.json.eventTime, null);
      const asV1 = await s.request('GET', `${V1}/kubernetes.e1`);
      assert.equal(asV1.status, 200, asV1.text);
      assert.equal(asV1.json.apiVersion, 'events.k8s.io/v1');
      assert.equal(asV1.json.note, 'an event');
      assert.deepEqual(asV1.json.regarding, created.json.involvedObject);
      assert.deepEqual(asV1.json.deprecatedSource, { component: 'e2e' });
      assert.equal(asV1.json.metadata.resourceVersion, created.json.metadata.resourceVersion);
      const modern = await s.request('POST', V1, {
        body: {
          apiVersion: 'events.k8s.io/v1',
          kind: 'Event',
          metadata: { name: 'kubernetes.e2' },
          eventTime: '2026-01-01T00:00:00.000001Z',
          reportingController: 'e2e.example.com/tester',
          reportingInstance: 'tester-1',
          action: 'Testing',
          reason: 'Tested',
          regarding: { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', name: 'kubernetes' },
          note: 'a modern event',
          type: 'Warning',
        },
      });
      assert.equal(modern.status, 201, modern.text);
      const modernCore = await s.request('GET', `${CORE}/kubernetes.e2`);
      assert.equal(modernCore.json.message, 'a modern event');
      assert.equal(modernCore.json.reportingComponent, 'e2e.example.com/tester');
      const strict = await s.request('POST', V1, { body: { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'x' }, reason: 'R', deprecatedCount: 2 } });
      assert.equal(strict.status, 422);
      assert.equal(strict.json.message, 'Event.events.k8s.io "x" is invalid: [eventTime: Required value, type: Invalid value: "": has invalid value: , count: Invalid value: "": needs to be unset]');
      const time = await s.request('POST', CORE, { body: coreEvent('t', { firstTimestamp: '2026-13-01T00:00:00Z' }) });
      assert.equal(time.status, 400);
      assert.equal(time.json.message, 'Event in version "v1" cannot be handled as a Event: parsing time "2026-13-01T00:00:00Z": month out of range');
      const wrongNs = await s.request('POST', '/api/v1/namespaces/team-a/events', { body: coreEvent('y') });
      assert.equal(wrongNs.status, 404);
      assert.equal(wrongNs.json.message, 'namespaces "team-a" not found');
      const mismatch = await s.request('POST', CORE, { body: coreEvent('y', { metadata: { name: 'y', namespace: 'kube-system' } }) });
      assert.equal(mismatch.status, 400);
      assert.equal(mismatch.json.message, 'the namespace of the provided object does not match the namespace sent on the request');
      assert.equal((await s.request('POST', '/api/v1/events', { body: coreEvent('y') })).status, 405);
      assert.equal((await s.request('GET', '/api/v1/events/kubernetes.e1')).status, 404);
      // A replace of a missing event creates it.
      const put = await s.request('PUT', `${CORE}/kubernetes.e3`, { body: coreEvent('kubernetes.e3') });
      assert.equal(put.status, 201, put.text);

      const selected = await s.request('GET', '/api/v1/events?fieldSelector=involvedObject.kind%3DServiceCIDR,involvedObject.name%3Dkubernetes,involvedObject.namespace%3D,type%3DWarning');
      assert.deepEqual(selected.json.items.map((e: any) => e.metadata.name), ['kubernetes.e2']);
      const v1Selected = await s.request('GET', '/apis/events.k8s.io/v1/events?fieldSelector=regarding.name%3Dkubernetes,reportingController%3De2e.example.com%2Ftester');
      assert.deepEqual(v1Selected.json.items.map((e: any) => e.metadata.name), ['kubernetes.e2']);
      const badLabel = await s.request('GET', '/apis/events.k8s.io/v1/events?fieldSelector=involvedObject.name%3Dkubernetes');
      assert.equal(badLabel.status, 400);
      assert.equal(badLabel.json.message, 'field label not supported: involvedObject.name');

      const table = await s.request('GET', `${CORE}?fieldSelector=metadata.name%3Dkubernetes.e1`, { headers: TABLE });
      assert.deepEqual(table.json.columnDefinitions.map((c: any) => `${c.name}/${c.priority}`), ['Last Seen/0', 'Type/0', 'Reason/0', 'Object/0', 'Subobject/1', 'Source/1', 'Message/0', 'First Seen/1', 'Count/1', 'Name/1']);
      assert.deepEqual(table.json.rows[0].cells.slice(1), ['Normal', 'Tested', 'servicecidr/kubernetes', '', 'e2e', 'an event', table.json.rows[0].cells[7], 1, 'kubernetes.e1']);
    });

    test('Events: a watch across namespaces sees creates in each, in either shape', async () => {
      const rv = (await s.request('GET', '/api/v1/events')).json.metadata.resourceVersion;
      const watchAll = watchEvents(s, `/api/v1/events?watch=true&resourceVersion=${rv}&timeoutSeconds=20&fieldSelector=reason%3DWatched`, 2);
      const watchV1 = watchEvents(s, `/apis/events.k8s.io/v1/watch/namespaces/kube-system/events?resourceVersion=${rv}&timeoutSeconds=20`, 1);
      await new Promise((r) => setTimeout(r, 300));
      assert.equal((await s.request('POST', CORE, { body: coreEvent('w1', { reason: 'Watched' }) })).status, 201);
      const sys = coreEvent('w2', { reason: 'Watched', involvedObject: { kind: 'Lease', namespace: 'kube-system', name: 'l', apiVersion: 'coordination.k8s.io/v1' } });
      assert.equal((await s.request('POST', '/api/v1/namespaces/kube-system/events', { body: sys })).status, 201);
      const all = await watchAll;
      assert.deepEqual(all.events.map((e) => `${e.type} ${e.object.metadata.namespace}/${e.object.metadata.name}`), ['ADDED default/w1', 'ADDED kube-system/w2']);
      const v1 = await watchV1;
      assert.deepEqual(v1.events.map((e) => `${e.type} ${e.object.apiVersion} ${e.object.note}`), ['ADDED events.k8s.io/v1 an event']);
    });

    test('Events expire from storage --event-ttl after their last write', async () => {
      const created = await s.request('POST', CORE, { body: coreEvent('expiring') });
      assert.equal(created.status, 201);
      const watch = watchEvents(s, `${CORE}?watch=true&resourceVersion=${created.json.metadata.resourceVersion}&fieldSelector=metadata.name%3Dexpiring&timeoutSeconds=45`, 1, 60_000);
      const { events } = await watch;
      assert.deepEqual(events.map((e) => e.type), ['DELETED']);
      assert.equal((await s.request('GET', `${CORE}/expiring`)).status, 404);
    });

    test('a ServiceCIDR with an allocated address inside stays Terminating until the address goes', async () => {
      assert.equal((await s.request('POST', SC, { body: { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'held' }, spec: { cidrs: ['10.77.0.0/24'] } } })).status, 201);
      await until('held finalized', async () => ((await s.request('GET', `${SC}/held`)).json.metadata.finalizers ?? []).length === 1);
      assert.equal((await s.request('POST', IP, { body: allocated('10.77.0.9') })).status, 201);
      assert.equal((await s.request('DELETE', `${SC}/held`)).status, 200);
      await until('Terminating', async () => (await s.request('GET', `${SC}/held`)).json.status?.conditions?.[0]?.reason === 'Terminating');
      const held = (await s.request('GET', `${SC}/held`)).json;
      assert.deepEqual(
        { status: held.status.conditions[0].status, message: held.status.conditions[0].message },
        { status: 'False', message: 'There are still IPAddresses referencing the ServiceCIDR, please remove them or create a new ServiceCIDR' },
      );
      await new Promise((r) => setTimeout(r, 12_000));
      assert.equal((await s.request('GET', `${SC}/held`)).status, 200, 'held past the grace period');
      assert.equal((await s.request('DELETE', `${IP}/10.77.0.9`)).status, 200);
      await until('held deleted', async () => (await s.request('GET', `${SC}/held`)).status === 404);
    });
  });
}
