// The wire contract over real HTTPS: authentication, the Status error model for every failure
// code, content negotiation, field validation, dry run, discovery, OpenAPI caching, watch.

// The ServiceCIDR controller's own writes (finalizer, Ready) are tested in controllers.test.ts; these
// tests pin API behaviour exactly (events, managedFields, finalizers), so it is off here.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { startServer, watchEvents as readWatch, type TestServer } from './harness.js';
import { makeCACert } from '../fixtures/certs.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';
const CTB = '/apis/certificates.platform.io/v1beta1/clustertrustbundles';
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

const scidr = (name: string, cidrs = ['10.0.0.0/24'], extra: Record<string, unknown> = {}) => ({
  apiVersion: 'networking.platform.io/v1',
  kind: 'ServiceCIDR',
  metadata: { name },
  spec: { cidrs },
  ...extra,
});

function assertStatus(r: { status: number; json: any; text: string }, code: number, reason: string, message?: string | RegExp): void {
  assert.equal(r.status, code, r.text);
  assert.equal(r.json?.kind, 'Status', r.text);
  assert.equal(r.json.apiVersion, 'v1');
  assert.equal(r.json.status, 'Failure');
  assert.equal(r.json.code, code);
  assert.equal(r.json.reason, reason);
  if (typeof message === 'string') assert.equal(r.json.message, message);
  else if (message) assert.match(r.json.message, message);
  assert.doesNotMatch(r.text, /\n\s+at /, 'no stack trace leaks');
}

describe('HTTP API', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ args: ['--controllers=-service-cidr-controller'] });
  });
  after(async () => {
    await server?.stop();
  });

  describe('authentication', () => {
    test('health and version answer without credentials; version reports API level 1.33', async () => {
      for (const p of ['/healthz', '/livez', '/readyz']) {
        const r = await server.request('GET', p, { anonymous: true });
        assert.equal(r.status, 200);
        assert.equal(r.text, 'ok');
      }
      const v = await server.request('GET', '/version', { anonymous: true });
      assert.equal(v.json.major, '1');
      assert.equal(v.json.minor, '33');
      assert.match(v.json.gitVersion, /^v1\.33\.0\+platform-apiserver\./);
    });

    test('no credentials or a bad token is 401 on every other path', async () => {
      for (const p of [SC, `${CTB}/x`, '/apis', '/openapi/v3', '/', '/nope']) {
        assertStatus(await server.request('GET', p, { anonymous: true }), 401, 'Unauthorized', 'Unauthorized');
        assertStatus(await server.request('GET', p, { token: 'wrong' }), 401, 'Unauthorized', 'Unauthorized');
      }
    });

    test('every answer says Cache-Control: no-cache, private (refusals too), unless its handler allows caching', async () => {
      const answers = [
        await server.request('GET', '/healthz', { anonymous: true }),
        await server.request('GET', SC, { anonymous: true }),
        await server.request('GET', SC),
        await server.request('GET', `${SC}/missing`),
        await server.request('GET', '/apis'),
        await server.request('GET', '/metrics'),
      ];
      assert.deepEqual(
        answers.map((r) => [r.status, r.headers['cache-control']]),
        [200, 401, 200, 404, 200, 200].map((code) => [code, 'no-cache, private']),
      );
    });
  });

  describe('errors are Status objects with the right code', () => {
    test('404 for unknown paths, resources and objects', async () => {
      assertStatus(await server.request('GET', '/apis/nope.io/v1/things'), 404, 'NotFound', 'the server could not find the requested resource');
      assertStatus(await server.request('GET', `${CTB}/x/status`), 404, 'NotFound');
      assertStatus(await server.request('GET', `${SC}/missing`), 404, 'NotFound', 'servicecidrs.networking.platform.io "missing" not found');
    });

    test('405 for a method the endpoint does not serve', async () => {
      assertStatus(await server.request('POST', `${SC}/x`, { body: scidr('x') }), 405, 'MethodNotAllowed');
      assertStatus(await server.request('DELETE', `${SC}/x/status`), 405, 'MethodNotAllowed');
    });

    test('400 for malformed JSON and YAML, wrong apiVersion or kind, a name that differs from the URL', async () => {
      assertStatus(await server.request('POST', SC, { body: '{"kind":' }), 400, 'BadRequest', /^couldn't get version\/kind; json parse error/);
      assertStatus(await server.request('POST', SC, { body: 'a: [', headers: { 'Content-Type': 'application/yaml' } }), 400, 'BadRequest', /^error converting YAML to JSON/);
      assertStatus(
        await server.request('POST', SC, { body: { ...scidr('x'), apiVersion: 'networking.platform.io/v2' } }),
        400,
        'BadRequest',
        'the API version in the data (networking.platform.io/v2) does not match the expected API version (networking.platform.io/v1)',
      );
      assertStatus(await server.request('POST', SC, { body: { ...scidr('x'), kind: 'Pod' } }), 400, 'BadRequest', /^no kind "Pod" is registered/);
      assertStatus(await server.request('POST', SC, { body: { ...scidr('x'), spec: { cidrs: 'nope' } } }), 400, 'BadRequest', /cannot unmarshal string into Go struct field spec.cidrs of type array/);
      await server.request('POST', SC, { body: scidr('named') });
      assertStatus(await server.request('PUT', `${SC}/named`, { body: scidr('other') }), 400, 'BadRequest', 'the name of the object (other) does not match the name on the URL (named)');
    });

    test('large writes back to back on one keep-alive connection are never reset', async () => {
      // Each answer (the object, with its 200 KiB annotation) is bigger than a socket's default
      // buffer; Node 20 used to fail the next request on the connection now and then (HPE_PAUSED).
      const annotation = 'x'.repeat(200 * 1024);
      for (let i = 0; i < 300; i++) {
        const r = await server.request('POST', SC, { body: scidr(`big-${i}`, ['10.9.0.0/16'], { metadata: { name: `big-${i}`, labels: { big: 'yes' }, annotations: { a: annotation } } }) });
        assert.equal(r.status, 201, `request ${i}: ${r.text.slice(0, 200)}`);
      }
      assert.equal((await server.request('DELETE', `${SC}?labelSelector=big%3Dyes`)).status, 200);
    });

    test('413 above 3 MiB, and nothing is stored', async () => {
      const huge = scidr('huge', ['10.9.0.0/16'], { metadata: { name: 'huge', annotations: { big: 'x'.repeat(3 * 1024 * 1024) } } });
      assertStatus(await server.request('POST', SC, { body: huge }), 413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728');
      assertStatus(await server.request('GET', `${SC}/huge`), 404, 'NotFound');
    });

    test('406 for an Accept we cannot serve, 415 for a body or patch type we do not take', async () => {
      assertStatus(await server.request('GET', SC, { headers: { Accept: 'application/vnd.kubernetes.protobuf' } }), 406, 'NotAcceptable');
      assertStatus(await server.request('POST', SC, { body: 'x', headers: { 'Content-Type': 'text/plain' } }), 415, 'UnsupportedMediaType');
      assertStatus(
        await server.request('PATCH', `${SC}/named`, { body: '{}', headers: { 'Content-Type': 'application/xml' } }),
        415,
        'UnsupportedMediaType',
        /accepted media types include: application\/json-patch\+json, application\/merge-patch\+json, application\/strategic-merge-patch\+json, application\/apply-patch\+yaml$/,
      );
    });

    test('422 Invalid with causes; 409 on stale resourceVersion; CTB PUT without resourceVersion is 422', async () => {
      const bad = await server.request('POST', SC, { body: scidr('bad', ['10.0.0.0/24', '10.1.0.0/24', 'fd00::/64']) });
      assertStatus(bad, 422, 'Invalid');
      assert.deepEqual(bad.json.details.causes, [
        { reason: 'FieldValueInvalid', message: 'Invalid value: {"CIDRs":["10.0.0.0/24","10.1.0.0/24","fd00::/64"]}: may only hold up to 2 values', field: 'spec.cidrs' },
      ]);
      const ca = await makeCACert();
      const created = await server.request('POST', CTB, { body: { apiVersion: 'certificates.platform.io/v1beta1', kind: 'ClusterTrustBundle', metadata: { name: 'b1' }, spec: { trustBundle: ca.pem } } });
      assert.equal(created.status, 201, created.text);
      const noRV = { ...created.json, metadata: { ...created.json.metadata, resourceVersion: undefined } };
      const r = await server.request('PUT', `${CTB}/b1`, { body: noRV });
      assertStatus(r, 422, 'Invalid', 'ClusterTrustBundle.certificates.platform.io "b1" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update');
      const stale = { ...created.json, metadata: { ...created.json.metadata, resourceVersion: '1' } };
      assertStatus(await server.request('PUT', `${CTB}/b1`, { body: stale }), 409, 'Conflict');
      const missing = await server.request('PUT', `${CTB}/nobody`, { body: { ...created.json, metadata: { ...created.json.metadata, name: 'nobody' } } });
      assertStatus(missing, 404, 'NotFound');
    });
  });

  describe('representations and options', () => {
    test('YAML in and out; Table with rows and includeObject', async () => {
      const yamlBody = 'apiVersion: networking.platform.io/v1\nkind: ServiceCIDR\nmetadata:\n  name: from-yaml\nspec:\n  cidrs: ["10.7.0.0/16"]\n';
      const created = await server.request('POST', SC, { body: yamlBody, headers: { 'Content-Type': 'application/yaml' } });
      assert.equal(created.status, 201, created.text);
      const y = await server.request('GET', `${SC}/from-yaml`, { headers: { Accept: 'application/yaml' } });
      assert.equal(y.headers['content-type'], 'application/yaml');
      assert.match(y.text, /^apiVersion: networking.platform.io\/v1\nkind: ServiceCIDR\n/);
      const t = await server.request('GET', `${SC}?labelSelector=`, { headers: { Accept: TABLE } });
      assert.equal(t.json.kind, 'Table');
      assert.deepEqual(t.json.columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'CIDRs', 'Age']);
      const row = t.json.rows.find((r: { cells: string[] }) => r.cells[0] === 'from-yaml');
      assert.equal(row.cells[1], '10.7.0.0/16');
      assert.equal(row.object.kind, 'PartialObjectMetadata');
      const full = await server.request('GET', `${SC}/from-yaml?includeObject=Object`, { headers: { Accept: TABLE } });
      assert.equal(full.json.rows[0].object.kind, 'ServiceCIDR');
    });

    test('fieldValidation: Strict rejects unknown and duplicate fields, Warn (default) warns, Ignore drops', async () => {
      const body = '{"apiVersion":"networking.platform.io/v1","kind":"ServiceCIDR","metadata":{"name":"fv","name":"fv"},"spec":{"cidrs":["10.8.0.0/16"],"bogus":1}}';
      assertStatus(await server.request('POST', `${SC}?fieldValidation=Strict`, { body }), 400, 'BadRequest', 'strict decoding error: unknown field "spec.bogus", duplicate field "metadata.name"');
      const warned = await server.request('POST', SC, { body });
      assert.equal(warned.status, 201);
      assert.deepEqual(warned.headers.warning, '299 - "unknown field \\"spec.bogus\\"", 299 - "duplicate field \\"metadata.name\\""');
      assert.equal(warned.json.spec.bogus, undefined);
      const ignored = await server.request('POST', `${SC}?fieldValidation=Ignore`, { body: body.replace(/"fv"/g, '"fv2"') });
      assert.equal(ignored.status, 201);
      assert.equal(ignored.headers.warning, undefined);
      assertStatus(await server.request('POST', `${SC}?fieldValidation=Loose`, { body }), 422, 'Invalid', /^CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loose"/);
    });

    test('dryRun=All writes nothing; other values are refused', async () => {
      const r = await server.request('POST', `${SC}?dryRun=All`, { body: scidr('dry') });
      assert.equal(r.status, 201);
      assertStatus(await server.request('GET', `${SC}/dry`), 404, 'NotFound');
      assertStatus(await server.request('POST', `${SC}?dryRun=Some`, { body: scidr('dry') }), 422, 'Invalid');
    });

    test('delete answers a Success Status; an empty JSON body is fine; preconditions are checked', async () => {
      const c = await server.request('POST', SC, { body: scidr('gone') });
      const pre = await server.request('DELETE', `${SC}/gone`, { body: { preconditions: { uid: 'wrong' } } });
      assertStatus(pre, 409, 'Conflict', /Precondition failed: UID in precondition: wrong/);
      const del = await server.request('DELETE', `${SC}/gone`, { body: '', headers: { 'Content-Type': 'application/json' } });
      assert.equal(del.status, 200, del.text);
      assert.deepEqual(del.json, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Success',
        details: { name: 'gone', group: 'networking.platform.io', kind: 'servicecidrs', uid: c.json.metadata.uid },
      });
    });

    test('a no-op update keeps the resourceVersion; ServiceCIDR PUT without resourceVersion is unconditional', async () => {
      const c = await server.request('POST', SC, { body: scidr('noop', ['10.60.0.0/16']) });
      const same = await server.request('PUT', `${SC}/noop`, { body: c.json });
      assert.equal(same.json.metadata.resourceVersion, c.json.metadata.resourceVersion);
      const unconditional = await server.request('PUT', `${SC}/noop`, { body: { ...scidr('noop', ['10.60.0.0/16']), metadata: { name: 'noop', labels: { a: 'b' } } } });
      assert.equal(unconditional.status, 200, unconditional.text);
      assert.deepEqual(unconditional.json.metadata.labels, { a: 'b' });
      assert.equal(unconditional.json.metadata.uid, c.json.metadata.uid);
    });

    test('list pages with limit and continue over one snapshot', async () => {
      for (let i = 0; i < 5; i++) await server.request('POST', SC, { body: scidr(`page-${i}`, [`10.9${i}.0.0/16`]) });
      const first = await server.request('GET', `${SC}?limit=2`);
      assert.equal(first.json.kind, 'ServiceCIDRList');
      assert.equal(first.json.items.length, 2);
      assert.ok(first.json.metadata.continue);
      const second = await server.request('GET', `${SC}?limit=2&continue=${encodeURIComponent(first.json.metadata.continue)}`);
      assert.equal(second.json.metadata.resourceVersion, first.json.metadata.resourceVersion);
      assert.notDeepEqual(second.json.items[0].metadata.name, first.json.items[0].metadata.name);
      assertStatus(await server.request('GET', `${CTB}?fieldSelector=spec.bogus%3Dx`), 400, 'BadRequest', 'field label not supported: spec.bogus');
    });
  });

  describe('discovery and OpenAPI', () => {
    test('aggregated discovery only when asked, with its exact content type', async () => {
      const agg = await server.request('GET', '/apis', { headers: { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json' } });
      assert.equal(agg.headers['content-type'], 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
      const net = agg.json.items.find((g: { metadata: { name: string } }) => g.metadata.name === 'networking.platform.io');
      // Resources by name, as kube lists them: ipaddresses, then servicecidrs.
      assert.deepEqual(net.versions[0].resources.map((r: { resource: string }) => r.resource), ['ipaddresses', 'servicecidrs']);
      assert.deepEqual(net.versions[0].resources[1].subresources, [
        { subresource: 'status', responseKind: { group: 'networking.platform.io', version: 'v1', kind: 'ServiceCIDR' }, verbs: ['get', 'patch', 'update'] },
      ]);
      const legacy = await server.request('GET', '/apis');
      assert.equal(legacy.json.kind, 'APIGroupList');
      const list = await server.request('GET', '/apis/networking.platform.io/v1');
      assert.deepEqual(list.json.resources.map((r: { name: string }) => r.name), ['ipaddresses', 'servicecidrs', 'servicecidrs/status']);
    });

    test('OpenAPI v3: index with content hashes, ETag revalidation, immutable hashed URLs', async () => {
      const index = await server.request('GET', '/openapi/v3');
      const url: string = index.json.paths['apis/networking.platform.io/v1'].serverRelativeURL;
      assert.match(url, /^\/openapi\/v3\/apis\/networking.platform.io\/v1\?hash=[0-9A-F]{128}$/);
      const doc = await server.request('GET', url);
      assert.equal(doc.headers['cache-control'], 'public, immutable');
      const patch = doc.json.paths['/apis/networking.platform.io/v1/servicecidrs/{name}'].patch;
      assert.deepEqual(patch['x-kubernetes-group-version-kind'], { group: 'networking.platform.io', version: 'v1', kind: 'ServiceCIDR' });
      assert.ok(patch.parameters.some((p: { name: string }) => p.name === 'fieldValidation'));
      assert.deepEqual(doc.json.components.schemas['io.platform.networking.v1.ServiceCIDR']['x-kubernetes-group-version-kind'], [
        { group: 'networking.platform.io', version: 'v1', kind: 'ServiceCIDR' },
      ]);
      const etag = doc.headers.etag as string;
      const again = await server.request('GET', '/openapi/v3/apis/networking.platform.io/v1', { headers: { 'If-None-Match': etag } });
      assert.equal(again.status, 304);
    });
  });

  describe('watch', () => {
    const watchEvents = (path: string, count: number) => readWatch(server, path, count);

    test('from a resourceVersion: the changes after it, with selector transitions', async () => {
      const c = await server.request('POST', SC, { body: { ...scidr('w1', ['10.70.0.0/16']), metadata: { name: 'w1', labels: { team: 'a' } } } });
      const rv = c.json.metadata.resourceVersion;
      await server.request('PATCH', `${SC}/w1`, { body: { metadata: { annotations: { x: 'y' } } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
      await server.request('PATCH', `${SC}/w1`, { body: { metadata: { labels: { team: 'b' } } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
      await server.request('PATCH', `${SC}/w1`, { body: { metadata: { labels: { team: 'a' } } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
      // Opened after the writes: from rv, it replays them all the same.
      const { status, events } = await watchEvents(`${SC}?watch=true&resourceVersion=${rv}&labelSelector=team%3Da`, 3);
      assert.equal(status, 200);
      assert.deepEqual(events.map((e) => e.type), ['MODIFIED', 'DELETED', 'ADDED']);
      const rvs = events.map((e) => Number(e.object.metadata.resourceVersion));
      assert.deepEqual(rvs, [...rvs].sort((a, b) => a - b));
    });

    test('a watch with nothing to report answers 200 at once', async () => {
      const url = new URL(server.url);
      const status = await new Promise<number>((resolve, reject) => {
        const req = https.request(
          { host: url.hostname, port: url.port, path: `${SC}?watch=true&resourceVersion=0&labelSelector=none%3Dnone`, ca: server.caCertPem, headers: { Authorization: `Bearer ${server.token}` } },
          (res) => {
            resolve(res.statusCode ?? 0);
            req.destroy();
          },
        );
        req.setTimeout(5000, () => req.destroy(new Error('no response headers within 5 s')));
        req.on('error', reject);
        req.end();
      });
      assert.equal(status, 200);
    });

    test('resourceVersion 0 starts with the current state; timeoutSeconds ends the stream', async () => {
      const { events } = await watchEvents(`${SC}?watch=true&resourceVersion=0&fieldSelector=metadata.name%3Dw1&timeoutSeconds=1`, 100);
      assert.deepEqual(events.map((e) => [e.type, e.object.metadata.name]), [['ADDED', 'w1']]);
    });

    test('allowWatchBookmarks: a BOOKMARK within 30 s carrying only the current resourceVersion; without it, none', async () => {
      const created = await server.request('POST', SC, { body: scidr('bm1', ['10.71.0.0/16']) });
      const rv = Number(created.json.metadata.resourceVersion);
      // A selector nothing matches: the only thing to arrive is the bookmark itself.
      const query = `watch=true&resourceVersion=${rv}&labelSelector=bookmark%3Dnone&timeoutSeconds=31`;
      const started = Date.now();
      const [asked, plain] = await Promise.all([watchEvents(`${SC}?${query}&allowWatchBookmarks=true`, 1), watchEvents(`${SC}?${query.replace('timeoutSeconds=31', 'timeoutSeconds=20')}`, 1)]);
      assert.ok(Date.now() - started < 30_000);
      assert.deepEqual(asked.events.map((e) => e.type), ['BOOKMARK']);
      const bookmark = asked.events[0].object;
      assert.deepEqual([bookmark.kind, bookmark.apiVersion, Object.keys(bookmark.metadata)], ['ServiceCIDR', 'networking.platform.io/v1', ['resourceVersion']]);
      assert.ok(Number(bookmark.metadata.resourceVersion) >= rv);
      assert.deepEqual(plain.events, [], 'no bookmarks unless asked for');
    });

    test('sendInitialEvents ends the initial state with an annotated BOOKMARK', async () => {
      const { events } = await watchEvents(`${SC}?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&fieldSelector=metadata.name%3Dw1`, 2);
      assert.equal(events[0].type, 'ADDED');
      assert.equal(events[1].type, 'BOOKMARK');
      assert.deepEqual(events[1].object.metadata.annotations, { 'k8s.io/initial-events-end': 'true' });
      assert.equal(events[1].object.kind, 'ServiceCIDR');
    });
  });
});
