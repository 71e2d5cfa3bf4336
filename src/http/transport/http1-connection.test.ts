// An HTTP/1.1 connection's bookkeeping with stand-in socket and responses: what waits for the
// responses under way, and what a stop does to a busy and to an idle connection.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Http1Connection } from './http1-connection.js';

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

test('a stop closes an idle connection at once', () => {
  const socket = fakeSocket();
  const c = new Http1Connection(socket, 60_000);
  c.shutdown();
  assert.equal(socket.closedSoon, 1);
  c.stop();
});
