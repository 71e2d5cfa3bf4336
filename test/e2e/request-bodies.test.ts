// Request bodies as the transport reads them (src/http/transport/request-body.ts), over real
// HTTPS to a server in this process: a chunked body past the limit (no Content-Length to refuse
// it by) is a 413 Status and the HTTP/1.1 connection is not kept; an upload its client abandons
// stores nothing and costs the server nothing; a request with no body is served as one.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import tls from 'node:tls';
import type { TestServer } from './harness.js';
import { startInProcessServer } from './in-process-server.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';
const LIMIT = 3 * 1024 * 1024;
const BOUND_MS = 30_000;

const object = (name: string): string => JSON.stringify({ apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name }, spec: { cidrs: ['10.77.0.0/24'] } });
/**
 * A body whose first part is already a whole object (the rest is blank): an upload cut off after
 * that part would be created if the server took what came for all there is.
 */
const padded = (name: string): { whole: string; part: string } => {
  const json = object(name);
  return { whole: json + ' '.repeat(4096), part: json + ' '.repeat(16) };
};

/** Writes `chunks` over one HTTP/1.1 TLS connection; resolves with all the server sent once it closed. */
function rawTls(server: TestServer, chunks: (string | Buffer)[], closeAfterWriting = false): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port: server.port, ca: server.caCertPem, servername: 'localhost', ALPNProtocols: ['http/1.1'] }, () => {
      for (const c of chunks) socket.write(c);
      if (closeAfterWriting) socket.end();
    });
    let out = '';
    socket.on('data', (c: Buffer) => (out += c.toString('latin1')));
    socket.on('close', () => resolve(out));
    // The server may close while the client still writes (a refused body): that is an answer too.
    socket.on('error', () => resolve(out));
    socket.setTimeout(BOUND_MS, () => reject(new Error(`no close; got ${JSON.stringify(out.slice(0, 300))}`)));
  });
}

async function names(server: TestServer): Promise<string[]> {
  const r = await server.request('GET', SC);
  assert.equal(r.status, 200);
  return (r.json as { items: { metadata: { name: string } }[] }).items.map((i) => i.metadata.name);
}

describe('request bodies', () => {
  let server: TestServer;
  before(async () => {
    server = await startInProcessServer();
  });
  after(async () => {
    await server?.stop();
  });

  test('a chunked HTTP/1.1 body past the limit is a 413 Status, and the connection closes', async () => {
    const slice = 'x'.repeat(256 * 1024);
    const head = `POST ${SC} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${server.token}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
    const chunks: string[] = [head];
    for (let sent = 0; sent <= LIMIT; sent += slice.length) chunks.push(`${slice.length.toString(16)}\r\n${slice}\r\n`);
    const out = await rawTls(server, chunks);
    assert.match(out, /^HTTP\/1\.1 413 /);
    assert.match(out, /\r\nconnection: close\r\n/i);
    const status = JSON.parse(out.slice(out.indexOf('\r\n\r\n') + 4)) as { kind: string; code: number; reason: string; message: string };
    assert.deepEqual([status.kind, status.code, status.reason, status.message], ['Status', 413, 'RequestEntityTooLarge', `Request entity too large: limit is ${LIMIT}`]);
  });

  test('an HTTP/1.1 upload its client abandons half-way stores nothing; the server serves on', async () => {
    const body = padded('abandoned-h1');
    const head = `POST ${SC} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${server.token}\r\nContent-Type: application/json\r\nContent-Length: ${body.whole.length}\r\n\r\n`;
    const out = await rawTls(server, [head, body.part], true);
    // Its connection is gone, so whatever is answered goes nowhere; if anything, a 400 Status.
    assert.ok(out === '' || /^HTTP\/1\.1 400 /.test(out), out.slice(0, 300));
    assert.ok(!(await names(server)).includes('abandoned-h1'));
  });

  test('an HTTP/2 upload whose connection is lost half-way stores nothing; a whole one is created', async () => {
    const post = (name: string, whole: boolean): Promise<number | undefined> => {
      const session = http2.connect(server.url, { ca: server.caCertPem });
      session.on('error', () => undefined);
      return new Promise<number | undefined>((resolve) => {
        const body = padded(name);
        const st = session.request({ ':method': 'POST', ':path': SC, authorization: `Bearer ${server.token}`, 'content-type': 'application/json' });
        st.on('response', (h) => resolve(Number(h[':status'])));
        st.on('close', () => resolve(undefined));
        st.on('error', () => undefined);
        st.resume();
        if (whole) return void st.end(body.whole);
        // Gone without END_STREAM (a stream's own close() would end it first, completing the body).
        st.write(body.part, () => setTimeout(() => session.destroy(), 100));
      }).finally(() => session.destroy());
    };
    assert.equal(await post('abandoned-h2', false), undefined);
    assert.equal(await post('whole-h2', true), 201);
    const stored = await names(server);
    assert.ok(stored.includes('whole-h2'));
    assert.ok(!stored.includes('abandoned-h2'), 'the cut-off upload was stored');
  });

  test('a DELETE without a body and a POST with an empty one are served as such', async () => {
    assert.equal((await server.request('POST', SC, { body: object('to-delete') })).status, 201);
    const deleted = await server.request('DELETE', `${SC}/to-delete`);
    assert.equal(deleted.status, 200);
    // An empty JSON body is not an object: kube's decoder refuses it (a 400, after authentication).
    const empty = await server.request('POST', SC, { body: '' });
    assert.equal(empty.status, 400);
    assert.equal((empty.json as { kind: string }).kind, 'Status');
  });
});
