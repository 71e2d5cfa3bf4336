import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveRequestInfo } from '../endpoints/request-info.js';
import { metricsFilter } from './metrics.js';
import type { RequestLabels, RequestObservation as ObservedRequest, RequestObserver } from '../../apimachinery/request-observer.js';
import { fakeExchange } from './test-state.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';
const served = (g: string, v: string, r: string) => `${g}/${v}/${r}` === 'networking.platform.io/v1/servicecidrs';

async function observed(method: string, url: string, code: number, contentType?: string): Promise<ObservedRequest> {
  const seen: ObservedRequest[] = [];
  const observer: RequestObserver = { observe: (o) => void seen.push(o), inflight() {}, longRunning() {}, rejected() {} };
  const x = fakeExchange({ method, url, headers: contentType ? { 'content-type': contentType } : {} });
  const u = new URL(url, 'https://x');
  x.state.info = resolveRequestInfo(method, u.pathname, u.searchParams);
  await metricsFilter(observer, served)(x.state, async () => {});
  assert.equal(seen.length, 0, 'observed only once the response is over');
  x.state.reply.raw.statusCode = code;
  x.close();
  assert.equal(seen.length, 1);
  return seen[0]!;
}

test('a finished request is observed with kube label values', async () => {
  const o = await observed('GET', `${SC}/a`, 200);
  assert.deepEqual({ ...o, durationSeconds: 0 }, {
    verb: 'GET', dryRun: '', group: 'networking.platform.io', version: 'v1', resource: 'servicecidrs', subresource: '', scope: 'resource', component: 'apiserver', code: 200, durationSeconds: 0, responseBytes: 0,
  });
  assert.ok(o.durationSeconds >= 0);
  assert.equal((await observed('GET', SC, 200)).verb, 'LIST');
  assert.equal((await observed('GET', SC, 200)).scope, 'cluster');
  assert.equal((await observed('GET', `${SC}?watch=true`, 200)).verb, 'WATCH');
  assert.equal((await observed('POST', SC, 201)).scope, 'resource');
  assert.equal((await observed('PATCH', `${SC}/a`, 200, 'application/apply-patch+yaml')).verb, 'APPLY');
  assert.equal((await observed('DELETE', SC, 200)).verb, 'DELETECOLLECTION');
  assert.equal((await observed('PUT', `${SC}/a/status`, 200)).subresource, 'status');
});

test('label values never carry user input: unserved resources and odd methods are blanked', async () => {
  const o = await observed('GET', '/apis/evil.example/v1/attacker-chosen-name', 404);
  assert.deepEqual([o.group, o.version, o.resource, o.scope], ['', '', '', 'cluster']);
  const p = await observed('GET', `${SC}/a/attacker-chosen`, 404);
  assert.equal(p.subresource, '');
  const n = await observed('GET', '/some/random/path', 404);
  assert.deepEqual([n.verb, n.resource, n.scope], ['GET', '', '']);
  assert.equal((await observed('BREW', '/x', 404)).verb, 'other');
});

test('a watch counts as long-running while open; watches with the same labels share one labels object, a dry run does not', async () => {
  const running: string[] = [];
  const seen: ObservedRequest[] = [];
  const labelObjects: object[] = [];
  const observer: RequestObserver = {
    observe: (o) => void seen.push(o),
    inflight() {},
    longRunning: (labels, delta) => {
      labelObjects.push(labels);
      running.push(`${labels.verb} ${labels.resource} ${delta}`);
    },
    rejected() {},
  };
  const filter = metricsFilter(observer, served);
  const watch = (url: string) => {
    const x = fakeExchange({ url });
    const u = new URL(url, 'https://x');
    x.state.query = u.searchParams;
    x.state.info = resolveRequestInfo('GET', u.pathname, u.searchParams);
    x.state.longRunning = true;
    return x;
  };
  const a = watch(`${SC}?watch=true`);
  const b = watch(`${SC}?watch=true`);
  await filter(a.state, async () => {});
  await filter(b.state, async () => {});
  assert.deepEqual(running, ['WATCH servicecidrs 1', 'WATCH servicecidrs 1']);
  assert.equal(labelObjects[0], labelObjects[1], 'one shared labels object');
  assert.equal(a.state.metricLabels, b.state.metricLabels);
  a.close();
  assert.deepEqual(running, ['WATCH servicecidrs 1', 'WATCH servicecidrs 1', 'WATCH servicecidrs -1']);
  assert.equal(seen.length, 1);
  assert.equal(seen[0]!.verb, 'WATCH');
  // A get is not long-running: nothing counted, and its labels are its own.
  const get = fakeExchange({ url: `${SC}/x` });
  get.state.info = resolveRequestInfo('GET', `${SC}/x`, new URLSearchParams());
  await filter(get.state, async () => {});
  get.close();
  assert.equal(running.length, 3);

  const c = watch(`${SC}?watch=true&dryRun=All`);
  const d = watch(`${SC}?watch=true&dryRun=All`);
  await filter(c.state, async () => {});
  await filter(d.state, async () => {});
  assert.notEqual(c.state.metricLabels, d.state.metricLabels, 'a dry run (user input) is never shared');
  assert.deepEqual(c.state.metricLabels, d.state.metricLabels);
  b.close();
  c.close();
  d.close();
});

test("the response's size is its Content-Length (the reply's, else the response's); none or garbage is 0", async () => {
  const observedSize = async (set: (x: ReturnType<typeof fakeExchange>) => void): Promise<number> => {
    const seen: ObservedRequest[] = [];
    const observer: RequestObserver = { observe: (o) => void seen.push(o), inflight() {}, longRunning() {}, rejected() {} };
    const x = fakeExchange({ url: `${SC}/a` });
    x.state.info = resolveRequestInfo('GET', `${SC}/a`, new URLSearchParams());
    set(x);
    await metricsFilter(observer, served)(x.state, async () => {});
    x.close();
    return seen[0]!.responseBytes;
  };
  assert.equal(await observedSize((x) => x.state.reply.header('Content-Length', '123')), 123);
  assert.equal(await observedSize((x) => Object.assign(x.state.reply.raw, { getHeader: (n: string) => (n === 'content-length' ? '77' : undefined) })), 77);
  assert.equal(await observedSize(() => {}), 0);
  assert.equal(await observedSize((x) => x.state.reply.header('Content-Length', 'lots')), 0);
});

test('a resource request whose method has no verb (OPTIONS) is labelled other', async () => {
  assert.equal((await observed('OPTIONS', SC, 405)).verb, 'other');
  assert.equal((await observed('OPTIONS', '/healthz', 405)).verb, 'OPTIONS');
});

test("a non-resource request keeps the methods Go's net/http names as its verb", async () => {
  for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'CONNECT']) assert.equal((await observed(method, '/some/path', 404)).verb, method);
});

test('watches of different resources do not share labels; the duration is in seconds, within the time the request took', async () => {
  const labels: RequestLabels[] = [];
  const seen: ObservedRequest[] = [];
  const observer: RequestObserver = { observe: (o) => void seen.push(o), inflight() {}, longRunning: (l) => void labels.push(l), rejected() {} };
  const filter = metricsFilter(observer, () => true);
  const started = performance.now();
  for (const path of [SC, '/apis/certificates.platform.io/v1beta1/clustertrustbundles']) {
    const x = fakeExchange({ url: `${path}?watch=true` });
    const u = new URL(`${path}?watch=true`, 'https://x');
    x.state.query = u.searchParams;
    x.state.info = resolveRequestInfo('GET', u.pathname, u.searchParams);
    x.state.longRunning = true;
    (x.state as { receivedAt: number }).receivedAt = started;
    await filter(x.state, async () => {});
    x.close();
  }
  const span = (performance.now() - started) / 1000;
  assert.deepEqual(labels.map((l) => l.resource), ['servicecidrs', 'servicecidrs', 'clustertrustbundles', 'clustertrustbundles'], 'opened and closed, each with its own labels');
  for (const o of seen) assert.ok(o.durationSeconds >= 0 && o.durationSeconds <= span, `${o.durationSeconds} s within ${span} s`);
});
