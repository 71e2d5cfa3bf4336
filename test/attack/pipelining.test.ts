// Pipelining with a malformed follower (issue #29): a POST and `GARBAGE\r\n\r\n` in one packet get
// the POST's answer first, then the 400 Status, then the connection is closed (Go's order), on
// 8 connections doing it over and over while another client is served.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../e2e/harness.js';
import { expectServed } from './support/expect.js';
import { pipelinedMalformed } from './scenarios/pipelining.js';

describe('pipelining with a malformed follower', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(async () => {
    await server?.stop();
  });

  test("the POST's 201 comes first, then the 400 Status; every POST answered is stored", { timeout: 120_000 }, async () => {
    const x = await pipelinedMalformed(server, { connections: 8, durationMs: 5000 });
    assert.ok(x.connections.length >= 8);
    for (const c of x.connections) {
      const codes = c.responses.map((r) => r.status);
      assert.deepEqual(codes, [201, 400], `${c.name}: responses ${JSON.stringify(c.responses.map((r) => ({ status: r.status, body: r.body.slice(0, 200) })))}`);
      const [created, bad] = c.responses as [(typeof c.responses)[0], (typeof c.responses)[0]];
      assert.equal(JSON.parse(created.body).metadata.name, c.name);
      const status = JSON.parse(bad.body);
      assert.equal(status.kind, 'Status');
      assert.equal(status.code, 400);
      assert.equal(bad.headers.connection, 'close');
      assert.ok(c.closedByServer, `${c.name}: the connection stayed open after the 400`);
    }
    const list = await server.request('GET', '/apis/networking.platform.io/v1/servicecidrs');
    const stored = new Set((list.json.items as { metadata: { name: string } }[]).map((i) => i.metadata.name));
    assert.deepEqual(x.connections.filter((c) => !stored.has(c.name)).map((c) => c.name), []);
    expectServed(x, { p99DuringMs: 2000, p99AfterMs: 1000, fdsAfterOverBaseline: 5 });
  });
});
