// The real kubectl against the real server (HTTPS, SQLite in a temp dir): every command a user
// of these two kinds runs, with kubectl's exact output.

// The ServiceCIDR controller's own writes (finalizer, Ready) are tested in controllers.test.ts; these
// tests pin API behaviour exactly (events, managedFields, finalizers), so it is off here.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './harness.js';
import { kubectlFor, tableRows, type Kubectl } from './kubectl.js';
import { requireTool } from './require-tool.js';
import { makeCACert } from '../fixtures/certs.js';

const binary = requireTool('kubectl', 'the kubectl end-to-end tests drive the real client');

const scidr = (name: string, cidrs: string[], labels?: Record<string, string>) => ({
  apiVersion: 'networking.platform.io/v1',
  kind: 'ServiceCIDR',
  metadata: labels ? { name, labels } : { name },
  spec: { cidrs },
});

describe('kubectl end to end', { skip: !binary }, () => {
  let server: TestServer;
  let kubectl: Kubectl;
  let caPem: string;

  before(async () => {
    server = await startServer({ args: ['--controllers=-service-cidr-controller'] });
    kubectl = kubectlFor(binary!, server.kubeconfigPath);
    caPem = (await makeCACert({ commonName: 'kubectl-e2e-root' })).pem;
  });
  after(async () => {
    await server?.stop();
  });

  const ctb = (name: string, extra: Record<string, unknown> = {}) => ({
    apiVersion: 'certificates.platform.io/v1beta1',
    kind: 'ClusterTrustBundle',
    metadata: { name },
    spec: { trustBundle: caPem, ...extra },
  });

  test('api-resources lists both kinds with their short names', async () => {
    const r = await kubectl(['api-resources', '--no-headers']);
    assert.equal(r.code, 0, r.stderr);
    const rows = tableRows(r.stdout);
    assert.deepEqual(
      rows.find((row) => row[0] === 'clustertrustbundles'),
      ['clustertrustbundles', 'ctb', 'certificates.platform.io/v1beta1', 'false', 'ClusterTrustBundle'],
    );
    assert.deepEqual(
      rows.find((row) => row[0] === 'servicecidrs'),
      ['servicecidrs', 'scidr', 'networking.platform.io/v1', 'false', 'ServiceCIDR'],
    );
  });

  test('create -f, get as a table, -o yaml and -o json', async () => {
    const created = await kubectl(['create', '-f', kubectl.manifest('ctb.json', ctb('root-bundle'))]);
    assert.equal(created.code, 0, created.stderr);
    assert.equal(created.stdout.trim(), 'clustertrustbundle.certificates.platform.io/root-bundle created');

    const table = await kubectl(['get', 'ctb']);
    assert.equal(table.code, 0, table.stderr);
    const rows = tableRows(table.stdout);
    assert.deepEqual(rows[0], ['NAME', 'SIGNERNAME']);
    assert.deepEqual(rows.find((row) => row[0] === 'root-bundle'), ['root-bundle', '<none>']);

    const json = JSON.parse((await kubectl(['get', 'clustertrustbundle', 'root-bundle', '-o', 'json'])).stdout);
    assert.equal(json.kind, 'ClusterTrustBundle');
    assert.equal(json.spec.trustBundle, caPem);
    assert.match(json.metadata.uid, /^[0-9a-f-]{36}$/);
    assert.equal(json.metadata.generation, 1);
    assert.match(json.metadata.resourceVersion, /^\d+$/);

    const yaml = await kubectl(['get', 'ctb', 'root-bundle', '-o', 'yaml']);
    assert.match(yaml.stdout, /^apiVersion: certificates.platform.io\/v1beta1\nkind: ClusterTrustBundle\n/m);
  });

  test('create of a duplicate says AlreadyExists', async () => {
    const r = await kubectl(['create', '-f', kubectl.manifest('dup.json', ctb('root-bundle'))]);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /Error from server \(AlreadyExists\): error when creating ".*dup.json": clustertrustbundles.certificates.platform.io "root-bundle" already exists/,
    );
  });

  test('an invalid object is rejected with the field, reason and message', async () => {
    const r = await kubectl(['create', '-f', kubectl.manifest('bad.json', scidr('bad-range', ['10.0.0.1/24']))]);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /The ServiceCIDR "bad-range" is invalid: spec.cidrs\[0\]: Invalid value: "10.0.0.1\/24": must not have bits set beyond the prefix length/,
    );
  });

  test('get -o wide, --show-labels and --sort-by', async () => {
    for (const [name, cidr, tier] of [
      ['range-b', '10.20.0.0/16', 'b'],
      ['range-a', '10.10.0.0/16', 'a'],
    ] as const) {
      const r = await kubectl(['create', '-f', kubectl.manifest(`${name}.json`, scidr(name, [cidr], { tier }))]);
      assert.equal(r.code, 0, r.stderr);
    }
    const wide = tableRows((await kubectl(['get', 'scidr', '-o', 'wide'])).stdout);
    assert.deepEqual(wide[0], ['NAME', 'CIDRS', 'AGE']);
    const a = wide.find((row) => row[0] === 'range-a');
    assert.equal(a?.[1], '10.10.0.0/16');
    assert.match(a?.[2] ?? '', /^\d+s$/);

    const labels = tableRows((await kubectl(['get', 'servicecidrs', '--show-labels'])).stdout);
    assert.deepEqual(labels[0], ['NAME', 'CIDRS', 'AGE', 'LABELS']);
    assert.equal(labels.find((row) => row[0] === 'range-b')?.[3], 'tier=b');

    const sorted = await kubectl(['get', 'scidr', '--sort-by=.spec.cidrs[0]', '-o', 'name']);
    assert.equal(sorted.code, 0, sorted.stderr);
    const names = sorted.stdout.trim().split('\n');
    assert.ok(names.indexOf('servicecidr.networking.platform.io/range-a') < names.indexOf('servicecidr.networking.platform.io/range-b'), sorted.stdout);

    const selected = await kubectl(['get', 'scidr', '-l', 'tier=b', '-o', 'name']);
    assert.equal(selected.stdout.trim(), 'servicecidr.networking.platform.io/range-b');
  });

  test('client-side apply: created, configured, unchanged', async () => {
    const file = (cidrs: string[], labels: Record<string, string>) => kubectl.manifest('apply.json', scidr('applied', cidrs, labels));
    const first = await kubectl(['apply', '-f', file(['10.30.0.0/16'], { env: 'dev' })]);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout.trim(), 'servicecidr.networking.platform.io/applied created');

    const second = await kubectl(['apply', '-f', file(['10.30.0.0/16'], { env: 'prod' })]);
    assert.equal(second.code, 0, second.stderr);
    assert.equal(second.stdout.trim(), 'servicecidr.networking.platform.io/applied configured');
    const live = JSON.parse((await kubectl(['get', 'scidr', 'applied', '-o', 'json'])).stdout);
    assert.deepEqual(live.metadata.labels, { env: 'prod' });
    assert.equal(live.metadata.generation, 1, 'a label change does not bump generation');

    const third = await kubectl(['apply', '-f', file(['10.30.0.0/16'], { env: 'prod' })]);
    assert.equal(third.stdout.trim(), 'servicecidr.networking.platform.io/applied unchanged');

    const immutable = await kubectl(['apply', '-f', file(['10.31.0.0/16'], { env: 'prod' })]);
    assert.equal(immutable.code, 1);
    assert.match(immutable.stderr, /spec.cidrs\[0\]: Invalid value: "10.31.0.0\/16": field is immutable/);
  });

  test('replace -f, and a stale resourceVersion conflicts', async () => {
    const live = JSON.parse((await kubectl(['get', 'ctb', 'root-bundle', '-o', 'json'])).stdout);
    live.metadata.labels = { replaced: 'yes' };
    const ok = await kubectl(['replace', '-f', kubectl.manifest('replace.json', live)]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.stdout.trim(), 'clustertrustbundle.certificates.platform.io/root-bundle replaced');

    const stale = await kubectl(['replace', '-f', kubectl.manifest('stale.json', live)]);
    assert.equal(stale.code, 1);
    assert.match(
      stale.stderr,
      /Error from server \(Conflict\): error when replacing ".*stale.json": Operation cannot be fulfilled on clustertrustbundles.certificates.platform.io "root-bundle": the object has been modified; please apply your changes to the latest version and try again/,
    );
  });

  test('label, annotate and patch --type merge', async () => {
    const labeled = await kubectl(['label', 'scidr', 'range-a', 'team=net']);
    assert.equal(labeled.stdout.trim(), 'servicecidr.networking.platform.io/range-a labeled', labeled.stderr);
    const annotated = await kubectl(['annotate', 'scidr', 'range-a', 'owner=alice']);
    assert.equal(annotated.stdout.trim(), 'servicecidr.networking.platform.io/range-a annotated', annotated.stderr);

    const patch = ['patch', 'scidr', 'range-a', '--type', 'merge', '-p', '{"metadata":{"labels":{"patched":"1"}}}'];
    const patched = await kubectl(patch);
    assert.equal(patched.stdout.trim(), 'servicecidr.networking.platform.io/range-a patched', patched.stderr);
    const again = await kubectl(patch);
    assert.equal(again.stdout.trim(), 'servicecidr.networking.platform.io/range-a patched (no change)', again.stderr);

    const live = JSON.parse((await kubectl(['get', 'scidr', 'range-a', '-o', 'json'])).stdout);
    assert.deepEqual(live.metadata.labels, { tier: 'a', team: 'net', patched: '1' });
    assert.equal(live.metadata.annotations.owner, 'alice');
  });

  test('explain reads the OpenAPI schema', async () => {
    const kind = await kubectl(['explain', 'ctb']);
    assert.equal(kind.code, 0, kind.stderr);
    assert.match(kind.stdout, /KIND:\s+ClusterTrustBundle/);
    assert.match(kind.stdout, /spec\s+<ClusterTrustBundleSpec> -required-/);

    const field = await kubectl(['explain', 'servicecidrs.spec.cidrs']);
    assert.equal(field.code, 0, field.stderr);
    assert.match(field.stdout, /FIELD:\s+cidrs <\[\]string>/);
  });

  test('get -w shows live changes', async () => {
    const watch = kubectl.stream(['get', 'scidr', '-w', '--output-watch-events']);
    try {
      await watch.waitFor(/EVENT\s+NAME\s+CIDRS\s+AGE/);
      const created = await kubectl(['create', '-f', kubectl.manifest('watched.json', scidr('watched', ['10.40.0.0/16']))]);
      assert.equal(created.code, 0, created.stderr);
      await watch.waitFor(/ADDED\s+watched\s+10\.40\.0\.0\/16/);
      await kubectl(['label', 'scidr', 'watched', 'seen=yes']);
      await watch.waitFor(/MODIFIED\s+watched/);
    } finally {
      await watch.stop();
    }
  });

  test('delete of an object with a finalizer waits until the finalizer is removed', async () => {
    const held = { ...scidr('held', ['10.41.0.0/16']), metadata: { name: 'held', finalizers: ['example.com/hold'] } };
    assert.equal((await kubectl(['create', '-f', kubectl.manifest('held.json', held)])).code, 0);
    const deleting = kubectl.stream(['delete', 'scidr', 'held', '--timeout=60s']);
    let marked = '';
    for (let i = 0; i < 100 && !marked; i++) {
      marked = (await kubectl(['get', 'scidr', 'held', '-o', 'jsonpath={.metadata.deletionTimestamp}'])).stdout;
      if (!marked) await new Promise((r) => setTimeout(r, 100));
    }
    assert.match(marked, /^\d{4}-\d\d-\d\dT/);
    assert.equal(deleting.exited instanceof Promise, true);
    const patched = await kubectl(['patch', 'scidr', 'held', '--type', 'merge', '-p', '{"metadata":{"finalizers":null}}']);
    assert.equal(patched.code, 0, patched.stderr);
    const result = await deleting.exited;
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout.trim(), 'servicecidr.networking.platform.io "held" deleted');
  });

  test('get of a missing object says NotFound', async () => {
    const r = await kubectl(['get', 'scidr', 'nope']);
    assert.equal(r.code, 1);
    assert.equal(r.stderr.trim(), 'Error from server (NotFound): servicecidrs.networking.platform.io "nope" not found');
  });

  test('delete and delete --all', async () => {
    const one = await kubectl(['delete', 'scidr', 'range-b']);
    assert.equal(one.code, 0, one.stderr);
    assert.equal(one.stdout.trim(), 'servicecidr.networking.platform.io "range-b" deleted');

    const all = await kubectl(['delete', 'scidr', '--all']);
    assert.equal(all.code, 0, all.stderr);
    const lines = all.stdout.trim().split('\n').sort();
    assert.deepEqual(lines, [
      'servicecidr.networking.platform.io "applied" deleted',
      'servicecidr.networking.platform.io "range-a" deleted',
      'servicecidr.networking.platform.io "watched" deleted',
    ]);
    const none = await kubectl(['get', 'scidr']);
    assert.equal(none.stdout, '');
    assert.equal(none.stderr.trim(), 'No resources found');
  });

  test('objects survive a restart of the server', async () => {
    const dataDir = server.dataDir;
    await server.stop({ keepData: true });
    server = await startServer({ dataDir, removeOnStop: true, args: ['--controllers=-service-cidr-controller'] });
    kubectl = kubectlFor(binary!, server.kubeconfigPath);
    const r = await kubectl(['get', 'ctb', 'root-bundle', '-o', 'json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).metadata.labels.replaced, 'yes');
  });
});
