// The front door against hostile and odd HTTP, through real HTTPS on HTTP/1.1 and HTTP/2:
// every answer is a Status, an unacceptable response format is refused before anything is
// written, warnings about odd field names are valid headers, percent-encoded paths are decoded
// (client-node escapes the ':' of signer-linked ClusterTrustBundle names), CONNECT and plain
// HTTP to the HTTPS port are answered, methods kube does not route are a 405 where kube's are
// go-restful routes and served as GET-alikes (HEAD) where kube's are plain handlers.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import net from 'node:net';
import tls from 'node:tls';
import * as k8s from '@kubernetes/client-node';
import { startServer, type TestServer } from './harness.js';
import { makeCACert } from '../fixtures/certs.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';
const CTB = '/apis/certificates.platform.io/v1beta1/clustertrustbundles';
const cidr = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name }, spec: { cidrs: ['10.44.0.0/24'], ...extra } });

interface H2Result {
  status: number;
  headers: http2.IncomingHttpHeaders;
  text: string;
}

function h2request(server: TestServer, headers: http2.OutgoingHttpHeaders, body?: string): Promise<H2Result> {
  const session = http2.connect(server.url, { ca: server.caCertPem });
  session.on('error', () => undefined);
  return new Promise<H2Result>((resolve, reject) => {
    const stream = session.request({ authorization: `Bearer ${server.token}`, ...headers });
    let text = '';
    let head: http2.IncomingHttpHeaders = {};
    stream.on('response', (h) => (head = h));
    stream.on('data', (c: Buffer) => (text += c.toString()));
    stream.on('end', () => resolve({ status: Number(head[':status']), headers: head, text }));
    stream.on('error', reject);
    stream.end(body);
  }).finally(() => session.close());
}

/** Raw bytes over TLS (HTTP/1.1 only), for requests Node's client will not send. */
function rawTls(server: TestServer, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port: server.port, ca: server.caCertPem, servername: 'localhost', ALPNProtocols: ['http/1.1'] }, () => socket.write(request));
    let out = '';
    socket.on('data', (c: Buffer) => (out += c.toString('latin1')));
    socket.on('end', () => resolve(out));
    socket.on('close', () => resolve(out));
    socket.on('error', reject);
    socket.setTimeout(10_000, () => socket.destroy(new Error(`no answer; got ${JSON.stringify(out)}`)));
  });
}

const isStatus = (text: string, code: number, reason: string): boolean => {
  const s = JSON.parse(text) as { kind: string; code: number; reason: string };
  return s.kind === 'Status' && s.code === code && s.reason === reason;
};

describe('front door', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(async () => {
    await server?.stop();
  });

  test('a malformed escape in the path is a 400 Status (HTTP/1.1 and HTTP/2)', async () => {
    const r = await server.request('GET', '/apis/%zz');
    assert.equal(r.status, 400);
    assert.equal(r.json.kind, 'Status');
    assert.equal(r.json.message, 'invalid URL escape "%zz"');
    const h = await h2request(server, { ':path': '/apis/%zz' });
    assert.equal(h.status, 400);
    assert.ok(isStatus(h.text, 400, 'BadRequest'), h.text);
  });

  test('an escape the router cannot decode but kube can (bytes that are not UTF-8) is served like any other path', async () => {
    const r = await server.request('GET', `${SC}/%ff`);
    assert.equal(r.status, 404, r.text);
    assert.equal(r.json.reason, 'NotFound');
    assert.equal(r.json.details.name, '\ufffd');
  });

  test('CONNECT over HTTP/1.1 is answered with a 405 Status', async () => {
    const out = await rawTls(server, `CONNECT ${SC} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${server.token}\r\n\r\n`);
    assert.match(out, /^HTTP\/1\.1 405 /);
    assert.ok(isStatus(out.slice(out.indexOf('\r\n\r\n') + 4), 405, 'MethodNotAllowed'), out);
  });

  test('methods kube does not route on a resource path (OPTIONS, HEAD, TRACE, PROPFIND, an HTTP/2 token) are a 405 Status once authenticated; unknown paths stay 404', async () => {
    const methodNotAllowed = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server does not allow this method on the requested resource', reason: 'MethodNotAllowed', details: {}, code: 405 };
    const SSAR = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
    for (const path of [SC, `${SC}/kubernetes`, `${SC}/kubernetes/status`, CTB, `${SC}?watch=true`, SSAR]) {
      for (const method of ['OPTIONS', 'TRACE', 'PROPFIND']) {
        const r = await server.request(method, path);
        assert.equal(r.status, 405, `${method} ${path}: ${r.text}`);
        assert.deepEqual(r.json, methodNotAllowed, `${method} ${path}`);
      }
      // HEAD is not a GET there (kube has no HEAD routes): a 405 with no body.
      const head = await server.request('HEAD', path);
      assert.equal(head.status, 405, `HEAD ${path}`);
      assert.equal(head.text, '');
      const h2 = await h2request(server, { ':method': 'OPTIONS', ':path': path });
      assert.equal(h2.status, 405, `HTTP/2 OPTIONS ${path}`);
      assert.deepEqual(JSON.parse(h2.text), methodNotAllowed);
      const token = await h2request(server, { ':method': 'FROB', ':path': path });
      assert.equal(token.status, 405, `HTTP/2 FROB ${path}: ${token.text}`);
    }
    assert.equal((await server.request('GET', SSAR)).status, 405, 'self-reviews are routed for POST only');
    // The path is checked before the method, and authentication before both.
    for (const path of [`${SC}/kubernetes/scale`, `${SC}/a/b/c`, '/apis/networking.platform.io/v1/nothings', '/apis/nowhere.io/v1/things']) {
      const r = await server.request('OPTIONS', path);
      assert.equal(r.status, 404, `OPTIONS ${path}: ${r.text}`);
      assert.equal(r.json.reason, 'NotFound');
    }
    assert.equal((await server.request('OPTIONS', SC, { anonymous: true })).status, 401);
    assert.equal((await server.request('OPTIONS', SC, { token: 'not-a-token' })).status, 401);
  });

  test('HEAD on health, metrics and OpenAPI paths answers as Go: the GET\'s status and headers, no body; /version and group-version discovery are GET-only (405)', async () => {
    for (const path of ['/healthz', '/livez', '/readyz', '/metrics', '/openapi/v2', '/apis']) {
      const get = await server.request('GET', path);
      const head = await server.request('HEAD', path);
      assert.equal(head.status, get.status, `HEAD ${path}`);
      assert.equal(head.status, 200, `HEAD ${path}`);
      assert.equal(head.headers['content-type'], get.headers['content-type'], `HEAD ${path}`);
      assert.equal(head.text, '', `HEAD ${path} has no body`);
      const h2 = await h2request(server, { ':method': 'HEAD', ':path': path });
      assert.equal(h2.status, 200, `HTTP/2 HEAD ${path}`);
      assert.equal(h2.text, '');
    }
    assert.equal((await server.request('HEAD', '/healthz')).headers['content-length'], '2', 'the length of "ok", as Go reports it');
    for (const path of ['/version', '/apis/networking.platform.io/v1', '/api']) {
      for (const method of ['HEAD', 'OPTIONS', 'POST']) assert.equal((await server.request(method, path)).status, 405, `${method} ${path}`);
    }
    assert.equal((await server.request('GET', '/version')).status, 200);
    assert.equal((await server.request('OPTIONS', '/apis/networking.platform.io/v9')).status, 404, 'a group version not served is not found, whatever the method');
  });

  test('plain HTTP to the HTTPS port gets Go\'s 400 "Client sent an HTTP request to an HTTPS server."', async () => {
    const out = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(server.port, '127.0.0.1', () => socket.write('GET /version HTTP/1.1\r\nHost: localhost\r\n\r\n'));
      let text = '';
      socket.on('data', (c: Buffer) => (text += c.toString()));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    assert.equal(out, 'HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n');
    // The port still speaks TLS.
    assert.equal((await server.request('GET', '/version')).status, 200);
  });

  for (const accept of ['application/vnd.kubernetes.protobuf', 'application/json;as=Table;v=v1;g=meta.k8s.io', 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io']) {
    test(`a write asking for ${accept} is refused with 406 before anything is written`, async () => {
      const name = `accept-${accept.length}`;
      const r = await server.request('POST', SC, { body: cidr(name), headers: { Accept: accept } });
      assert.equal(r.status, 406);
      assert.equal(r.json.reason, 'NotAcceptable');
      assert.equal((await server.request('GET', `${SC}/${name}`)).status, 404, 'the object was not created');
      const h = await h2request(server, { ':method': 'POST', ':path': SC, 'content-type': 'application/json', accept }, JSON.stringify(cidr(name)));
      assert.equal(h.status, 406);
      assert.equal((await server.request('GET', `${SC}/${name}`)).status, 404);
      // A delete is refused first too: the object stays.
      assert.equal((await server.request('POST', SC, { body: cidr(name) })).status, 201);
      assert.equal((await server.request('DELETE', `${SC}/${name}`, { headers: { Accept: accept } })).status, 406);
      assert.equal((await server.request('GET', `${SC}/${name}`)).status, 200);
      assert.equal((await server.request('DELETE', `${SC}/${name}`)).status, 200);
    });
  }

  test('an unknown field named beyond U+00FF is a valid Warning header carrying its UTF-8 text (HTTP/1.1 and HTTP/2)', async () => {
    const r = await server.request('POST', `${SC}?fieldValidation=Warn`, { body: cidr('warn-utf8', { 'naïve€字': 1 }) });
    assert.equal(r.status, 201, r.text);
    const warning = Buffer.from(String(r.headers.warning), 'latin1').toString('utf8');
    assert.match(warning, /^299 - ".*naïve€字.*"$/);
    const h = await h2request(server, { ':method': 'PUT', ':path': `${SC}/warn-utf8?fieldValidation=Warn`, 'content-type': 'application/json' }, JSON.stringify({ ...cidr('warn-utf8', { '字段': 2 }), metadata: { name: 'warn-utf8' } }));
    assert.equal(h.status, 200, h.text);
    assert.match(Buffer.from(String(h.headers.warning), 'latin1').toString('utf8'), /字段/);
  });

  test('many long warnings are cut to kube\'s budget, never failing the write', async () => {
    const fields = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`f${i}${'x'.repeat(300)}`, i]));
    const r = await server.request('POST', `${SC}?fieldValidation=Warn`, { body: cidr('warn-many', fields) });
    assert.equal(r.status, 201, r.text);
    const values = String(r.headers.warning).split(/, (?=299 )/);
    assert.ok(values.length > 1 && values.length < 40, `${values.length} warnings`);
    for (const v of values) assert.ok(v.length <= 256 + 20, `cut to 256 characters: ${v.length}`);
  });

  test('a malformed Impersonate-Extra key is kept as written, as kube does (not a 500)', async () => {
    const r = await server.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      headers: { 'Impersonate-User': 'someone', 'Impersonate-Extra-%ZZ': 'v' },
    });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.json.status.userInfo.extra, { '%zz': ['v'] });
  });

  test('percent-encoded names are decoded: %63n-x is cn-x', async () => {
    assert.equal((await server.request('POST', SC, { body: cidr('cn-x') })).status, 201);
    const r = await server.request('GET', `${SC}/%63n-x`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.metadata.name, 'cn-x');
    // A decoded slash is a separator, as in kube: the path then names a subresource that does not exist.
    assert.equal((await server.request('GET', `${SC}/cn-x%2Fother`)).status, 404);
  });

  test('a signer-linked ClusterTrustBundle: raw HTTPS and client-node read, patch, replace and delete', async () => {
    const { pem: certPem } = await makeCACert({ commonName: 'signer-root' });
    const name = 'example.com:signer:x';
    const bundle = { apiVersion: 'certificates.platform.io/v1beta1', kind: 'ClusterTrustBundle', metadata: { name }, spec: { signerName: 'example.com/signer', trustBundle: certPem } };
    assert.equal((await server.request('POST', CTB, { body: bundle })).status, 201);
    const raw = await server.request('GET', `${CTB}/example.com%3Asigner%3Ax`);
    assert.equal(raw.status, 200, raw.text);
    assert.equal(raw.json.metadata.name, name);

    const kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfigPath);
    const api = k8s.KubernetesObjectApi.makeApiClient(kc);
    const spec = { apiVersion: bundle.apiVersion, kind: bundle.kind, metadata: { name } };
    const read = await api.read(spec);
    assert.equal(read.metadata?.name, name);
    const patched = await api.patch({ ...spec, metadata: { name, labels: { patched: 'yes' } } }, undefined, undefined, undefined, undefined, k8s.PatchStrategy.MergePatch);
    assert.equal(patched.metadata?.labels?.patched, 'yes');
    const replaced = await api.replace({ ...(patched as object), metadata: { ...patched.metadata, labels: { replaced: 'yes' } } } as k8s.KubernetesObject);
    assert.deepEqual(replaced.metadata?.labels, { replaced: 'yes' });
    await api.delete(spec);
    assert.equal((await server.request('GET', `${CTB}/${encodeURIComponent(name)}`)).status, 404);
  });

  test('headers past the size limit (1 MiB, as kube) get a 431 Status over HTTP/1.1; the server serves on (more in header-limits.test.ts)', async () => {
    const out = await rawTls(server, `GET /version HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(1029 * 1024)}\r\n\r\n`);
    assert.match(out, /^HTTP\/1\.1 431 /);
    assert.equal(JSON.parse(out.slice(out.indexOf('\r\n\r\n') + 4)).code, 431);
    assert.equal((await h2request(server, { ':path': '/version' })).status, 200);
  });

  test('a 413 over HTTP/2 is a Status without a connection header (Node would warn about it)', async () => {
    const h = await h2request(server, { ':method': 'POST', ':path': SC, 'content-type': 'application/json' }, 'x'.repeat(3 * 1024 * 1024 + 10));
    assert.equal(h.status, 413);
    assert.ok(isStatus(h.text, 413, 'RequestEntityTooLarge'), h.text);
    assert.equal(h.headers.connection, undefined);
    await new Promise((r) => setTimeout(r, 200));
    assert.doesNotMatch(server.log(), /UnsupportedWarning|connection-specific/i);
  });
});
