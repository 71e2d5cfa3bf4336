// The hostile-input answers over HTTP/2 (what kubectl and client-go negotiate), against a server
// in this process: prototype keys in a strategic merge and a JSON patch, a body nested too deep,
// a YAML alias bomb, a resourceVersion above 2^53, thousands of controller references.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { startInProcessServer } from './in-process-server.js';
import { bodyOf, type TestServer } from './harness.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';

interface H2Result {
  status: number;
  headers: http2.IncomingHttpHeaders;
  json: any;
  text: string;
}

function request(session: http2.ClientHttp2Session, token: string, method: string, path: string, body?: string, contentType = 'application/json'): Promise<H2Result> {
  return new Promise((resolve, reject) => {
    const headers: http2.OutgoingHttpHeaders = { ':method': method, ':path': path, authorization: `Bearer ${token}` };
    if (body !== undefined) headers['content-type'] = contentType;
    const stream = session.request(headers);
    let status = 0;
    let responseHeaders: http2.IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    stream.on('response', (h) => {
      status = Number(h[':status']);
      responseHeaders = h;
    });
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve({ status, headers: responseHeaders, ...bodyOf(chunks) }));
    stream.on('error', reject);
    stream.end(body);
  });
}

describe('hostile input over HTTP/2', () => {
  let server: TestServer;
  let session: http2.ClientHttp2Session;
  const send = (method: string, path: string, body?: string, contentType?: string) => request(session, server.token, method, path, body, contentType);
  before(async () => {
    server = await startInProcessServer();
    session = http2.connect(server.url, { ca: server.caCertPem });
    session.on('error', () => undefined);
    const r = await send('POST', SC, JSON.stringify({ apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'target' }, spec: { cidrs: ['10.0.0.0/24'] } }));
    assert.equal(r.status, 201, r.text);
  });
  after(async () => {
    session?.close();
    await server?.stop();
  });

  test('prototype keys are unknown fields; nothing is polluted', async () => {
    assert.equal(session.alpnProtocol, 'h2');
    const smp = await send('PATCH', `${SC}/target`, '{"metadata":{"__proto__":{"name":"x"}}}', 'application/strategic-merge-patch+json');
    assert.equal(smp.status, 200, smp.text);
    assert.equal(smp.headers.warning, '299 - "unknown field \\"metadata.__proto__\\""');
    const jp = await send('PATCH', `${SC}/target`, '[{"op":"replace","path":"/metadata/constructor/assign","value":1}]', 'application/json-patch+json');
    assert.equal(jp.status, 422, jp.text);
    assert.equal(({} as Record<string, unknown>).name, undefined);
    assert.equal(typeof Object.assign, 'function');
    const nameless = await send('POST', SC, '{"apiVersion":"networking.platform.io/v1","kind":"ServiceCIDR","spec":{"cidrs":["10.1.0.0/24"]}}');
    assert.equal(nameless.status, 422, nameless.text);
  });

  test('too deep, alias bombs and out-of-range versions are a 400; a too-large version a 504', async () => {
    const deep = await send('POST', SC, `${'{"x":'.repeat(1001)}1${'}'.repeat(1001)}`);
    assert.equal(deep.status, 400, deep.text);
    assert.equal(deep.json.message, "couldn't get version/kind; json parse error: invalid character '{' exceeded max depth");
    const laughs = `a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n${Array.from({ length: 9 }, (_, i) => `a${i + 1}: &a${i + 1} [${Array(10).fill(`*a${i}`).join(', ')}]`).join('\n')}\n`;
    const bomb = await send('POST', SC, laughs, 'application/yaml');
    assert.equal(bomb.status, 400, bomb.text);
    assert.equal(bomb.json.message, 'error converting YAML to JSON: yaml: document contains excessive aliasing');
    const range = await send('GET', `${SC}?resourceVersion=18446744073709551616`);
    assert.equal(range.status, 400, range.text);
    const big = await send('GET', `${SC}/target?resourceVersion=9007199254740993`);
    assert.equal(big.status, 504, big.text);
    assert.match(big.json.message, /^Timeout: Too large resource version: 9007199254740993, current: \d+$/);
  });

  test('2,500 controller references: a small 422', async () => {
    const refs = Array.from({ length: 2500 }, (_, i) => ({ apiVersion: 'v1', kind: 'Owner', name: `o${i}`, uid: `u${i}`, controller: true }));
    const r = await send('POST', SC, JSON.stringify({ apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'owned', ownerReferences: refs }, spec: { cidrs: ['10.0.0.0/24'] } }));
    assert.equal(r.status, 422, r.text.slice(0, 300));
    assert.ok(r.text.length < 8 * 1024, `answer of ${r.text.length} bytes`);
  });
});
