// The per-connection request limits with a stand-in session: how many requests start at once in
// a turn, and when a connection is ended.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { constants, type Http2Session } from 'node:http2';
import { HandlerLimit, REFUSED, START_NEXT_TURN, START_NOW } from './handler-limit.js';

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function fakeSession(): Http2Session & { endedWith?: number } {
  const s = {
    destroyed: false,
    endedWith: undefined as number | undefined,
    destroy(_err: Error, code: number) {
      s.destroyed = true;
      s.endedWith = code;
    },
  };
  return s as unknown as Http2Session & { endedWith?: number };
}

test('the first requests of a turn start at once, the rest in the next turn; a new turn starts afresh', async () => {
  const limit = new HandlerLimit(100, 2);
  const s = fakeSession();
  assert.deepEqual([limit.start(s), limit.start(s), limit.start(s)], [START_NOW, START_NOW, START_NEXT_TURN]);
  await turn();
  assert.equal(limit.start(s), START_NOW);
});

test('past maxRunning requests in the request path the connection is ended with ENHANCE_YOUR_CALM; a request over frees its place', async () => {
  const limit = new HandlerLimit(3, 100);
  const s = fakeSession();
  for (let i = 0; i < 3; i++) assert.notEqual(limit.start(s), REFUSED);
  limit.over(s);
  assert.notEqual(limit.start(s), REFUSED);
  assert.equal(s.destroyed, false);
  assert.equal(limit.start(s), REFUSED);
  assert.equal(s.endedWith, constants.NGHTTP2_ENHANCE_YOUR_CALM);
});
