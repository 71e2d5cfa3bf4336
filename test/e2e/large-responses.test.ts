// Large responses (a list of many megabytes) are written a slice at a time as the client reads
// (src/http/transport/paced-body.ts): the bytes are the same as a single write would send, a client that
// stops reading is cut off at the request timeout as kube-apiserver's timeout filter cuts it
// off, and a client that leaves mid-body costs the server nothing more. Over real HTTPS, on
// HTTP/1.1 and HTTP/2.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import tls from 'node:tls';
import type { TestServer } from './harness.js';
import { startInProcessServer } from './in-process-server.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';
const REQUEST_TIMEOUT_MS = 3000;
/** 100 objects of 200 KiB: 20 MB, far more than loopback's socket buffers hold unread. */
const OBJECTS = 100;
const ANNOTATION_BYTES = 200 * 1024;

const scidr = (i: number) => ({
  apiVersion: 'networking.platform.io/v1',
  kind: 'ServiceCIDR',
  metadata: { name: `large-${i}`, labels: { large: 'yes' }, annotations: { filler: 'x'.repeat(ANNOTATION_BYTES) } },
  spec: { cidrs: [`10.${i}.0.0/16`] },
});

interface Partial {
  status: number;
  contentLength: number;
  received: number;
  /** How the response ended: 'end' (whole), 'close' or 'error' (cut off). */
  ending: string;
  /** HTTP/2: the code of the stream's reset. */
  rstCode?: number;
}

/** HTTP/1.1 over a raw TLS socket: reads the head and a first piece, then reads nothing for `pauseMs`. */
function http1ReadThenPause(server: TestServer, path: string, pauseMs: number, leaveAfterFirst = false): Promise<Partial> {
  return new Promise((resolve) => {
    const socket = tls.connect({ host: '127.0.0.1', port: server.port, ca: server.caCertPem, servername: 'localhost', ALPNProtocols: ['http/1.1'] });
    let head = '';
    let status = 0;
    let contentLength = -1;
    let received = 0;
    const done = (ending: string) => resolve({ status, contentLength, received, ending });
    socket.once('secureConnect', () => socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${server.token}\r\n\r\n`));
    socket.on('data', (chunk: Buffer) => {
      if (contentLength < 0) {
        head += chunk.toString('latin1');
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) return;
        status = Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1]);
        contentLength = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? NaN);
        received = head.length - end - 4;
        if (leaveAfterFirst) {
          socket.destroy();
          return done('left');
        }
        socket.pause();
        setTimeout(() => socket.resume(), pauseMs);
        return;
      }
      received += chunk.length;
      if (received >= contentLength) {
        socket.destroy();
        done('end');
      }
    });
    socket.once('error', () => done('error'));
    socket.once('close', () => done('close'));
  });
}

/** HTTP/2: a stream that reads its headers and nothing more for `pauseMs`. */
function http2ReadThenPause(server: TestServer, path: string, pauseMs: number): Promise<Partial> {
  return new Promise((resolve) => {
    const session = http2.connect(server.url, { ca: server.caCertPem });
    session.on('error', () => undefined);
    const stream = session.request({ ':path': path, authorization: `Bearer ${server.token}` });
    let status = 0;
    let contentLength = -1;
    let received = 0;
    const done = (ending: string) => {
      resolve({ status, contentLength, received, ending, rstCode: stream.rstCode });
      session.destroy();
    };
    stream.pause();
    stream.once('response', (h) => {
      status = Number(h[':status']);
      contentLength = Number(h['content-length']);
      setTimeout(() => {
        stream.on('data', (c: Buffer) => (received += c.length));
        stream.resume();
      }, pauseMs);
    });
    stream.once('end', () => done('end'));
    stream.once('error', () => done('error'));
    stream.once('close', () => done('close'));
  });
}

function http2Get(server: TestServer, path: string): Promise<{ status: number; headers: http2.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(server.url, { ca: server.caCertPem });
    session.on('error', reject);
    const stream = session.request({ ':path': path, authorization: `Bearer ${server.token}` });
    const chunks: Buffer[] = [];
    let headers: http2.IncomingHttpHeaders = {};
    stream.on('response', (h) => (headers = h));
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      resolve({ status: Number(headers[':status']), headers, body: Buffer.concat(chunks) });
      session.close();
    });
    stream.on('error', reject);
  });
}

describe('large responses', () => {
  let server: TestServer;
  before(async () => {
    server = await startInProcessServer({ requestTimeoutMs: REQUEST_TIMEOUT_MS });
    for (let i = 0; i < OBJECTS; i++) assert.equal((await server.request('POST', SC, { body: scidr(i) })).status, 201);
  });
  after(async () => {
    await server?.stop();
  });

  test('a list of many megabytes arrives whole and byte-exact, with its Content-Length, over HTTP/1.1 and HTTP/2', async () => {
    const h1 = await server.request('GET', `${SC}?labelSelector=large%3Dyes`);
    assert.equal(h1.status, 200);
    assert.equal(h1.json.items.length, OBJECTS);
    assert.equal(Number(h1.headers['content-length']), Buffer.byteLength(h1.text));
    assert.ok(Buffer.byteLength(h1.text) > OBJECTS * ANNOTATION_BYTES);
    // The same bytes JSON.stringify makes of the list (as any smaller answer is).
    assert.equal(h1.text, `${JSON.stringify(h1.json)}\n`);
    for (const item of h1.json.items.slice(0, 3)) {
      assert.deepEqual(item, (await server.request('GET', `${SC}/${item.metadata.name}`)).json);
    }
    const h2 = await http2Get(server, `${SC}?labelSelector=large%3Dyes`);
    assert.equal(h2.status, 200);
    assert.equal(Number(h2.headers['content-length']), h2.body.length);
    assert.equal(h2.body.toString(), h1.text);
  });

  test('a client that stops reading is cut off at the request timeout (HTTP/1.1)', async () => {
    const r = await http1ReadThenPause(server, SC, REQUEST_TIMEOUT_MS + 1500);
    assert.equal(r.status, 200);
    assert.ok(r.contentLength > OBJECTS * ANNOTATION_BYTES, `content-length ${r.contentLength}`);
    assert.notEqual(r.ending, 'end', `the whole body arrived after the deadline: ${r.received} bytes`);
    assert.ok(r.received < r.contentLength, `${r.received} of ${r.contentLength} bytes`);
    assert.equal((await server.request('GET', `${SC}/large-0`)).status, 200, 'the server still answers');
  });

  test('a client that stops reading is cut off at the request timeout (HTTP/2: the stream is reset)', async () => {
    const r = await http2ReadThenPause(server, SC, REQUEST_TIMEOUT_MS + 1500);
    assert.equal(r.status, 200);
    assert.notEqual(r.ending, 'end', `the whole body arrived after the deadline: ${r.received} bytes`);
    assert.ok(r.received < r.contentLength, `${r.received} of ${r.contentLength} bytes`);
    assert.equal(r.rstCode, http2.constants.NGHTTP2_INTERNAL_ERROR, 'reset as Go resets the stream of an aborted handler, not ended');
    assert.equal((await http2Get(server, `${SC}/large-0`)).status, 200, 'the server still answers');
  });

  test('a reader slower than the slices but within the timeout gets everything', async () => {
    const r = await http1ReadThenPause(server, SC, 500);
    assert.equal(r.ending, 'end');
    assert.equal(r.received, r.contentLength);
    const h2 = await http2ReadThenPause(server, SC, 500);
    assert.equal(h2.received, h2.contentLength);
  });

  test('clients that leave mid-body leave the server serving', async () => {
    for (let i = 0; i < 5; i++) assert.equal((await http1ReadThenPause(server, SC, 0, true)).ending, 'left');
    const list = await server.request('GET', `${SC}?labelSelector=large%3Dyes`);
    assert.equal(list.status, 200);
    assert.equal(list.json.items.length, OBJECTS);
  });
});
