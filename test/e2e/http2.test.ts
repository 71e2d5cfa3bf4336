// HTTP/2 on the same port as HTTP/1.1 (kubectl and client-go negotiate it, and multiplex their
// watches over one connection): requests, a watch stream, impersonation with repeated headers,
// and a shutdown that does not wait for idle connections.

// The ServiceCIDR controller's own writes (finalizer, Ready) are tested in controllers.test.ts; these
// tests pin API behaviour exactly (events, managedFields, finalizers), so it is off here.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { startServer, type TestServer } from './harness.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';

function connect(server: TestServer): http2.ClientHttp2Session {
  const session = http2.connect(server.url, { ca: server.caCertPem });
  session.on('error', () => undefined);
  return session;
}

function request(session: http2.ClientHttp2Session, headers: http2.OutgoingHttpHeaders, body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const stream = session.request(headers);
    let status = 0;
    let text = '';
    stream.on('response', (h) => (status = Number(h[':status'])));
    stream.on('data', (c: Buffer) => (text += c.toString()));
    stream.on('end', () => resolve({ status, text }));
    stream.on('error', reject);
    stream.end(body);
  });
}

describe('HTTP/2', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ args: ['--controllers=-service-cidr-controller'] });
  });
  after(async () => {
    await server?.stop();
  });

  test('is negotiated by ALPN; many requests and a watch share one connection', async () => {
    const session = connect(server);
    try {
      const auth = { authorization: `Bearer ${server.token}` };
      const events: string[] = [];
      const watch = session.request({ ':path': `${SC}?watch=true&resourceVersion=0&labelSelector=h2%3Dyes`, ...auth });
      await new Promise<void>((resolve) => watch.once('response', () => resolve()));
      let buffered = '';
      watch.on('data', (c: Buffer) => {
        buffered += c.toString();
        for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
          const e = JSON.parse(buffered.slice(0, nl)) as { type: string; object: { metadata: { name: string } } };
          events.push(`${e.type} ${e.object.metadata.name}`);
          buffered = buffered.slice(nl + 1);
        }
      });
      assert.equal(session.alpnProtocol, 'h2');
      const created = await Promise.all(
        ['a', 'b', 'c'].map((n) =>
          request(
            session,
            { ':method': 'POST', ':path': SC, 'content-type': 'application/json', ...auth },
            JSON.stringify({ apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: `h2-${n}`, labels: { h2: 'yes' } }, spec: { cidrs: ['10.80.0.0/24'] } }),
          ),
        ),
      );
      assert.deepEqual(created.map((r) => r.status), [201, 201, 201]);
      for (let i = 0; i < 100 && events.length < 3; i++) await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(events.sort(), ['ADDED h2-a', 'ADDED h2-b', 'ADDED h2-c']);
      watch.close();
    } finally {
      session.close();
    }
  });

  test('impersonation reads each repeated Impersonate-Group header', async () => {
    const session = connect(server);
    try {
      const review = JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
      const r = await request(
        session,
        {
          ':method': 'POST',
          ':path': '/apis/authentication.k8s.io/v1/selfsubjectreviews',
          'content-type': 'application/json',
          authorization: `Bearer ${server.token}`,
          'impersonate-user': 'alice',
          'impersonate-group': ['team-a', 'team-b'],
        },
        review,
      );
      assert.equal(r.status, 201, r.text);
      const user = (JSON.parse(r.text) as { status: { userInfo: { username: string; groups: string[] } } }).status.userInfo;
      assert.equal(user.username, 'alice');
      assert.deepEqual(user.groups, ['team-a', 'team-b', 'system:authenticated']);
    } finally {
      session.close();
    }
  });

  test('a shutdown does not wait for an idle connection: its watches end and it is closed', async () => {
    const own = await startServer({ args: ['--controllers=-service-cidr-controller'] });
    const session = connect(own);
    const closed = new Promise<void>((resolve) => session.once('close', () => resolve()));
    const watch = session.request({ ':path': `${SC}?watch=true`, authorization: `Bearer ${own.token}` });
    await new Promise<void>((resolve) => watch.once('response', () => resolve()));
    const ended = new Promise<void>((resolve) => watch.once('end', () => resolve()));
    watch.resume();
    const started = Date.now();
    await own.stop();
    await Promise.all([ended, closed]);
    // The harness kills a server that has not exited after 15 s; a graceful stop takes a few.
    assert.ok(Date.now() - started < 10_000, `stopped in ${Date.now() - started} ms`);
  });
});
