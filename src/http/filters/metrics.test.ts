import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveRequestInfo } from '../endpoints/request-info.js';
import { metricsFilter } from './metrics.js';
import type { RequestObservation as ObservedRequest, RequestObserver } from '../../apimachinery/request-observer.js';
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
