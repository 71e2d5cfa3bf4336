// An HTTP/1.1 connection's bookkeeping with stand-in socket and responses: what waits for the
// responses under way, and what a stop does to a busy and to an idle connection.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Http1Connection, NEW_CONNECTION_GRACE_MS } from './http1-connection.js';

function fakeSocket(): Socket & { closedSoon: number } {
  const s = { destroyed: false, closedSoon: 0, destroy() {}, destroySoon() { s.closedSoon++; } };
  return s as unknown as Socket & { closedSoon: number };
}
const response = (headersSent = false): ServerResponse => ({ headersSent, shouldKeepAlive: true }) as unknown as ServerResponse;

test('what waits for the responses under way runs after the last one, in order; at once on an idle connection', () => {
  const c = new Http1Connection(fakeSocket(), 60_000);
  const ran: string[] = [];
  c.afterResponses(() => ran.push('idle'));
  assert.deepEqual(ran, ['idle']);
  c.requestStarted(response());
  c.requestStarted(response());
  c.afterResponses(() => ran.push('a'));
  c.afterResponses(() => ran.push('b'));
  c.responseOver();
  assert.deepEqual(ran, ['idle']);
  c.responseOver();
  assert.deepEqual(ran, ['idle', 'a', 'b']);
  c.stop();
});

test('a stop: the newest response not yet begun stops keep-alive, and the connection closes once its responses are over', () => {
  const socket = fakeSocket();
  const c = new Http1Connection(socket, 60_000);
  const begun = response(true);
  const notBegun = response(false);
  c.requestStarted(begun);
  c.requestStarted(notBegun);
  c.shutdown();
  assert.equal(notBegun.shouldKeepAlive, false);
  assert.equal(begun.shouldKeepAlive, true, 'a response whose head is out is left alone');
  assert.equal(socket.closedSoon, 0);
  c.responseOver();
  c.responseOver();
  assert.equal(socket.closedSoon, 1);
  // A request arriving meanwhile is not kept alive either.
  const late = response();
  c.requestStarted(late);
  assert.equal(late.shouldKeepAlive, false);
  c.stop();
});

test('a stop closes an idle kept-alive connection at once; a new one (no request yet) once it is NEW_CONNECTION_GRACE_MS old', async () => {
  const kept = fakeSocket();
  const c = new Http1Connection(kept, 60_000);
  c.requestStarted(response());
  c.responseOver();
  c.shutdown();
  assert.equal(kept.closedSoon, 1);
  c.stop();

  const old = fakeSocket();
  const o = new Http1Connection(old, 60_000, performance.now() - NEW_CONNECTION_GRACE_MS);
  o.shutdown();
  assert.equal(old.closedSoon, 1);
  o.stop();

  // Accepted just under the grace ago: its first request may still come, so it is not closed yet.
  const young = fakeSocket();
  const y = new Http1Connection(young, 60_000, performance.now() - NEW_CONNECTION_GRACE_MS + 50);
  y.shutdown();
  assert.equal(young.closedSoon, 0);
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(young.closedSoon, 1);
  y.stop();
});

test('a new connection whose first request comes during the grace is served, not kept alive, and not closed under it', async () => {
  const socket = fakeSocket();
  const c = new Http1Connection(socket, 60_000, performance.now() - NEW_CONNECTION_GRACE_MS + 50);
  c.shutdown();
  const first = response();
  c.requestStarted(first);
  assert.equal(first.shouldKeepAlive, false);
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(socket.closedSoon, 0, 'not closed while its request is in flight');
  c.stop();
});
