// The read path's shortcuts answer exactly what the long way answers: consistent gets from the
// watch cache, each stored version's JSON serialized once and reused by GET and list items, list
// pages found without sorting the store. Differential checks: the bytes of a GET equal the bytes
// of the write that made the version and the compacted form of `?pretty=true` (which still takes
// the serializing path); a list's items are the GETs' bytes; a new version or a delete is seen at
// once; resourceVersion semantics, YAML and Table are unchanged.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parse as parseYaml } from 'yaml';
import { startServer, watchEvents, type HttpResult, type TestServer } from './harness.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

const compact = (pretty: HttpResult): string => `${JSON.stringify(JSON.parse(pretty.text))}\n`;
const cidr = (name: string, i: number, labels: Record<string, string> = {}) => ({
  apiVersion: 'networking.platform.io/v1',
  kind: 'ServiceCIDR',
  metadata: { name, labels: { read: 'path', ...labels } },
  spec: { cidrs: [`10.${(i >> 8) & 255}.${i & 255}.0/24`] },
});

describe('read path', () => {
  let server: TestServer;
  before(async () => {
    // Pinned resourceVersions: no controller writes status behind the test's back.
    server = await startServer({ args: ['--controllers=-service-cidr-controller'] });
  });
  after(async () => {
    await server?.stop();
  });

  test('a GET answers the bytes of the write that made the version; an update and a delete are seen at once', async () => {
    const created = await server.request('POST', `${SC}?fieldManager=t`, { body: cidr('rp-a', 1) });
    assert.equal(created.status, 201, created.text);
    const got = await server.request('GET', `${SC}/rp-a`);
    assert.equal(got.status, 200);
    assert.equal(got.headers['content-type'], 'application/json');
    assert.equal(got.text, created.text, 'same version, same bytes');
    assert.equal(got.text, compact(await server.request('GET', `${SC}/rp-a?pretty=true`)));
    assert.equal((await server.request('GET', `${SC}/rp-a`)).text, got.text, 'again from the cached bytes');

    const updated = await server.request('PUT', `${SC}/rp-a?fieldManager=t`, { body: { ...got.json, metadata: { ...got.json.metadata, labels: { read: 'path', v: '2' } } } });
    assert.equal(updated.status, 200, updated.text);
    assert.notEqual(updated.json.metadata.resourceVersion, got.json.metadata.resourceVersion);
    const after = await server.request('GET', `${SC}/rp-a`);
    assert.equal(after.text, updated.text, 'the new version, not the cached old one');
    assert.equal(after.json.metadata.labels.v, '2');
    const status = await server.request('GET', `${SC}/rp-a/status`);
    assert.equal(status.text, updated.text, 'the status subresource serves the same object');

    const deleted = await server.request('DELETE', `${SC}/rp-a`);
    assert.equal(deleted.status, 200, deleted.text);
    const gone = await server.request('GET', `${SC}/rp-a`);
    assert.equal(gone.status, 404);
    assert.deepEqual(gone.json, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'servicecidrs.networking.platform.io "rp-a" not found',
      reason: 'NotFound',
      details: { name: 'rp-a', group: 'networking.platform.io', kind: 'servicecidrs' },
      code: 404,
    });
    const listed = await server.request('GET', `${SC}?labelSelector=read%3Dpath`);
    assert.ok(!listed.json.items.some((o: any) => o.metadata.name === 'rp-a'), 'a list after the delete excludes it');
  });

  test('watch events carry the same object bytes as GET, and a deleted object its deletion revision', async () => {
    const created = await server.request('POST', SC, { body: cidr('rp-watch', 4, { watch: 'me' }) });
    assert.equal(created.status, 201, created.text);
    const rv = created.json.metadata.resourceVersion as string;
    assert.equal((await server.request('GET', `${SC}/rp-watch`)).text, created.text); // bytes cached
    const updated = await server.request('PUT', `${SC}/rp-watch`, { body: { ...created.json, metadata: { ...created.json.metadata, annotations: { a: 'b' } } } });
    assert.equal(updated.status, 200, updated.text);
    const got = await server.request('GET', `${SC}/rp-watch`);
    assert.equal(got.text, updated.text);
    const deleted = await server.request('DELETE', `${SC}/rp-watch`);
    assert.equal(deleted.status, 200, deleted.text);
    // Opened after the writes: from rv, it replays them all the same.
    const { status, events } = await watchEvents(server, `${SC}?watch=true&labelSelector=watch%3Dme&resourceVersion=${rv}`, 2);
    assert.equal(status, 200);
    assert.deepEqual(events.map((e) => e.type), ['MODIFIED', 'DELETED']);
    assert.equal(`${JSON.stringify(events[0].object)}\n`, got.text);
    const deletedAt = Number(events[1].object.metadata.resourceVersion);
    assert.ok(deletedAt > Number(updated.json.metadata.resourceVersion), `the deletion's revision, not the last update's (${deletedAt})`);
    assert.deepEqual({ ...events[1].object, metadata: { ...events[1].object.metadata, resourceVersion: '' } }, { ...got.json, metadata: { ...got.json.metadata, resourceVersion: '' } });
  });

  test('resourceVersion on a GET: 0, the current one, an older one, and one from the future', async () => {
    const created = await server.request('POST', SC, { body: cidr('rp-rv', 2) });
    assert.equal(created.status, 201, created.text);
    const rv = created.json.metadata.resourceVersion as string;
    for (const q of ['0', rv, String(Number(rv) - 1)]) {
      const r = await server.request('GET', `${SC}/rp-rv?resourceVersion=${q}`);
      assert.equal(r.status, 200, `resourceVersion=${q}: ${r.text}`);
      assert.equal(r.text, created.text, `resourceVersion=${q}`);
    }
    const future = await server.request('GET', `${SC}/rp-rv?resourceVersion=${Number(rv) + 1000}`);
    assert.equal(future.status, 504, future.text);
    assert.equal(future.json.reason, 'Timeout');
    assert.equal(future.json.details.causes[0].reason, 'ResourceVersionTooLarge');
    assert.equal((await server.request('GET', `${SC}/rp-rv?resourceVersion=x`)).status, 400);
  });

  test('YAML, Table and pretty answers are unchanged by the cached JSON', async () => {
    const created = await server.request('POST', SC, { body: cidr('rp-fmt', 3) });
    assert.equal(created.status, 201, created.text);
    await server.request('GET', `${SC}/rp-fmt`); // the JSON is cached now
    const yaml = await server.request('GET', `${SC}/rp-fmt`, { headers: { Accept: 'application/yaml' } });
    assert.equal(yaml.headers['content-type'], 'application/yaml');
    assert.deepEqual(parseYaml(yaml.text), created.json);
    const pretty = await server.request('GET', `${SC}/rp-fmt?pretty=true`);
    assert.equal(pretty.text, `${JSON.stringify(created.json, null, 2)}\n`);
    const table = await server.request('GET', `${SC}/rp-fmt`, { headers: { Accept: TABLE } });
    assert.equal(table.json.kind, 'Table');
    assert.equal(table.json.rows[0].cells[0], 'rp-fmt');
    assert.deepEqual(table.json.rows[0].object, { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: created.json.metadata });
    const listTable = await server.request('GET', `${SC}?labelSelector=read%3Dpath`, { headers: { Accept: TABLE } });
    assert.ok(listTable.json.rows.some((r: any) => r.cells[0] === 'rp-fmt'));
    const listYaml = await server.request('GET', `${SC}?labelSelector=read%3Dpath`, { headers: { Accept: 'application/yaml' } });
    assert.ok(parseYaml(listYaml.text).items.some((o: any) => o.metadata.name === 'rp-fmt'));
  });

  test('limit and continue page through a large collection in order, each object once, items being the GETs bytes', async () => {
    const total = 260;
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < total) {
          const i = next++;
          const r = await server.request('POST', SC, { body: cidr(`rp-page-${String(i).padStart(3, '0')}`, 100 + i, { page: 'yes' }) });
          assert.equal(r.status, 201, r.text);
        }
      }),
    );
    const names: string[] = [];
    const texts: string[] = [];
    let cont = '';
    let rv = '';
    for (let page = 0; page < 20; page++) {
      const r = await server.request('GET', `${SC}?labelSelector=page%3Dyes&limit=100${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.text, compact(await server.request('GET', `${SC}?labelSelector=page%3Dyes&limit=100&pretty=true${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`)));
      rv ||= r.json.metadata.resourceVersion;
      assert.equal(r.json.metadata.resourceVersion, rv, 'every page at the first page snapshot');
      names.push(...r.json.items.map((o: any) => o.metadata.name));
      texts.push(...r.json.items.map((o: any) => `${JSON.stringify(o)}\n`));
      cont = r.json.metadata.continue ?? '';
      if (!cont) break;
    }
    const expected = Array.from({ length: total }, (_, i) => `rp-page-${String(i).padStart(3, '0')}`);
    assert.deepEqual(names, expected);
    for (const i of [0, 137, total - 1]) assert.equal((await server.request('GET', `${SC}/${expected[i]}`)).text, texts[i]);
    const full = await server.request('GET', `${SC}?labelSelector=page%3Dyes`);
    assert.equal(full.json.items.length, total);
    assert.equal(full.json.metadata.continue, undefined);
  });
});
