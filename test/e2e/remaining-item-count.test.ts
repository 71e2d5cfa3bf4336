// metadata.remainingItemCount as kube sets it: on a `?limit=N` list that has more and carries no
// label or field selector, whether the page is read from the watch cache (a consistent read,
// resourceVersion=0) or from the store (an exact resourceVersion, a continue token's snapshot
// after later writes); never with a selector, never on the last page.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestServer } from './harness.js';
import { startInProcessServer } from './in-process-server.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';
const sc = (name: string, cidr: string) => ({ apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name, labels: { set: 'ric' } }, spec: { cidrs: [cidr] } });

describe('remainingItemCount', () => {
  let server: TestServer;
  before(async () => {
    server = await startInProcessServer();
    for (let i = 0; i < 7; i++) {
      const r = await server.request('POST', SC, { body: sc(`ric-${i}`, `10.8${i}.0.0/16`) });
      assert.equal(r.status, 201, r.text);
    }
  });
  after(async () => {
    await server?.stop();
  });

  const meta = async (query: string) => {
    const r = await server.request('GET', `${SC}?${query}`);
    assert.equal(r.status, 200, `${query}: ${r.text}`);
    return r.json.metadata as { resourceVersion: string; continue?: string; remainingItemCount?: number };
  };

  test('an unfiltered page that has more counts what is left (watch cache: consistent and resourceVersion=0)', async () => {
    const first = await meta('limit=3');
    assert.equal(first.remainingItemCount, 4);
    assert.ok(first.continue);
    assert.deepEqual(Object.keys(first), ['resourceVersion', 'continue', 'remainingItemCount'], 'ListMeta field order');
    assert.equal((await meta('limit=3&resourceVersion=0')).remainingItemCount, 4);
    const second = await meta(`limit=3&continue=${encodeURIComponent(first.continue!)}`);
    assert.equal(second.remainingItemCount, 1);
    const last = await meta(`limit=3&continue=${encodeURIComponent(second.continue!)}`);
    assert.equal(last.continue, undefined);
    assert.equal(last.remainingItemCount, undefined, 'the last page has no count');
    assert.equal((await meta('limit=7')).remainingItemCount, undefined, 'a page that holds everything has none');
    assert.equal((await meta('')).remainingItemCount, undefined, 'nor a list without limit');
  });

  test('from the store: an exact resourceVersion, and a continue token after later writes', async () => {
    const first = await meta('limit=2');
    assert.equal(first.remainingItemCount, 5);
    // Writes after the first page: the next pages still read (and count) the first page's snapshot.
    const extra = await server.request('POST', SC, { body: sc('ric-extra', '10.89.0.0/16') });
    assert.equal(extra.status, 201, extra.text);
    const del = await server.request('DELETE', `${SC}/ric-6`);
    assert.equal(del.status, 200, del.text);
    const second = await meta(`limit=2&continue=${encodeURIComponent(first.continue!)}`);
    assert.equal(second.resourceVersion, first.resourceVersion);
    assert.equal(second.remainingItemCount, 3);
    const exact = await meta(`limit=4&resourceVersion=${first.resourceVersion}&resourceVersionMatch=Exact`);
    assert.equal(exact.remainingItemCount, 3);
    const now = await meta('limit=4');
    assert.equal(now.remainingItemCount, 3, 'ric-6 gone, ric-extra there: 7 in all now');
  });

  test('never with a label or field selector (kube cannot count what would match)', async () => {
    const labelled = await meta('limit=2&labelSelector=set%3Dric');
    assert.ok(labelled.continue);
    assert.equal(labelled.remainingItemCount, undefined);
    const fielded = await meta('limit=1&fieldSelector=metadata.name!%3Dnone');
    assert.ok(fielded.continue);
    assert.equal(fielded.remainingItemCount, undefined);
  });

  test('a Table list carries it too', async () => {
    const r = await server.request('GET', `${SC}?limit=2`, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.kind, 'Table');
    assert.ok(r.json.metadata.continue);
    assert.equal(r.json.metadata.remainingItemCount, 5);
  });
});
