// HttpReply on a real Node HTTP server: what send() writes for each kind of answer (the headers
// gathered, Content-Length, a bodiless status, HEAD), and that a sent or hijacked reply writes
// nothing more.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpReply, HttpRequest } from './exchange.js';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

describe('HttpReply', () => {
  let server: http.Server;
  let port: number;
  /** What the next request's handler does with its reply. */
  let act: (reply: HttpReply) => void = () => undefined;
  const seen: Buffer[] = [];
  before(async () => {
    server = http.createServer((raw, res) => {
      const req = new HttpRequest(raw);
      act(new HttpReply(res, req, performance.now(), (_reply, body) => seen.push(body)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const ask = (method: string, handler: (reply: HttpReply) => void): Promise<Answer> => {
    act = handler;
    return new Promise((resolve, reject) => {
      const r = http.request({ host: '127.0.0.1', port, method, path: '/x?y=1', agent: false }, (res) => {
        let body = '';
        res.setEncoding('latin1');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      });
      r.setTimeout(10_000, () => r.destroy(new Error('no answer')));
      r.on('error', reject);
      r.end();
    });
  };

  test('a body is sent with its length, the headers set on the reply, and application/octet-stream unless typed', async () => {
    seen.length = 0;
    const a = await ask('GET', (reply) => {
      assert.equal(reply.request.method, 'GET');
      assert.equal(reply.request.url, '/x?y=1');
      reply.code(201).header('Audit-Id', 'abc').header('X-Two', ['a', 'b']).send(Buffer.from('hello'));
      assert.equal(reply.sent, true);
    });
    assert.equal(a.status, 201);
    assert.equal(a.body, 'hello');
    assert.equal(a.headers['content-length'], '5');
    assert.equal(a.headers['content-type'], 'application/octet-stream');
    assert.equal(a.headers['audit-id'], 'abc');
    assert.equal(a.headers['x-two'], 'a, b');
    assert.deepEqual(seen.map(String), ['hello'], 'the send observer saw the body');
  });

  test('no body: Content-Length 0, except where HTTP allows none (204, 304)', async () => {
    const empty = await ask('GET', (reply) => reply.send());
    assert.deepEqual([empty.status, empty.headers['content-length'], empty.body], [200, '0', '']);
    const notModified = await ask('GET', (reply) => reply.code(304).header('ETag', '"e"').send());
    assert.deepEqual([notModified.status, notModified.headers['content-length'], notModified.headers.etag], [304, undefined, '"e"']);
    const noContent = await ask('GET', (reply) => reply.code(204).header('Content-Type', 'text/plain').send(Buffer.from('dropped')));
    assert.deepEqual([noContent.status, noContent.headers['content-length'], noContent.headers['content-type'], noContent.body], [204, undefined, undefined, '']);
  });

  test('HEAD gets the length of the body it does not get', async () => {
    const a = await ask('HEAD', (reply) => reply.header('Content-Type', 'application/json').send(Buffer.from('{"a":1}')));
    assert.deepEqual([a.status, a.headers['content-length'], a.headers['content-type'], a.body], [200, '7', 'application/json', '']);
  });

  test('headers can be read back and removed before sending; getHeaders includes the response’s own', async () => {
    const a = await ask('GET', (reply) => {
      reply.raw.setHeader('X-Raw', 'r');
      reply.header('X-Gone', 'g').header('Content-Type', 'text/plain');
      assert.equal(reply.getHeader('x-gone'), 'g');
      assert.equal(reply.getHeader('X-Raw'), 'r');
      assert.deepEqual(reply.getHeaders(), { 'x-raw': 'r', 'x-gone': 'g', 'content-type': 'text/plain' });
      reply.removeHeader('X-Gone').send(Buffer.from('ok'));
    });
    assert.equal(a.headers['x-gone'], undefined);
    assert.equal(a.headers['x-raw'], 'r');
  });

  test('a sent reply sends nothing more; a hijacked one leaves the response to its handler', async () => {
    const twice = await ask('GET', (reply) => {
      reply.code(200).send(Buffer.from('first'));
      reply.code(500).send(Buffer.from('second'));
    });
    assert.deepEqual([twice.status, twice.body], [200, 'first']);
    const hijacked = await ask('GET', (reply) => {
      reply.hijack();
      assert.equal(reply.sent, true);
      reply.send(Buffer.from('ignored'));
      reply.raw.writeHead(202, { 'content-type': 'text/plain' });
      reply.raw.end('by hand');
    });
    assert.deepEqual([hijacked.status, hijacked.body], [202, 'by hand']);
  });
});
