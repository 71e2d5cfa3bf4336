// The connection guard on a real TLS server (HTTP/2 with HTTP/1.1, as the API server's), with
// small deadlines: slow headers, silent and idle connections are cut off; ordinary requests
// are served.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import { makeClientCert, makeSigningCA } from '../../../test/fixtures/certs.js';
import { bounded } from '../../../test/support/polling.js';
import { guardConnections } from './connection-guard.js';

const MS = 300;
/** How long any close or answer may take before the test fails (not hangs): far past every deadline, for a loaded machine. */
const BOUND_MS = 15_000;

/** The status of one GET on an HTTP/2 session (the body is read and dropped). */
function statusOf(session: http2.ClientHttp2Session, path: string): Promise<number> {
  const status = new Promise<number>((resolve, reject) => {
    const st = session.request({ ':path': path });
    st.on('response', (h) => resolve(Number(h[':status'])));
    st.on('error', reject);
    st.resume();
    st.end();
  });
  return bounded(status, BOUND_MS, `GET ${path} over HTTP/2`);
}

describe('connection guard', () => {
  let server: http2.Http2SecureServer;
  let port: number;
  /** Every connection the server accepted, so that a failed test cannot keep the server open. */
  const sockets = new Set<net.Socket>();
  before(async () => {
    const { certPem, keyPem } = await makeClientCert(await makeSigningCA(), 'localhost');
    server = http2.createSecureServer({ allowHTTP1: true, cert: certPem, key: keyPem, handshakeTimeout: MS }, (req, res) => {
      // A watch, as the API server serves one: its (empty) body is never read, the answer streams.
      if (req.url.startsWith('/watch')) return void res.writeHead(200).write('{}\n');
      // As the API server does, the answer comes once the body is in.
      req.resume();
      req.once('end', () => res.end('ok'));
    });
    guardConnections(server, { headersTimeoutMs: MS, idleTimeoutMs: MS, bodyTimeoutMs: MS });
    server.on('connection', (socket: net.Socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    const stopped = new Promise((resolve) => server.close(resolve));
    for (const socket of sockets) socket.destroy();
    await bounded(stopped, BOUND_MS, 'the test server stops');
  });

  const tlsConnect = (): Promise<tls.TLSSocket> =>
    bounded(
      new Promise((resolve, reject) => {
        const s = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] }, () => resolve(s));
        s.on('error', reject);
      }),
      BOUND_MS,
      'TLS handshake',
    );
  const closed = (s: net.Socket): Promise<void> => bounded(new Promise((resolve) => (s.destroyed ? resolve() : s.once('close', () => resolve()))), BOUND_MS, 'the server closes the connection');

  test('headers sent a byte at a time are cut off', async () => {
    const s = await tlsConnect();
    s.on('error', () => undefined);
    const request = 'GET / HTTP/1.1\r\nHost: localhost\r\nX-Slow: ' + 'a'.repeat(200) + '\r\n\r\n';
    let sent = 0;
    const trickle = setInterval(() => {
      if (!s.destroyed && sent < request.length) s.write(request[sent++]!);
    }, 20);
    try {
      await closed(s);
    } finally {
      clearInterval(trickle);
      s.destroy();
    }
    assert.ok(sent < request.length, `cut off after ${sent} of ${request.length} bytes`);
  });

  test('a connection that never starts TLS is closed', async () => {
    const s = net.connect(port, '127.0.0.1');
    s.on('error', () => undefined);
    await closed(s);
  });

  test('a request is served, and the idle kept-alive connection is closed afterwards', async () => {
    const s = await tlsConnect();
    let text = '';
    s.on('data', (c: Buffer) => (text += c.toString()));
    s.write('GET / HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await closed(s);
    assert.match(text, /^HTTP\/1\.1 200 /);
    assert.match(text, /\r\n\r\n(2\r\n)?ok/);
  });

  test('a body that stops coming gets 504 and the connection ends', async () => {
    const s = await tlsConnect();
    let text = '';
    s.on('data', (c: Buffer) => (text += c.toString()));
    s.write('POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 10\r\n\r\nab');
    await closed(s);
    assert.match(text, /^HTTP\/1\.1 504 /);
  });

  test('an HTTP/2 connection that opens no stream is closed', async () => {
    const session = http2.connect(`https://localhost:${port}`, { rejectUnauthorized: false });
    session.on('error', () => undefined);
    await bounded(new Promise((resolve) => session.once('close', resolve)), BOUND_MS, 'the server closes the HTTP/2 connection');
  });

  test('a burst of new connections all complete their handshakes through the handshake gate', async () => {
    // Far more than the gate starts per turn or runs at once: they queue, none is dropped.
    const sockets = await Promise.all(Array.from({ length: 150 }, () => tlsConnect()));
    assert.ok(sockets.every((s) => s.encrypted));
    for (const s of sockets) s.destroy();
  });

  test('an HTTP/2 connection with no open stream is closed after the idle timeout, pings notwithstanding', async () => {
    const session = http2.connect(`https://localhost:${port}`, { rejectUnauthorized: false });
    session.on('error', () => undefined);
    const closed = new Promise<void>((resolve) => session.once('close', resolve));
    assert.equal(await statusOf(session, '/'), 200);
    // Frames keep coming (Node's own session timeout would count them as activity); no stream opens.
    const pinger = setInterval(() => {
      if (!session.closed && !session.destroyed) session.ping(() => undefined);
    }, MS / 5);
    try {
      await bounded(closed, BOUND_MS, 'idle HTTP/2 connection closed');
    } finally {
      clearInterval(pinger);
      session.destroy();
    }
  });

  test('HTTP/2 is served', async () => {
    const session = http2.connect(`https://localhost:${port}`, { rejectUnauthorized: false });
    try {
      assert.equal(await statusOf(session, '/'), 200);
    } finally {
      session.close();
    }
  });

  test('an HTTP/2 watch whose END_STREAM came in a DATA frame after its HEADERS is not cut at the body deadline', async () => {
    const session = http2.connect(`https://localhost:${port}`, { rejectUnauthorized: false });
    session.on('error', () => undefined);
    try {
      for (const endStream of [true, false]) {
        const st = session.request({ ':path': '/watch' }, { endStream });
        if (!endStream) st.end(); // an empty DATA frame that ends the stream, as some clients send
        st.on('error', () => undefined);
        st.resume();
        let closed = false;
        st.once('close', () => (closed = true));
        await bounded(new Promise((resolve) => st.once('response', resolve)), BOUND_MS, 'the watch starts');
        // Well past the body deadline (MS): a late timer can only make this pass, never fail it.
        await new Promise((resolve) => setTimeout(resolve, 5 * MS));
        assert.equal(closed, false, `endStream in HEADERS: ${endStream}`);
        st.close();
      }
    } finally {
      session.destroy();
    }
  });
});
