// The core group's discovery, which every kube-apiserver serves: GET /api (legacy APIVersions
// naming v1, or aggregated discovery when Accept asks for it) and GET /api/v1 (the core
// APIResourceList: Events, the one core kind here, namespaced). Any authenticated user may read
// them (system:discovery); nobody without credentials. Every kubectl we try reads them. Also the
// named groups' new resources (events.k8s.io, IPAddress) in discovery and OpenAPI.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type TestServer } from './harness.js';
import { kubectlFor } from './kubectl.js';
import { requireTool } from './require-tool.js';

const V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const V2BETA1 = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';
/** What kubectl 1.30+ sends to /api and /apis. */
const KUBECTL_ACCEPT = `${V2},${V2BETA1},application/json`;

const PINNED = '/usr/lib/google-cloud-sdk/bin/kubectl';
const KUBECTLS = [
  '/usr/bin/kubectl',
  ...['1.27', '1.28', '1.29', '1.30', '1.31', '1.32', '1.33'].map((v) => `${PINNED}.${v}`),
  // kubectl 1.20 (Debian's kubernetes-client), extracted by .ci/run; see docs/clients.md.
  '/opt/kubectl-1.20/usr/bin/kubectl',
];

describe('core group discovery: /api and /api/v1', () => {
  let server: TestServer;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'platform-core-disc-'));
    writeFileSync(join(dir, 'tokens.csv'), 'pat-token,pat,uid-pat\n');
    server = await startServer({ args: ['--token-auth-file', join(dir, 'tokens.csv')] });
  });
  after(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('legacy /api: APIVersions naming v1, with the address the client reached', async () => {
    const r = await server.request('GET', '/api', { headers: { Accept: 'application/json, */*' } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers['content-type'], 'application/json');
    assert.deepEqual(r.json, { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: `127.0.0.1:${server.port}` }] });
  });

  test('aggregated /api: the core group with version v1 and its Events, v2 and v2beta1, ETag and 304', async () => {
    for (const [accept, version] of [
      [KUBECTL_ACCEPT, 'v2'],
      [`${V2BETA1},application/json`, 'v2beta1'],
    ] as const) {
      const r = await server.request('GET', '/api', { headers: { Accept: accept } });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.headers['content-type'], version === 'v2' ? V2 : V2BETA1);
      assert.equal(r.headers.vary, 'Accept');
      assert.deepEqual(r.json, {
        kind: 'APIGroupDiscoveryList',
        apiVersion: `apidiscovery.k8s.io/${version}`,
        metadata: {},
        items: [
          {
            metadata: { creationTimestamp: null },
            versions: [
              {
                version: 'v1',
                resources: [
                  {
                    resource: 'events',
                    responseKind: { group: '', version: 'v1', kind: 'Event' },
                    scope: 'Namespaced',
                    singularResource: 'event',
                    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
                    shortNames: ['ev'],
                  },
                ],
                freshness: 'Current',
              },
            ],
          },
        ],
      });
      const etag = r.headers.etag as string;
      assert.match(etag, /^"[0-9A-F]{64}"$/);
      const again = await server.request('GET', '/api', { headers: { Accept: accept, 'If-None-Match': etag } });
      assert.equal(again.status, 304);
    }
  });

  test('/api/v1: the core APIResourceList, GET only; other core versions are not found', async () => {
    const r = await server.request('GET', '/api/v1');
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json, {
      kind: 'APIResourceList',
      groupVersion: 'v1',
      resources: [{ name: 'events', singularName: 'event', namespaced: true, kind: 'Event', verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'], shortNames: ['ev'] }],
    });
    for (const method of ['POST', 'PUT', 'DELETE']) assert.equal((await server.request(method, '/api/v1')).status, 405, method);
    assert.equal((await server.request('GET', '/api/v2')).status, 404);
    assert.equal((await server.request('GET', '/api/v1/pods')).status, 404);
    const root = await server.request('GET', '/');
    assert.ok(root.json.paths.includes('/api') && root.json.paths.includes('/api/v1'), root.text);
  });

  test('named groups: events.k8s.io/v1 (namespaced) and IPAddress in networking, legacy and aggregated', async () => {
    const events = await server.request('GET', '/apis/events.k8s.io/v1');
    assert.deepEqual(events.json.resources, [{ name: 'events', singularName: 'event', namespaced: true, kind: 'Event', verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'], shortNames: ['ev'] }]);
    const networking = await server.request('GET', '/apis/networking.platform.io/v1');
    assert.deepEqual(networking.json.resources.map((r: any) => `${r.name}/${r.namespaced}/${(r.shortNames ?? []).join()}`), ['ipaddresses/false/ip', 'servicecidrs/false/scidr', 'servicecidrs/status/false/']);
    const groups = await server.request('GET', '/apis');
    assert.ok(groups.json.groups.some((g: any) => g.name === 'events.k8s.io' && g.preferredVersion.groupVersion === 'events.k8s.io/v1'), groups.text);
    assert.ok(!groups.json.groups.some((g: any) => g.name === ''), 'the core group is discovered at /api only');
    const aggregated = await server.request('GET', '/apis', { headers: { Accept: V2 } });
    const eventsGroup = aggregated.json.items.find((g: any) => g.metadata.name === 'events.k8s.io');
    assert.equal(eventsGroup.versions[0].resources[0].scope, 'Namespaced');
    const root = await server.request('GET', '/');
    for (const p of ['/apis/events.k8s.io', '/apis/events.k8s.io/v1']) assert.ok(root.json.paths.includes(p), p);
  });

  test("OpenAPI: v3 documents for api/v1 and events.k8s.io/v1 with kube's namespaced operations; v2 has them too", async () => {
    const index = await server.request('GET', '/openapi/v3');
    assert.ok(index.json.paths['api/v1'] && index.json.paths['apis/events.k8s.io/v1'] && index.json.paths['apis/networking.platform.io/v1'], index.text);
    const core = await server.request('GET', index.json.paths['api/v1'].serverRelativeURL);
    assert.equal(core.json.paths['/api/v1/namespaces/{namespace}/events'].get.operationId, 'listCoreV1NamespacedEvent');
    assert.equal(core.json.paths['/api/v1/namespaces/{namespace}/events/{name}'].patch.operationId, 'patchCoreV1NamespacedEvent');
    assert.equal(core.json.paths['/api/v1/events'].get.operationId, 'listCoreV1EventForAllNamespaces');
    assert.deepEqual(core.json.paths['/api/v1/namespaces/{namespace}/events'].parameters.map((p: any) => p.name), ['namespace']);
    assert.deepEqual(core.json.components.schemas['io.k8s.api.core.v1.Event']['x-kubernetes-group-version-kind'], [{ group: '', version: 'v1', kind: 'Event' }]);
    const v1 = await server.request('GET', index.json.paths['apis/events.k8s.io/v1'].serverRelativeURL);
    assert.equal(v1.json.paths['/apis/events.k8s.io/v1/namespaces/{namespace}/events'].post.operationId, 'createEventsV1NamespacedEvent');
    const v2 = await server.request('GET', '/openapi/v2');
    assert.equal(v2.json.paths['/api/v1/watch/namespaces/{namespace}/events'].get.operationId, 'watchCoreV1NamespacedEventList');
    assert.equal(v2.json.paths['/apis/events.k8s.io/v1/watch/events'].get.operationId, 'watchEventsV1EventListForAllNamespaces');
    assert.equal(v2.json.paths['/api/'].get.operationId, 'getCoreAPIVersions');
    assert.equal(v2.json.paths['/apis/networking.platform.io/v1/ipaddresses/{name}'].put.operationId, 'replaceNetworkingPlatformIoV1IPAddress');
  });

  test('authn/authz as kube: any authenticated user (system:discovery), never without credentials', async () => {
    for (const path of ['/api', '/api/v1']) {
      assert.equal((await server.request('GET', path, { token: 'pat-token' })).status, 200, `${path} as pat`);
      assert.equal((await server.request('GET', path, { anonymous: true })).status, 401, `${path} anonymous`);
    }
  });

  test('every kubectl: get --raw /api and /api/v1, api-resources and get with a cold cache', async () => {
    const found = KUBECTLS.map((k) => requireTool(k, 'a kubectl version we support')).filter((k): k is string => k !== undefined);
    await Promise.all(
      found.map(async (binary) => {
        const kubectl = kubectlFor(binary, server.kubeconfigPath);
        const api = await kubectl(['get', '--raw', '/api']);
        assert.equal(api.code, 0, `${binary}: ${api.stderr}`);
        assert.equal(JSON.parse(api.stdout).kind, 'APIVersions', binary);
        const v1 = await kubectl(['get', '--raw', '/api/v1']);
        assert.equal(v1.code, 0, `${binary}: ${v1.stderr}`);
        assert.equal(JSON.parse(v1.stdout).kind, 'APIResourceList', binary);
        const resources = await kubectl(['api-resources', '--no-headers', '-o', 'name']);
        assert.equal(resources.code, 0, `${binary}: ${resources.stderr}`);
        assert.match(resources.stdout, /^servicecidrs\.networking\.platform\.io$/m, binary);
        assert.match(resources.stdout, /^clustertrustbundles\.certificates\.platform\.io$/m, binary);
        assert.match(resources.stdout, /^events$/m, binary);
        assert.match(resources.stdout, /^events\.events\.k8s\.io$/m, binary);
        assert.match(resources.stdout, /^ipaddresses\.networking\.platform\.io$/m, binary);
        const get = await kubectl(['get', 'scidr', '-o', 'name']);
        assert.equal(get.code, 0, `${binary}: ${get.stderr}`);
        assert.equal(get.stderr, '', binary);
      }),
    );
  });
});
