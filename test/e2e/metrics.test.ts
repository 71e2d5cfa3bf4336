// /metrics through real HTTPS: kube-apiserver's metric names move as requests are made, label
// values stay bounded whatever paths, names and parameters a client sends, and RBAC lets the
// system:monitoring group (and admins) read it, nobody else. The ClusterTrustBundle expiry gauge
// follows the stored bundles: a series per bundle, moved by updates, removed by deletes.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCACert } from '../fixtures/certs.js';
import { startServer, type TestServer } from './harness.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';
const CTB = '/apis/certificates.platform.io/v1beta1/clustertrustbundles';
const SC_STORAGE = 'servicecidrs.networking.platform.io';

/** Series name{labels} → value, from the Prometheus text format. */
function parseExposition(text: string): Map<string, number> {
  const series = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const i = line.lastIndexOf(' ');
    series.set(line.slice(0, i), Number(line.slice(i + 1)));
  }
  return series;
}

const labelsOf = (labels: Record<string, string>): string =>
  `{${Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(',')}}`;

const requestTotal = (l: Partial<Record<'verb' | 'dry_run' | 'group' | 'version' | 'resource' | 'subresource' | 'scope' | 'code', string>>): string =>
  `apiserver_request_total${labelsOf({ verb: '', dry_run: '', group: '', version: '', resource: '', subresource: '', scope: '', component: 'apiserver', code: '200', ...l })}`;

describe('metrics', () => {
  let server: TestServer;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'metrics-e2e-'));
    const tokens = join(dir, 'tokens.csv');
    writeFileSync(tokens, 'monitor-token,prometheus,u1,"system:monitoring"\nuser-token,olive,u2,"team"\n');
    server = await startServer({ args: ['--token-auth-file', tokens, '--audit-log-path', join(dir, 'audit.log')] });
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const scrape = async (): Promise<Map<string, number>> => {
    const r = await server.request('GET', '/metrics', { token: 'monitor-token' });
    assert.equal(r.status, 200, r.text);
    return parseExposition(r.text);
  };
  const value = (m: Map<string, number>, series: string): number => m.get(series) ?? 0;

  test('RBAC: system:monitoring and admins may read /metrics and each health check; an ordinary user may not', async () => {
    const monitor = await server.request('GET', '/metrics', { token: 'monitor-token' });
    assert.equal(monitor.status, 200);
    assert.equal(monitor.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
    assert.match(monitor.text, /^# HELP /m);
    assert.equal((await server.request('GET', '/metrics')).status, 200, 'system:masters');
    const denied = await server.request('GET', '/metrics', { token: 'user-token' });
    assert.equal(denied.status, 403);
    assert.equal(denied.json.kind, 'Status');
    assert.equal(denied.json.message, 'forbidden: User "olive" cannot get path "/metrics"');
    assert.equal((await server.request('GET', '/metrics', { anonymous: true })).status, 401, 'anonymous requests are not authenticated');
    const check = await server.request('GET', '/readyz/etcd', { token: 'monitor-token' });
    assert.equal(check.status, 200);
    assert.equal(check.text, 'ok');
    assert.equal((await server.request('GET', '/readyz/etcd', { token: 'user-token' })).status, 403);
  });

  test('request, storage, watch, authentication, audit and runtime metrics move as requests are made', async () => {
    const list = requestTotal({ verb: 'LIST', group: 'networking.platform.io', version: 'v1', resource: 'servicecidrs', scope: 'cluster' });
    const create = requestTotal({ verb: 'POST', group: 'networking.platform.io', version: 'v1', resource: 'servicecidrs', scope: 'resource', code: '201' });
    const dryCreate = requestTotal({ verb: 'POST', dry_run: 'All', group: 'networking.platform.io', version: 'v1', resource: 'servicecidrs', scope: 'resource', code: '201' });
    const getMissing = requestTotal({ verb: 'GET', group: 'networking.platform.io', version: 'v1', resource: 'servicecidrs', scope: 'resource', code: '404' });
    const gvk = labelsOf({ group: 'networking.platform.io', version: 'v1', kind: 'ServiceCIDR' });
    const objects = `apiserver_storage_objects${labelsOf({ resource: SC_STORAGE })}`;
    const etcdCreate = `etcd_requests_total${labelsOf({ operation: 'create', type: SC_STORAGE })}`;
    const before = await scrape();

    for (let i = 0; i < 3; i++) assert.equal((await server.request('GET', SC)).status, 200);
    assert.equal((await server.request('GET', `${SC}/missing`)).status, 404);
    const body = (name: string, cidr: string) => ({ apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name }, spec: { cidrs: [cidr] } });
    assert.equal((await server.request('POST', `${SC}?dryRun=All`, { body: body('dry', '10.9.0.0/24') })).status, 201);

    // A watch: registered while open, counts the events sent to it, unregistered when it ends.
    const watch = openWatch(server, `${SC}?watch=true&resourceVersion=0`);
    await waitFor(async () => value(await scrape(), `apiserver_registered_watchers${gvk}`) === 1, 'registered watcher');
    for (const [i, cidr] of ['10.1.0.0/24', '10.2.0.0/24'].entries()) assert.equal((await server.request('POST', SC, { body: body(`m${i}`, cidr) })).status, 201);
    await watch.events(2);
    const during = await scrape();
    assert.equal(value(during, `apiserver_longrunning_requests${labelsOf({ verb: 'WATCH', group: 'networking.platform.io', version: 'v1', resource: 'servicecidrs', subresource: '', scope: 'cluster', component: 'apiserver' })}`), 1);
    watch.close();
    await waitFor(async () => value(await scrape(), `apiserver_registered_watchers${gvk}`) === 0, 'watcher unregistered');

    assert.equal((await server.request('GET', SC, { token: 'not-a-token' })).status, 401);
    const after = await scrape();
    assert.equal(value(after, list) - value(before, list), 3);
    assert.equal(value(after, create) - value(before, create), 2);
    assert.equal(value(after, dryCreate) - value(before, dryCreate), 1);
    assert.equal(value(after, getMissing) - value(before, getMissing), 1);
    assert.ok(value(after, `apiserver_watch_events_total${gvk}`) - value(before, `apiserver_watch_events_total${gvk}`) >= 2);
    assert.equal(value(after, objects) - value(before, objects), 2);
    assert.equal(value(after, etcdCreate) - value(before, etcdCreate), 2);
    assert.ok(value(after, `apiserver_watch_cache_resource_version${labelsOf({ resource: SC_STORAGE })}`) > value(before, `apiserver_watch_cache_resource_version${labelsOf({ resource: SC_STORAGE })}`));
    assert.ok(value(after, `apiserver_watch_cache_events_received_total${labelsOf({ resource: SC_STORAGE })}`) >= 2);
    assert.ok(value(after, `authentication_attempts${labelsOf({ result: 'success' })}`) > value(before, `authentication_attempts${labelsOf({ result: 'success' })}`));
    assert.ok(value(after, `authentication_attempts${labelsOf({ result: 'error' })}`) + value(after, `authentication_attempts${labelsOf({ result: 'failure' })}`) >= 1);
    assert.ok(value(after, 'apiserver_audit_event_total') > value(before, 'apiserver_audit_event_total'));
    const durationCount = `apiserver_request_duration_seconds_count${labelsOf({ verb: 'LIST', dry_run: '', group: 'networking.platform.io', version: 'v1', resource: 'servicecidrs', subresource: '', scope: 'cluster', component: 'apiserver' })}`;
    assert.equal(value(after, durationCount) - value(before, durationCount), 3, 'the three lists; as in kube, a request refused by authentication is not a served request');
    assert.equal(value(after, requestTotal({ verb: 'LIST', group: 'networking.platform.io', version: 'v1', resource: 'servicecidrs', scope: 'cluster', code: '401' })), 0);
    assert.ok(value(after, `apiserver_response_sizes_sum${labelsOf({ verb: 'LIST', group: 'networking.platform.io', version: 'v1', resource: 'servicecidrs', subresource: '', scope: 'cluster', component: 'apiserver' })}`) > 0);
    assert.ok(after.has('nodejs_eventloop_lag_seconds'));
    assert.ok(value(after, 'process_resident_memory_bytes') > 0);
    assert.ok(after.has(`apiserver_current_inflight_requests${labelsOf({ request_kind: 'mutating' })}`));
  });

  test('ClusterTrustBundle expiry gauge: one series per bundle in Unix seconds, moved by updates, removed on delete', async () => {
    const gauge = 'apiserver_clustertrustbundle_earliest_certificate_expiration_seconds';
    const series = (name: string, signer: string): string => `${gauge}${labelsOf({ name, signer })}`;
    const notBefore = new Date('2025-01-01T00:00:00Z');
    const [soon, later, latest] = await Promise.all(
      ['2029-06-01T00:00:00Z', '2031-01-01T00:00:00Z', '2033-03-03T03:03:03Z'].map((at, i) => makeCACert({ commonName: `gauge-${i}`, notBefore, notAfter: new Date(at) })),
    );
    const seconds = (iso: string): number => Date.parse(iso) / 1000;
    const ctb = (name: string, trustBundle: string, signerName?: string) => ({
      apiVersion: 'certificates.platform.io/v1beta1',
      kind: 'ClusterTrustBundle',
      metadata: { name },
      spec: { trustBundle, ...(signerName ? { signerName } : {}) },
    });
    const adminScrape = async (): Promise<Map<string, number>> => {
      const r = await server.request('GET', '/metrics');
      assert.equal(r.status, 200, r.text);
      return parseExposition(r.text);
    };
    const plain = series('gauge-plain', '');
    const signed = series('example.com:gauge:roots', 'example.com/gauge');

    // The earliest certificate of a bundle counts, whatever its position.
    assert.equal((await server.request('POST', CTB, { body: ctb('gauge-plain', later!.pem + soon!.pem) })).status, 201);
    assert.equal((await server.request('POST', CTB, { body: ctb('example.com:gauge:roots', later!.pem, 'example.com/gauge') })).status, 201);
    await waitFor(async () => (await adminScrape()).has(plain) && (await adminScrape()).has(signed), 'both series');
    const both = await adminScrape();
    assert.equal(both.get(plain), seconds('2029-06-01T00:00:00Z'));
    assert.equal(both.get(signed), seconds('2031-01-01T00:00:00Z'));

    // Updating to a later certificate moves the value; deleting a bundle removes its series.
    const patched = await server.request('PATCH', `${CTB}/gauge-plain`, { body: { spec: { trustBundle: latest!.pem } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(patched.status, 200, patched.text);
    await waitFor(async () => (await adminScrape()).get(plain) === seconds('2033-03-03T03:03:03Z'), 'value moved to the later certificate');
    assert.equal((await server.request('DELETE', `${CTB}/example.com:gauge:roots`)).status, 200);
    await waitFor(async () => !(await adminScrape()).has(signed), 'series of the deleted bundle removed');
    const last = await adminScrape();
    assert.equal(last.get(plain), seconds('2033-03-03T03:03:03Z'));
    assert.equal([...last.keys()].filter((k) => k.startsWith(`${gauge}{`)).length, 1, 'one series per stored bundle');
    assert.equal((await server.request('DELETE', `${CTB}/gauge-plain`)).status, 200);
    await waitFor(async () => !(await adminScrape()).has(plain), 'series removed after the last delete');
  });

  test('label values stay bounded: hostile paths, names, verbs and parameters add no label values', async () => {
    // Warm up every code path once, so the series they legitimately add exist before counting.
    const hostile = async (token: string) => {
      const t = `zz${token}`;
      await server.request('GET', `/apis/${t}.io/v1/${t}`);
      await server.request('GET', `/apis/networking.platform.io/v1/${t}/name`);
      await server.request('GET', `/apis/networking.platform.io/${t}/servicecidrs`);
      await server.request('GET', `${SC}/${t}`);
      await server.request('GET', `${SC}/${t}/${t}`);
      await server.request('GET', `/api/v1/namespaces/${t}/${t}`);
      await server.request('DELETE', `${SC}/${t}?dryRun=${t}`);
      await server.request('PATCH', `${CTB}/${t}`, { body: '{}', headers: { 'Content-Type': `application/${t}` } });
      await server.request('GET', `/${t}/${t}?watch=${t}`);
      await server.request('GET', `/readyz/${t}`);
      await server.request('GET', `${SC}?fieldSelector=metadata.name=${t}`);
      await server.request('GET', `${SC}/${t}`, { token: t });
    };
    await hostile('warmup');
    const before = await scrape();
    const tokens = Array.from({ length: 20 }, () => randomBytes(6).toString('hex'));
    for (const t of tokens) await hostile(t);
    const r = await server.request('GET', '/metrics', { token: 'monitor-token' });
    for (const t of tokens) assert.ok(!r.text.includes(t), `a label carries the client's ${t}`);
    const after = parseExposition(r.text);
    const added = [...after.keys()].filter((k) => !before.has(k) && /^apiserver_|^etcd_|^authentication_/.test(k));
    assert.deepEqual(added, [], 'no new series from hostile requests');
  });
});

function openWatch(server: TestServer, path: string): { events(n: number): Promise<void>; close(): void } {
  const url = new URL(server.url);
  let seen = 0;
  let wake: (() => void) | undefined;
  const req = https.request({ host: url.hostname, port: url.port, path, ca: server.caCertPem, headers: { Authorization: `Bearer ${server.token}` } }, (res) => {
    res.on('data', (c: Buffer) => {
      seen += c.toString().split('\n').filter((l) => l.includes('"type":"ADDED"')).length;
      wake?.();
    });
    res.on('error', () => {});
  });
  req.on('error', () => {});
  req.end();
  return {
    async events(n) {
      for (let i = 0; i < 100 && seen < n; i++) await new Promise<void>((resolve) => ((wake = resolve), setTimeout(resolve, 100)));
      assert.ok(seen >= n, `watch saw ${seen} events, expected ${n}`);
    },
    close: () => req.destroy(),
  };
}

async function waitFor(cond: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`timed out waiting for: ${what}`);
}
