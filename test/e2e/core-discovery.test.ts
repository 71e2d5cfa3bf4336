// The core group's discovery, which every kube-apiserver serves: GET /api (legacy APIVersions
// naming v1, or aggregated discovery when Accept asks for it) and GET /api/v1 (the core
// APIResourceList: no resources here, every kind being in a named group). Any authenticated user
// may read them (system:discovery); nobody without credentials. Every kubectl we try reads them.

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
    writeFileSync(join(dir, 'tokens.csv'), 'pat-token,pat,uid-pat,\n');
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

  test('aggregated /api: the core group with version v1 and no resources, v2 and v2beta1, ETag and 304', async () => {
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
        items: [{ metadata: { creationTimestamp: null }, versions: [{ version: 'v1', freshness: 'Current' }] }],
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
    assert.deepEqual(r.json, { kind: 'APIResourceList', groupVersion: 'v1', resources: [] });
    for (const method of ['POST', 'PUT', 'DELETE']) assert.equal((await server.request(method, '/api/v1')).status, 405, method);
    assert.equal((await server.request('GET', '/api/v2')).status, 404);
    assert.equal((await server.request('GET', '/api/v1/pods')).status, 404);
    const root = await server.request('GET', '/');
    assert.ok(root.json.paths.includes('/api') && root.json.paths.includes('/api/v1'), root.text);
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
        const get = await kubectl(['get', 'scidr', '-o', 'name']);
        assert.equal(get.code, 0, `${binary}: ${get.stderr}`);
        assert.equal(get.stderr, '', binary);
      }),
    );
  });
});
