// What a kubectl user sees of the controllers' events and of IPAddresses, with every supported
// kubectl (1.20, 1.27 to 1.33): `describe servicecidr` lists the ServiceCIDR's events (the
// default ServiceCIDR controller reports flags that no longer match `kubernetes`, after a
// restart with another --service-cluster-ip-range), `kubectl events --for`, `get events -w`,
// `get`/`describe` of IPAddresses, and a deletion held by an allocated address, released when
// the address is deleted.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type TestServer } from './harness.js';
import { kubectlFor, type Kubectl } from './kubectl.js';
import { requireTool } from './require-tool.js';

const PINNED = '/usr/lib/google-cloud-sdk/bin/kubectl';
const VERSIONS = ['1.20', '1.27', '1.28', '1.29', '1.30', '1.31', '1.32', '1.33'] as const;
const pathOf = (v: string) => (v === '1.20' ? '/opt/kubectl-1.20/usr/bin/kubectl' : `${PINNED}.${v}`);
const binaries = Object.fromEntries(VERSIONS.map((v) => [v, requireTool(pathOf(v), `kubectl ${v} is a supported client`)]));
const missing = VERSIONS.some((v) => !binaries[v]);

const MISMATCH = /Warning\s+KubernetesDefaultServiceCIDRInconsistent\s+\S+\s+kubernetes-service-cidr-controller\s+The default ServiceCIDR \[10\.0\.0\.0\/24\] does not match the controller flag configurations \[10\.1\.0\.0\/24\]/;

describe('events and IPAddresses with real kubectl', { skip: missing }, () => {
  let s: TestServer;
  const k: Record<string, Kubectl> = {};
  before(async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'platform-events-kubectl-'));
    // `kubernetes` is made from the first start's range; the second start's flags no longer match it.
    const first = await startServer({ dataDir });
    await first.stop({ keepData: true });
    s = await startServer({ dataDir, removeOnStop: true, args: ['--service-cluster-ip-range', '10.1.0.0/24'] });
    for (const v of VERSIONS) k[v] = kubectlFor(binaries[v]!, s.kubeconfigPath);
    const deadline = Date.now() + 30_000;
    while ((await s.request('GET', '/api/v1/namespaces/default/events?fieldSelector=reason%3DKubernetesDefaultServiceCIDRInconsistent')).json.items.length === 0) {
      if (Date.now() > deadline) throw new Error('the default ServiceCIDR controller never reported the mismatch');
      await new Promise((r) => setTimeout(r, 200));
    }
  });
  after(async () => {
    await s?.stop();
  });

  test('describe servicecidr shows the controller’s event under Events (every version)', async () => {
    await Promise.all(
      VERSIONS.map(async (v) => {
        const r = await k[v]!(['describe', 'servicecidr', 'kubernetes']);
        assert.equal(r.code, 0, `${v}: ${r.stderr}`);
        assert.match(r.stdout, /^Events:\n\s+Type\s+Reason\s+Age\s+From\s+Message\n/m, v);
        assert.match(r.stdout, MISMATCH, `${v}:\n${r.stdout}`);
      }),
    );
  });

  test('kubectl events --for servicecidr/kubernetes (1.27 and later)', async () => {
    await Promise.all(
      VERSIONS.filter((v) => v !== '1.20').map(async (v) => {
        const r = await k[v]!(['events', '--for', 'servicecidr/kubernetes']);
        assert.equal(r.code, 0, `${v}: ${r.stderr}`);
        assert.match(r.stdout, /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE$/m, v);
        assert.match(r.stdout, /Warning\s+KubernetesDefaultServiceCIDRInconsistent\s+ServiceCIDR\/kubernetes\s+The default ServiceCIDR \[10\.0\.0\.0\/24\]/, `${v}:\n${r.stdout}`);
      }),
    );
  });

  test('get events -w shows a new event as it is created (1.20 and 1.33)', async () => {
    for (const v of ['1.20', '1.33']) {
      const watch = k[v]!.stream(['get', 'events', '-w']);
      await watch.waitFor(/KubernetesDefaultServiceCIDRInconsistent/);
      const name = `watched-${v.replace('.', '-')}`;
      const event = { apiVersion: 'v1', kind: 'Event', metadata: { name }, involvedObject: { kind: 'ServiceCIDR', name: 'kubernetes', apiVersion: 'networking.platform.io/v1' }, reason: 'Watched', message: `seen by ${v}`, type: 'Normal', source: { component: 'e2e' } };
      const created = await k[v]!(['create', '-f', k[v]!.manifest('ev.json', event)]);
      assert.equal(created.code, 0, created.stderr);
      assert.equal(created.stdout.trim(), `event/${name} created`);
      await watch.waitFor(new RegExp(`Normal\\s+Watched\\s+servicecidr/kubernetes\\s+seen by ${v.replace('.', '\\.')}`));
      await watch.stop();
    }
  });

  test('get and describe IPAddresses (every version)', async () => {
    const created = await k['1.33']!(['create', '-f', k['1.33']!.manifest('ip.json', { apiVersion: 'networking.platform.io/v1', kind: 'IPAddress', metadata: { name: '10.1.0.9' }, spec: { parentRef: { resource: 'services', namespace: 'default', name: 'web' } } })]);
    assert.equal(created.code, 0, created.stderr);
    await Promise.all(
      VERSIONS.map(async (v) => {
        const got = await k[v]!(['get', 'ip', '10.1.0.9']);
        assert.equal(got.code, 0, `${v}: ${got.stderr}`);
        assert.match(got.stdout, /^NAME\s+PARENTREF\n10\.1\.0\.9\s+services\/default\/web\n$/, `${v}:\n${got.stdout}`);
        const described = await k[v]!(['describe', 'ipaddress', '10.1.0.9']);
        assert.equal(described.code, 0, `${v}: ${described.stderr}`);
        assert.match(described.stdout, /^Name:\s+10\.1\.0\.9$/m);
        assert.match(described.stdout, /Parent Ref:\n\s+Name:\s+web\n\s+Namespace:\s+default\n\s+Resource:\s+services/);
        assert.match(described.stdout, /^Events:\s+<none>$/m);
      }),
    );
  });

  test('a deletion held by an allocated address finishes once the address is deleted (kubectl 1.33)', async () => {
    const kc = k['1.33']!;
    const sc = { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'held' }, spec: { cidrs: ['10.60.0.0/24'] } };
    const ip = { apiVersion: 'networking.platform.io/v1', kind: 'IPAddress', metadata: { name: '10.60.0.5', labels: { 'ipaddress.kubernetes.io/managed-by': 'ipallocator.k8s.io', 'ipaddress.kubernetes.io/ip-family': 'IPv4' } }, spec: { parentRef: { resource: 'services', namespace: 'default', name: 'web' } } };
    assert.equal((await kc(['create', '-f', kc.manifest('sc.json', sc)])).code, 0);
    assert.equal((await kc(['wait', '--for=condition=Ready', 'servicecidr/held', '--timeout=30s'])).code, 0);
    assert.equal((await kc(['create', '-f', kc.manifest('ip.json', ip)])).code, 0);
    assert.equal((await kc(['delete', 'servicecidr', 'held', '--wait=false'])).code, 0);
    const terminating = await kc(['wait', '--for=jsonpath={.status.conditions[0].reason}=Terminating', 'servicecidr/held', '--timeout=30s']);
    assert.equal(terminating.code, 0, terminating.stderr);
    const still = await kc(['wait', '--for=delete', 'servicecidr/held', '--timeout=12s']);
    assert.notEqual(still.code, 0, 'held past the grace period');
    assert.equal((await kc(['delete', 'ipaddress', '10.60.0.5'])).code, 0);
    const gone = await kc(['wait', '--for=delete', 'servicecidr/held', '--timeout=60s']);
    assert.equal(gone.code, 0, gone.stderr);
  });
});
