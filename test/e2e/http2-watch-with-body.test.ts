// An HTTP/2 watch (a GET) whose client sends a body anyway, `{}` in a DATA frame (some clients
// do): the body is never read, as Go never reads a GET's body, and the watch lasts as long as
// any watch, not --request-timeout. Before the fix the body deadline waited for a body nobody
// read to end, and cut the watch at the request timeout (issue #29).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { startInProcessServer } from './in-process-server.js';
import type { TestServer } from './harness.js';

const REQUEST_TIMEOUT_MS = 1000;
const SC = '/apis/networking.platform.io/v1/servicecidrs';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('an HTTP/2 watch sent with a body', () => {
  let server: TestServer;
  before(async () => {
    server = await startInProcessServer({ requestTimeoutMs: REQUEST_TIMEOUT_MS });
  });
  after(async () => {
    await server?.stop();
  });

  for (const ended of [true, false]) {
    test(`a DATA frame {} ${ended ? 'ending' : 'not ending'} the stream: the watch outlives --request-timeout and sees an event made after it`, async () => {
      const session = http2.connect(server.url, { ca: server.caCertPem });
      session.on('error', () => undefined);
      try {
        // Node ends a GET's stream with its HEADERS frame unless told not to.
        const watch = session.request({ ':path': `${SC}?watch=true`, authorization: `Bearer ${server.token}`, 'content-type': 'application/json' }, { endStream: false });
        watch.on('error', () => undefined);
        let text = '';
        watch.on('data', (c: Buffer) => (text += c.toString()));
        if (ended) watch.end('{}');
        else watch.write('{}');
        assert.equal(await new Promise<number>((resolve) => watch.once('response', (h) => resolve(Number(h[':status'])))), 200);
        await sleep(3 * REQUEST_TIMEOUT_MS);
        assert.equal(watch.closed, false, 'the watch was cut at the request timeout');
        const name = `after-timeout-${ended ? 'ended' : 'open'}`;
        const created = await server.request('POST', SC, { body: { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name }, spec: { cidrs: ['10.91.0.0/24'] } } });
        assert.equal(created.status, 201);
        for (let i = 0; i < 100 && !text.includes(`"name":"${name}"`); i++) await sleep(100);
        assert.ok(text.includes(`"name":"${name}"`), `the watch delivers an event made after the request timeout; it got: ${text.slice(0, 300)}`);
        watch.close();
      } finally {
        session.destroy();
      }
    });
  }
});
