// Overload protection through real HTTPS (HTTP/1.1 and HTTP/2): past --max-requests-inflight
// and --max-mutating-requests-inflight a request gets 429 with Retry-After at once, while
// watches, health checks and system:masters always get through; one user cannot take every
// slot; a request whose body does not arrive within --request-timeout gets 504; thousands of
// idle connections do not keep health checks out.
//
// A slot is held legitimately by an HTTP/2 client that opened no flow-control window: the
// server answers, but cannot send the body until the client reads, and a request holds its
// slot until its response is over (as kube's does until it is written).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http2 from 'node:http2';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { startServer, type TestServer } from './harness.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';
const RBAC = 'rbac.authorization.k8s.io';
const POLICY = `apiVersion: ${RBAC}/v1
kind: ClusterRole
metadata: {name: cidr-user}
rules: [{verbs: ["*"], apiGroups: [networking.platform.io], resources: [servicecidrs]}]
---
apiVersion: ${RBAC}/v1
kind: ClusterRoleBinding
metadata: {name: cidr-users}
roleRef: {apiGroup: ${RBAC}, kind: ClusterRole, name: cidr-user}
subjects: [{kind: User, name: alice}, {kind: User, name: bob}, {kind: User, name: carol}]
`;
const cidr = (name: string) => ({ apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name }, spec: { cidrs: ['10.55.0.0/24'] } });

/** A request whose answer stays unread: its headers arrive, its body cannot (no window). */
interface Held {
  status: number;
  release(): void;
}

function hold(server: TestServer, token: string, headers: http2.OutgoingHttpHeaders, body?: string): Promise<Held> {
  const session = http2.connect(server.url, { ca: server.caCertPem, settings: { initialWindowSize: 0 } });
  session.on('error', () => undefined);
  return new Promise((resolve, reject) => {
    const stream = session.request({ authorization: `Bearer ${token}`, ...headers });
    stream.on('error', () => undefined);
    stream.once('response', (h) => resolve({ status: Number(h[':status']), release: () => session.destroy() }));
    session.once('error', reject);
    stream.end(body);
  });
}

function h2(server: TestServer, token: string, headers: http2.OutgoingHttpHeaders, body?: string): Promise<{ status: number; headers: http2.IncomingHttpHeaders; json: any }> {
  const session = http2.connect(server.url, { ca: server.caCertPem });
  session.on('error', () => undefined);
  return new Promise<{ status: number; headers: http2.IncomingHttpHeaders; json: any }>((resolve, reject) => {
    const stream = session.request({ authorization: `Bearer ${token}`, ...headers });
    let text = '';
    let head: http2.IncomingHttpHeaders = {};
    stream.on('response', (h) => (head = h));
    stream.on('data', (c: Buffer) => (text += c.toString()));
    stream.on('end', () => resolve({ status: Number(head[':status']), headers: head, json: text.startsWith('{') ? JSON.parse(text) : undefined }));
    stream.on('error', reject);
    stream.end(body);
  }).finally(() => session.close());
}

const assert429 = (r: { status: number; headers: Record<string, unknown>; json: any }) => {
  assert.equal(r.status, 429);
  assert.equal(r.headers['retry-after'], '1');
  assert.equal(r.json.kind, 'Status');
  assert.equal(r.json.reason, 'TooManyRequests');
  assert.equal(r.json.message, 'Too many requests, please try again later.');
  assert.equal(r.json.details.retryAfterSeconds, 1);
};

/** The slot of a closed request is given back once the server sees the stream end: poll, bounded. */
async function eventually(what: string, attempt: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await attempt()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`never: ${what}`);
}

describe('overload protection', () => {
  let server: TestServer;
  let dir: string;
  const tok = (u: string) => ({ token: `${u}-token` });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'platform-overload-'));
    writeFileSync(join(dir, 'policy.yaml'), POLICY);
    writeFileSync(join(dir, 'tokens.csv'), ['alice', 'bob', 'carol'].map((u) => `${u}-token,${u},uid-${u}`).join('\n'));
    server = await startServer({
      args: ['--authorization-policy-file', join(dir, 'policy.yaml'), '--token-auth-file', join(dir, 'tokens.csv'), '--max-requests-inflight', '2', '--max-mutating-requests-inflight', '1'],
    });
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('read-only: 429 with Retry-After past the limit; watches, health, version and system:masters pass; a freed slot is used again', async () => {
    const a = await hold(server, 'alice-token', { ':path': SC });
    assert.equal(a.status, 200);
    // Half the pool is one user's share while others may want the rest.
    assert429(await server.request('GET', SC, tok('alice')));
    const b = await hold(server, 'bob-token', { ':path': SC });
    assert.equal(b.status, 200);
    try {
      assert429(await server.request('GET', SC, tok('carol')));
      assert429(await h2(server, 'carol-token', { ':path': SC }));
      assert.equal((await server.request('GET', '/readyz', { anonymous: true })).status, 200);
      assert.equal((await h2(server, 'carol-token', { ':path': '/healthz' })).status, 200);
      assert.equal((await server.request('GET', '/version', tok('carol'))).status, 200);
      assert.equal((await server.request('GET', SC)).status, 200, 'system:masters is never refused');
      assert.equal((await h2(server, server.token, { ':path': SC })).status, 200);
      const watch = await hold(server, 'carol-token', { ':path': `${SC}?watch=true` });
      assert.equal(watch.status, 200, 'a watch is not limited');
      watch.release();
      // Mutating requests have their own pool.
      const created = await server.request('POST', SC, { ...tok('carol'), body: cidr('overload-c') });
      assert.equal(created.status, 201, created.text);
    } finally {
      a.release();
      b.release();
    }
    await eventually('carol is served once the slots are back', async () => (await server.request('GET', SC, tok('carol'))).status === 200);
  });

  test('mutating: 429 past --max-mutating-requests-inflight, on both protocols', async () => {
    const a = await hold(server, 'alice-token', { ':method': 'POST', ':path': SC, 'content-type': 'application/json' }, JSON.stringify(cidr('overload-a')));
    assert.equal(a.status, 201);
    try {
      assert429(await server.request('POST', SC, { ...tok('bob'), body: cidr('overload-b') }));
      assert429(await h2(server, 'bob-token', { ':method': 'DELETE', ':path': `${SC}/overload-a` }));
      assert.equal((await server.request('GET', `${SC}/overload-b`)).status, 404, 'a refused write leaves nothing behind');
      assert.equal((await server.request('GET', SC, tok('bob'))).status, 200, 'reads are not in the mutating pool');
      assert.equal((await server.request('POST', SC, { body: cidr('overload-admin') })).status, 201, 'system:masters is never refused');
    } finally {
      a.release();
    }
    await eventually('bob writes once the slot is back', async () => (await server.request('POST', SC, { ...tok('bob'), body: cidr('overload-b') })).status === 201);
  });

  test('requests whose HTTP/2 client left while they waited for their turn give their slots back', async () => {
    // A burst bigger than one turn's budget (turn-budget.ts): most requests wait for later turns,
    // and the client is gone before they start. Node's HTTP/2 response has no `closed`: a check
    // of it alone let such requests take a slot whose 'close' had already passed, for good.
    for (let round = 0; round < 3; round++) {
      const session = http2.connect(server.url, { ca: server.caCertPem });
      session.on('error', () => undefined);
      await new Promise<void>((resolve) => session.once('connect', () => resolve()));
      for (let i = 0; i < 40; i++) session.request({ ':path': SC, authorization: 'Bearer alice-token' }).on('error', () => undefined);
      session.destroy();
    }
    await eventually('alice is served once the streams are gone', async () => (await server.request('GET', SC, tok('alice'))).status === 200);
    await eventually('bob is served too', async () => (await h2(server, 'bob-token', { ':path': SC })).status === 200);
  });

  test('2,000 idle connections do not keep a health check or a client out', async () => {
    const sockets: net.Socket[] = [];
    try {
      await Promise.all(
        Array.from({ length: 2000 }, () =>
          new Promise<void>((resolve) => {
            const s = net.connect(server.port, '127.0.0.1', () => resolve());
            s.on('error', () => resolve());
            sockets.push(s);
          }),
        ),
      );
      assert.equal((await server.request('GET', '/readyz', { anonymous: true })).status, 200);
      assert.equal((await h2(server, 'alice-token', { ':path': SC })).status, 200);
    } finally {
      for (const s of sockets) s.destroy();
    }
  });
});

describe('load shedding on event-loop delay', () => {
  let server: TestServer;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'platform-shed-'));
    writeFileSync(join(dir, 'policy.yaml'), POLICY);
    writeFileSync(join(dir, 'tokens.csv'), 'alice-token,alice,uid-alice\nbob-token,bob,uid-bob\n');
    // No in-flight limit: any 429 here is the shedding's. A 1 ms threshold: a burst of
    // hundreds of requests handled in one event-loop turn is past it.
    server = await startServer({
      args: ['--authorization-policy-file', join(dir, 'policy.yaml'), '--token-auth-file', join(dir, 'tokens.csv'), '--max-requests-inflight', '0', '--max-mutating-requests-inflight', '0', '--max-event-loop-delay', '1ms'],
    });
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** `count` GETs on one HTTP/2 connection at once; their statuses and one 429's answer. */
  async function burst(token: string, count: number): Promise<{ statuses: number[]; refused?: { headers: http2.IncomingHttpHeaders; json: any } }> {
    const session = http2.connect(server.url, { ca: server.caCertPem });
    session.on('error', () => undefined);
    try {
      let refused: { headers: http2.IncomingHttpHeaders; json: any } | undefined;
      const statuses = await Promise.all(
        Array.from({ length: count }, () =>
          new Promise<number>((resolve, reject) => {
            const stream = session.request({ ':path': SC, authorization: `Bearer ${token}` });
            let head: http2.IncomingHttpHeaders = {};
            let text = '';
            stream.on('response', (h) => (head = h));
            stream.on('data', (c: Buffer) => (text += c.toString()));
            stream.on('end', () => {
              const status = Number(head[':status']);
              if (status === 429) refused ??= { headers: head, json: JSON.parse(text) };
              resolve(status);
            });
            stream.on('error', reject);
            stream.end();
          }),
        ),
      );
      return { statuses, refused };
    } finally {
      session.close();
    }
  }

  test('a flood from one user gets 429 with Retry-After while /readyz, another user and system:masters are answered', async () => {
    let refused: { headers: http2.IncomingHttpHeaders; json: any } | undefined;
    // Bounded: a few bursts of 400 requests at once, until the event loop lagged during one.
    for (let round = 0; round < 5 && !refused; round++) {
      const [flood, readyz, other, admin] = await Promise.all([
        burst('alice-token', 400),
        server.request('GET', '/readyz', { anonymous: true }),
        server.request('GET', `${SC}/absent`, { token: 'bob-token' }),
        h2(server, server.token, { ':path': SC }),
      ]);
      assert.ok(flood.statuses.every((c) => c === 200 || c === 429), `only 200 and 429: ${[...new Set(flood.statuses)]}`);
      assert.ok(flood.statuses.includes(200), 'the flood is served up to its allowance');
      assert.equal(readyz.status, 200, 'health checks are never shed');
      assert.equal(admin.status, 200, 'system:masters is never shed');
      assert.equal(other.status, 404, 'a user sending one request is served');
      refused = flood.refused;
    }
    assert.ok(refused, 'some of the flood was shed');
    assert.equal(refused.headers['retry-after'], '1');
    assert.equal(refused.json.kind, 'Status');
    assert.equal(refused.json.reason, 'TooManyRequests');
    assert.equal(refused.json.details.retryAfterSeconds, 1);
  });
});

describe('request timeout', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ args: ['--request-timeout', '1s'] });
  });
  after(async () => {
    await server?.stop();
  });

  test('a body still not in after --request-timeout gets 504 Timeout and the connection ends (HTTP/1.1)', async () => {
    const out = await new Promise<string>((resolve, reject) => {
      const socket = tls.connect({ host: '127.0.0.1', port: server.port, ca: server.caCertPem, servername: 'localhost', ALPNProtocols: ['http/1.1'] }, () => {
        // Headers at once, then one byte of a 100-byte body, and nothing more.
        socket.write(`POST ${SC} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${server.token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`);
      });
      let text = '';
      socket.on('data', (c: Buffer) => (text += c.toString()));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
      socket.setTimeout(30_000, () => socket.destroy(new Error('not cut off')));
    });
    assert.match(out, /^HTTP\/1\.1 504 /);
    const status = JSON.parse(out.slice(out.indexOf('\r\n\r\n') + 4)) as { reason: string; message: string };
    assert.equal(status.reason, 'Timeout');
    assert.equal(status.message, 'Timeout: request did not complete within the allotted timeout');
  });

  test('a request past its own ?timeout= gets 504; an unparsable ?timeout= is a 400 (HTTP/1.1 and HTTP/2)', async () => {
    // 1ns is over before the request reaches its handler: the answer cannot be anything else.
    const r = await server.request('GET', `${SC}?timeout=1ns`);
    assert.equal(r.status, 504);
    assert.equal(r.json.message, 'Timeout: request did not complete within the allotted timeout');
    const h = await h2(server, server.token, { ':method': 'POST', ':path': `${SC}?timeout=1ns`, 'content-type': 'application/json' }, JSON.stringify(cidr('never-written')));
    assert.equal(h.status, 504);
    assert.equal((await server.request('GET', `${SC}/never-written`)).status, 404, 'the abandoned write never started');
    const bad = await server.request('GET', `${SC}?timeout=soon`);
    assert.equal(bad.status, 400);
    assert.equal(bad.json.message, 'invalid timeout specified in the request URL - time: invalid duration "soon"');
    assert.equal((await server.request('GET', `${SC}?timeout=30s`)).status, 200);
  });

  test('a late body over HTTP/2: the stream gets 504, the connection serves on', async () => {
    const session = http2.connect(server.url, { ca: server.caCertPem });
    session.on('error', () => undefined);
    try {
      const r = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const stream = session.request({ ':method': 'POST', ':path': SC, authorization: `Bearer ${server.token}`, 'content-type': 'application/json', 'content-length': '100' });
        let status = 0;
        let text = '';
        stream.on('response', (h) => (status = Number(h[':status'])));
        stream.on('data', (c: Buffer) => (text += c.toString()));
        stream.on('close', () => resolve({ status, text }));
        stream.on('error', reject);
        stream.write('{');
      });
      assert.equal(r.status, 504);
      assert.equal(JSON.parse(r.text).reason, 'Timeout');
      const next = await new Promise<number>((resolve, reject) => {
        const stream = session.request({ ':path': '/readyz' });
        stream.on('response', (h) => resolve(Number(h[':status'])));
        stream.on('error', reject);
        stream.resume();
        stream.end();
      });
      assert.equal(next, 200);
    } finally {
      session.close();
    }
  });
});
