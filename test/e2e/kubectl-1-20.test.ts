// kubectl 1.20 (Debian's kubernetes-client 1.20.2, extracted to /opt/kubectl-1.20 by .ci/run;
// never installed over /usr/bin/kubectl): what it can do against kube 1.33 works here. It reads
// legacy discovery only (no aggregated discovery) and OpenAPI v2 (protobuf) for explain, apply and
// diff. Its own limits, as against kube 1.33: no `--subresource` (1.24) and no `auth whoami` (1.26).
// docs/clients.md lists the versions tried.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { makeCACert } from '../fixtures/certs.js';
import { startServer, type TestServer } from './harness.js';
import { kubectlFor, type Kubectl, type KubectlResult } from './kubectl.js';
import { requireTool } from './require-tool.js';

const KUBECTL_1_20 = '/opt/kubectl-1.20/usr/bin/kubectl';
const binary = requireTool(KUBECTL_1_20, 'kubectl 1.20 (Debian kubernetes-client) is a supported client; .ci/run extracts it');

const scidr = (name: string, cidr: string, labels: Record<string, string>) => ({ apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name, labels }, spec: { cidrs: [cidr] } });

describe('kubectl 1.20', { skip: !binary }, () => {
  let server: TestServer;
  let kubectl: Kubectl;
  const ok = (r: KubectlResult, what: string, stdout?: string) => {
    assert.equal(r.code, 0, `${what}: ${r.stderr}`);
    if (stdout !== undefined) assert.equal(r.stdout.trim(), stdout, what);
  };
  before(async () => {
    // The ServiceCIDR controller off: a deleted ServiceCIDR goes at once (no finalizer to wait for).
    server = await startServer({ args: ['--controllers=-service-cidr-controller'] });
    kubectl = kubectlFor(binary!, server.kubeconfigPath);
  });
  after(async () => {
    await server?.stop();
  });

  test('version, discovery and get --raw of the core group', async () => {
    const version = await kubectl(['version', '-o', 'json']);
    ok(version, 'version');
    assert.equal(JSON.parse(version.stdout).clientVersion.gitVersion, 'v1.20.2');
    assert.equal(JSON.parse(version.stdout).serverVersion.minor, '33');
    const resources = await kubectl(['api-resources', '-o', 'name']);
    ok(resources, 'api-resources');
    assert.match(resources.stdout, /^servicecidrs\.networking\.platform\.io$/m);
    assert.match(resources.stdout, /^clustertrustbundles\.certificates\.platform\.io$/m);
    assert.equal(JSON.parse((await kubectl(['get', '--raw', '/api'])).stdout).kind, 'APIVersions');
    assert.equal(JSON.parse((await kubectl(['get', '--raw', '/api/v1'])).stdout).kind, 'APIResourceList');
  });

  test('create, get, apply ×3, diff, replace, delete on ServiceCIDR', async () => {
    ok(await kubectl(['create', '-f', kubectl.manifest('c.json', scidr('k120-created', '10.120.1.0/24', { by: 'create' }))]), 'create', 'servicecidr.networking.platform.io/k120-created created');
    ok(await kubectl(['get', 'scidr', 'k120-created', '-o', 'name']), 'get', 'servicecidr.networking.platform.io/k120-created');
    const table = await kubectl(['get', 'servicecidrs']);
    ok(table, 'get table');
    assert.match(table.stdout, /^NAME\s+CIDRS\s+AGE$/m);
    assert.match(table.stdout, /^k120-created\s+10\.120\.1\.0\/24\s+/m);

    const file = (env: string) => kubectl.manifest('a.json', scidr('k120-applied', '10.120.2.0/24', { env }));
    ok(await kubectl(['apply', '-f', file('dev')]), 'apply 1', 'servicecidr.networking.platform.io/k120-applied created');
    ok(await kubectl(['apply', '-f', file('prod')]), 'apply 2', 'servicecidr.networking.platform.io/k120-applied configured');
    ok(await kubectl(['apply', '-f', file('prod')]), 'apply 3', 'servicecidr.networking.platform.io/k120-applied unchanged');
    const same = await kubectl(['diff', '-f', file('prod')]);
    assert.equal(same.code, 0, `diff unchanged: ${same.stdout}${same.stderr}`);
    const changed = await kubectl(['diff', '-f', file('staging')]);
    assert.equal(changed.code, 1, `diff changed: ${changed.stderr}`);
    assert.match(changed.stdout, /^-    env: prod$/m);
    assert.match(changed.stdout, /^\+    env: staging$/m);
    ok(await kubectl(['apply', '--server-side', '-f', file('ssa')]), 'apply --server-side', 'servicecidr.networking.platform.io/k120-applied serverside-applied');

    const live = JSON.parse((await kubectl(['get', 'scidr', 'k120-created', '-o', 'json'])).stdout);
    live.metadata.labels = { replaced: 'yes' };
    ok(await kubectl(['replace', '-f', kubectl.manifest('r.json', live)]), 'replace', 'servicecidr.networking.platform.io/k120-created replaced');
    assert.deepEqual(JSON.parse((await kubectl(['get', 'scidr', 'k120-created', '-o', 'json'])).stdout).metadata.labels, { replaced: 'yes' });

    ok(await kubectl(['delete', 'scidr', 'k120-created', 'k120-applied']), 'delete', 'servicecidr.networking.platform.io "k120-created" deleted\nservicecidr.networking.platform.io "k120-applied" deleted');
    const gone = await kubectl(['get', 'scidr', 'k120-created']);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /NotFound.*"k120-created" not found/);
  });

  test('ClusterTrustBundle: create, get, delete; explain on both kinds', async () => {
    const pem = (await makeCACert({ commonName: 'kubectl-1-20' })).pem;
    const ctb = { apiVersion: 'certificates.platform.io/v1beta1', kind: 'ClusterTrustBundle', metadata: { name: 'example.com:k120:one' }, spec: { signerName: 'example.com/k120', trustBundle: pem } };
    ok(await kubectl(['create', '-f', kubectl.manifest('ctb.json', ctb)]), 'create ctb', 'clustertrustbundle.certificates.platform.io/example.com:k120:one created');
    const listed = await kubectl(['get', 'ctb']);
    ok(listed, 'get ctb');
    assert.match(listed.stdout, /^example\.com:k120:one\s+example\.com\/k120\s+/m);
    ok(await kubectl(['delete', 'ctb', 'example.com:k120:one']), 'delete ctb', 'clustertrustbundle.certificates.platform.io "example.com:k120:one" deleted');
    const explained = await kubectl(['explain', 'servicecidrs.spec.cidrs']);
    ok(explained, 'explain scidr');
    assert.match(explained.stdout, /FIELD:\s+cidrs <\[\]string>/);
    const bundle = await kubectl(['explain', 'clustertrustbundles.spec']);
    ok(bundle, 'explain ctb');
    assert.match(bundle.stdout, /trustBundle\s+<string> -required-/);
  });

  test("the client's own limits: no --subresource (1.24), no auth whoami (1.26)", async () => {
    const sub = await kubectl(['get', 'scidr', 'kubernetes', '--subresource', 'status']);
    assert.notEqual(sub.code, 0);
    assert.match(sub.stderr, /unknown flag: --subresource/);
    const whoami = await kubectl(['auth', 'whoami']);
    assert.notEqual(whoami.code, 0);
    assert.match(whoami.stderr, /unknown command "whoami"/);
  });
});
