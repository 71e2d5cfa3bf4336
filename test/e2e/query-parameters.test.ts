// Query parameters read as kube-apiserver's parameter codec reads them, over real HTTPS:
// booleans are true unless `0` or `false` in any case (so Python's `True`, an empty `?watch=` and
// a bare `?watch` all watch), integers are Go's ParseInt (a 400 in its words otherwise), and
// `pretty` is Go's ParseBool or, without it, the user agent of a person at a terminal.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestServer } from './harness.js';
import { startInProcessServer } from './in-process-server.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';
const sc = (name: string, cidr: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'networking.platform.io/v1',
  kind: 'ServiceCIDR',
  metadata: { name, labels },
  spec: { cidrs: [cidr] },
});

/** A watch answers newline-delimited events; a list answers one ServiceCIDRList. */
function answeredAs(text: string): 'watch' | 'list' {
  const first = JSON.parse(text.split('\n')[0]!);
  if (first.kind === 'ServiceCIDRList') return 'list';
  assert.ok(typeof first.type === 'string' && first.object, text.slice(0, 200));
  return 'watch';
}

describe('query parameters as kube reads them', () => {
  let server: TestServer;
  before(async () => {
    server = await startInProcessServer();
    const made = await server.request('POST', SC, { body: sc('qp-a', '10.71.0.0/16', { qp: 'yes' }) });
    assert.equal(made.status, 201, made.text);
  });
  after(async () => {
    await server?.stop();
  });

  test('watch: true unless 0 or false in any case; empty and bare values watch', async () => {
    const cases: [string, 'watch' | 'list'][] = [
      ['watch=true', 'watch'],
      ['watch=True', 'watch'],
      ['watch=TRUE', 'watch'],
      ['watch=1', 'watch'],
      ['watch=yes', 'watch'],
      ['watch=', 'watch'],
      ['watch', 'watch'],
      ['watch=false', 'list'],
      ['watch=False', 'list'],
      ['watch=FALSE', 'list'],
      ['watch=0', 'list'],
    ];
    for (const [q, want] of cases) {
      // resourceVersion=0 makes a watch start with the current state (one ADDED), then the
      // stream ends after a second.
      const r = await server.request('GET', `${SC}?${q}&resourceVersion=0&timeoutSeconds=1&labelSelector=qp%3Dyes`);
      assert.equal(r.status, 200, `${q}: ${r.text}`);
      assert.equal(answeredAs(r.text), want, q);
    }
  });

  test('a watch by name with watch=True is a watch (the Python client spells it so)', async () => {
    const r = await server.request('GET', `${SC}?fieldSelector=metadata.name%3Dqp-a&watch=True&timeoutSeconds=1&resourceVersion=0`);
    assert.equal(r.status, 200, r.text);
    assert.equal(answeredAs(r.text), 'watch');
  });

  test('force=True on apply takes the field another manager owns', async () => {
    const body = JSON.stringify({ apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'qp-force', labels: { owner: 'a' } }, spec: { cidrs: ['10.72.0.0/16'] } });
    const headers = { 'Content-Type': 'application/apply-patch+yaml' };
    assert.equal((await server.request('PATCH', `${SC}/qp-force?fieldManager=a`, { body, headers })).status, 201);
    const other = body.replace('"owner":"a"', '"owner":"b"');
    const refused = await server.request('PATCH', `${SC}/qp-force?fieldManager=b&force=False`, { body: other, headers });
    assert.equal(refused.status, 409, refused.text);
    for (const force of ['True', '']) {
      const forced = await server.request('PATCH', `${SC}/qp-force?fieldManager=b&force=${force}`, { body: other, headers });
      assert.equal(forced.status, 200, `force=${force}: ${forced.text}`);
      assert.equal(forced.json.metadata.labels.owner, 'b');
    }
  });

  test('allowWatchBookmarks and sendInitialEvents: True turns them on', async () => {
    // sendInitialEvents needs resourceVersionMatch=NotOlderThan and bookmarks, as in kube; the
    // initial-events-end bookmark then arrives after the current state.
    const r = await server.request('GET', `${SC}?watch=1&sendInitialEvents=True&allowWatchBookmarks=True&resourceVersionMatch=NotOlderThan&labelSelector=qp%3Dyes&timeoutSeconds=2`);
    assert.equal(r.status, 200, r.text);
    const events = r.text.trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(events.slice(0, 2).map((e) => e.type), ['ADDED', 'BOOKMARK'], r.text);
    assert.equal(events[1].object.metadata.annotations['k8s.io/initial-events-end'], 'true');
  });

  test('integers are Go ParseInt: a sign is fine, anything else is a 400 in its words', async () => {
    const ok = await server.request('GET', `${SC}?limit=%2B1`);
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.json.items.length, 1);
    const bad: [string, string][] = [
      ['limit=abc', 'strconv.ParseInt: parsing "abc": invalid syntax'],
      ['limit=', 'strconv.ParseInt: parsing "": invalid syntax'],
      ['limit=1.5', 'strconv.ParseInt: parsing "1.5": invalid syntax'],
      ['limit=99999999999999999999', 'strconv.ParseInt: parsing "99999999999999999999": value out of range'],
      ['timeoutSeconds=0.1s', 'strconv.ParseInt: parsing "0.1s": invalid syntax'],
      ['watch=1&timeoutSeconds=1e3', 'strconv.ParseInt: parsing "1e3": invalid syntax'],
    ];
    for (const [q, message] of bad) {
      const r = await server.request('GET', `${SC}?${q}`);
      assert.equal(r.status, 400, `${q}: ${r.text}`);
      assert.equal(r.json.reason, 'BadRequest');
      assert.equal(r.json.message, message, q);
    }
    const del = await server.request('DELETE', `${SC}/qp-a?gracePeriodSeconds=soon`);
    assert.equal(del.status, 400, del.text);
    assert.equal(del.json.message, 'strconv.ParseInt: parsing "soon": invalid syntax');
  });

  test('a negative timeoutSeconds ends the watch at once', async () => {
    const started = Date.now();
    const r = await server.request('GET', `${SC}?watch=1&timeoutSeconds=-1`, { timeoutMs: 30_000 });
    assert.equal(r.status, 200, r.text);
    assert.ok(Date.now() - started < 30_000);
  });

  test('orphanDependents is a boolean as kube reads it (with a propagationPolicy both are set: 422)', async () => {
    const r = await server.request('DELETE', `${SC}/qp-none?orphanDependents=False&propagationPolicy=Background`);
    assert.equal(r.status, 422, r.text);
    assert.match(r.json.message, /orphanDependents and deletionPropagation cannot be both set/);
  });

  test('a watch by path name sees that object only; the deprecated /watch/ paths are watches too', async () => {
    const other = await server.request('POST', SC, { body: sc('qp-other', '10.73.0.0/16', { qp: 'yes' }) });
    assert.equal(other.status, 201, other.text);
    const names = (text: string) => text.trim().split('\n').map((l) => JSON.parse(l)).map((e) => `${e.type} ${e.object.metadata.name}`);
    for (const path of [`${SC}/qp-a?watch=true`, `${SC.replace('/servicecidrs', '/watch/servicecidrs')}/qp-a?`]) {
      const r = await server.request('GET', `${path}&resourceVersion=0&timeoutSeconds=1`);
      assert.equal(r.status, 200, `${path}: ${r.text}`);
      assert.deepEqual(names(r.text), ['ADDED qp-a'], path);
    }
    const all = await server.request('GET', `${SC.replace('/servicecidrs', '/watch/servicecidrs')}?resourceVersion=0&timeoutSeconds=1&labelSelector=qp%3Dyes`);
    assert.equal(all.status, 200, all.text);
    assert.deepEqual(names(all.text).sort(), ['ADDED qp-a', 'ADDED qp-other']);
    const mismatch = await server.request('GET', `${SC}/qp-a?watch=1&fieldSelector=metadata.name%3Dqp-other`);
    assert.equal(mismatch.status, 400, mismatch.text);
    assert.equal(mismatch.json.message, "fieldSelector metadata.name doesn't match requested name");
    assert.equal((await server.request('POST', `${SC.replace('/servicecidrs', '/watch/servicecidrs')}`, { body: {} })).status, 405);
  });

  test('the query string as Go parses it: a pair holding ; or a bad escape is dropped, + is a space', async () => {
    const all = await server.request('GET', SC);
    for (const q of ['labelSelector=qp%3Dyes;x', 'labelSelector=%zz', 'watch=true;&labelSelector=%', 'limit=1;']) {
      const r = await server.request('GET', `${SC}?${q}`);
      assert.equal(r.status, 200, `${q}: ${r.text}`);
      assert.equal(r.json.kind, 'ServiceCIDRList', q);
      assert.equal(r.json.items.length, all.json.items.length, `${q}: the pair is dropped, as Go drops it`);
    }
    const spaced = await server.request('GET', `${SC}?labelSelector=qp+in+(yes)`);
    assert.equal(spaced.status, 200, spaced.text);
    assert.deepEqual(spaced.json.items.map((i: { metadata: { name: string } }) => i.metadata.name).sort(), ['qp-a', 'qp-other']);
  });

  test('includeObject is checked when the answer is a Table (400), ignored otherwise', async () => {
    const table = { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
    const message = "Unable to convert to Table as requested: includeObject: Invalid value: \"Bogus\": must be 'Metadata', 'Object', 'None', or empty";
    for (const path of [`${SC}?includeObject=Bogus`, `${SC}/qp-a?includeObject=Bogus`, `${SC}?watch=1&timeoutSeconds=1&includeObject=Bogus`]) {
      const r = await server.request('GET', path, { headers: table });
      assert.equal(r.status, 400, `${path}: ${r.text}`);
      assert.equal(r.json.message, message, path);
      assert.equal((await server.request('GET', path)).status, 200, `${path} as JSON`);
    }
    const none = await server.request('GET', `${SC}/qp-a?includeObject=None`, { headers: table });
    assert.equal(none.status, 200, none.text);
    assert.equal(none.json.rows[0].object, undefined);
  });

  test('a Content-Type nothing can parse: authentication first (401), then the handler\'s 415', async () => {
    const body = JSON.stringify(sc('qp-ct', '10.74.0.0/16'));
    for (const [method, path] of [['POST', SC], ['PUT', `${SC}/qp-a`], ['PATCH', `${SC}/qp-a`]] as const) {
      for (const ct of [';;;', 'json', 'application/']) {
        const anonymous = await server.request(method, path, { body, headers: { 'Content-Type': ct }, anonymous: true });
        assert.equal(anonymous.status, 401, `${method} ${ct} anonymous: ${anonymous.text}`);
        const r = await server.request(method, path, { body, headers: { 'Content-Type': ct } });
        assert.equal(r.status, 415, `${method} ${ct}: ${r.text}`);
        assert.equal(r.json.reason, 'UnsupportedMediaType');
      }
    }
  });

  test('ListOptions as kube validates them: sendInitialEvents is for watches only, resourceVersionMatch values', async () => {
    for (const path of [`${SC}?sendInitialEvents=false`, `${SC}?sendInitialEvents`, `${SC}?labelSelector=none%3Dhere&sendInitialEvents=true`]) {
      const r = await server.request(path.includes('labelSelector') ? 'DELETE' : 'GET', path);
      assert.equal(r.status, 422, `${path}: ${r.text}`);
      assert.equal(r.json.message, 'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list', path);
    }
    const match = await server.request('GET', `${SC}?resourceVersion=1&resourceVersionMatch=Newest`);
    assert.equal(match.status, 422, match.text);
    assert.equal(match.json.message, 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""');
  });

  test('pretty: Go ParseBool, else indented for curl, Wget and browsers', async () => {
    const indented = (text: string) => text.startsWith('{\n  "');
    const cases: [string, Record<string, string>, boolean][] = [
      ['pretty=true', {}, true],
      ['pretty=T', {}, true],
      ['pretty=1', {}, true],
      ['pretty=yes', {}, false],
      ['pretty=0', { 'User-Agent': 'curl/8.5.0' }, false],
      ['', { 'User-Agent': 'curl/8.5.0' }, true],
      ['', { 'User-Agent': 'Wget/1.21' }, true],
      ['', { 'User-Agent': 'Mozilla/5.0 (X11)' }, true],
      ['', { 'User-Agent': 'kubectl/v1.33.0' }, false],
    ];
    for (const [q, headers, want] of cases) {
      const r = await server.request('GET', `${SC}/qp-a?${q}`, { headers });
      assert.equal(r.status, 200, r.text);
      assert.equal(indented(r.text), want, `${q} ${JSON.stringify(headers)}`);
      // An error Status is negotiated the same way (kube's ErrorNegotiated).
      const missing = await server.request('GET', `${SC}/qp-missing?${q}`, { headers });
      assert.equal(missing.status, 404, missing.text);
      assert.equal(missing.json.reason, 'NotFound');
      assert.equal(indented(missing.text), want, `404 with ${q} ${JSON.stringify(headers)}`);
    }
  });
});
