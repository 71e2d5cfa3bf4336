// HTTP/2 idle close as Go's server does it (kube-apiserver's IdleTimeout, 90 s): a connection is
// closed (GOAWAY) only once it has had no open stream for the idle timeout; a connection whose
// only stream is a quiet watch stays open however long the watch is silent. The idle timeout is
// shortened here (the in-process server's option), so a regression shows in seconds, not minutes.
// And a watch is not bound by --request-timeout over HTTP/2 either (only its own lifetime).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { startInProcessServer } from './in-process-server.js';
import type { TestServer } from './harness.js';

const IDLE_MS = 2000;
const REQUEST_TIMEOUT_MS = 1000;
const SC = '/apis/networking.platform.io/v1/servicecidrs';
/** Generous bound on a close the server owes us: the idle timeout plus a loaded machine's lag. */
const CLOSE_BOUND_MS = IDLE_MS + 30_000;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function get(session: http2.ClientHttp2Session, path: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':path': path, authorization: `Bearer ${token}` }, { endStream: true });
    let status = 0;
    stream.on('response', (h) => (status = Number(h[':status'])));
    stream.resume();
    stream.on('end', () => resolve(status));
    stream.on('error', reject);
  });
}

describe('HTTP/2 idle close', () => {
  let server: TestServer;
  before(async () => {
    server = await startInProcessServer({ idleTimeoutMs: IDLE_MS, requestTimeoutMs: REQUEST_TIMEOUT_MS });
  });
  after(async () => {
    await server?.stop();
  });

  test('a quiet watch keeps its connection open past the idle timeout; once it ends, the connection is closed', async () => {
    const session = http2.connect(server.url, { ca: server.caCertPem });
    session.on('error', () => undefined);
    let goawayAt = 0;
    session.on('goaway', () => (goawayAt ||= Date.now()));
    const closed = new Promise<void>((resolve) => session.once('close', () => resolve()));
    try {
      const watch = session.request({ ':path': `${SC}?watch=true`, authorization: `Bearer ${server.token}` }, { endStream: true });
      watch.on('error', () => undefined);
      const data: string[] = [];
      watch.on('data', (c: Buffer) => data.push(c.toString()));
      const status = await new Promise<number>((resolve) => watch.once('response', (h) => resolve(Number(h[':status']))));
      assert.equal(status, 200);

      // Silent for three idle timeouts: no GOAWAY. (Fastify's own session timeout, which counts
      // any silence, sent one here after 72 s; src/http/server.ts turns it off.)
      await sleep(3 * IDLE_MS);
      assert.equal(goawayAt, 0, 'the connection got GOAWAY while a watch was open on it');
      assert.equal(watch.closed, false, 'the quiet watch was closed');
      assert.deepEqual(data, [], 'the watch was not quiet');
      // The connection still takes new streams.
      assert.equal(await get(session, SC, server.token), 200);

      // With no stream left open, the idle timeout applies.
      const ended = Date.now();
      watch.close();
      await Promise.race([closed, sleep(CLOSE_BOUND_MS).then(() => assert.fail(`the idle connection was not closed within ${CLOSE_BOUND_MS} ms`))]);
      assert.ok(goawayAt >= ended + IDLE_MS - 200, `GOAWAY came ${goawayAt - ended} ms after the last stream ended, before the ${IDLE_MS} ms idle timeout`);
    } finally {
      session.destroy();
    }
  });

  test('an HTTP/2 watch outlives --request-timeout, and a slow request body still gets the 504', async () => {
    const session = http2.connect(server.url, { ca: server.caCertPem });
    session.on('error', () => undefined);
    try {
      const watch = session.request({ ':path': `${SC}?watch=true`, authorization: `Bearer ${server.token}` }, { endStream: true });
      watch.on('error', () => undefined);
      assert.equal(await new Promise<number>((resolve) => watch.once('response', (h) => resolve(Number(h[':status'])))), 200);
      await sleep(3 * REQUEST_TIMEOUT_MS);
      assert.equal(watch.closed, false, 'the watch was cut at the request timeout');
      watch.close();

      // A body that never finishes is still bounded by the request timeout.
      const post = session.request({ ':method': 'POST', ':path': SC, authorization: `Bearer ${server.token}`, 'content-type': 'application/json' });
      post.on('error', () => undefined);
      post.write('{"apiVersion":');
      const status = await Promise.race([
        new Promise<number>((resolve) => post.once('response', (h) => resolve(Number(h[':status'])))),
        sleep(CLOSE_BOUND_MS).then(() => 0),
      ]);
      assert.equal(status, 504);
    } finally {
      session.destroy();
    }
  });
});
