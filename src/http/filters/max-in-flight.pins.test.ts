// A request whose client left before the in-flight filter ran (issue #35): its response is
// already closed, so a 'close' listener added now never runs, and the seats it takes must come
// back at once, on HTTP/1.1 (`closed`) and HTTP/2 (its stream closed or destroyed) alike.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveRequestInfo } from '../endpoints/request-info.js';
import { maxInFlightFilter } from './max-in-flight.js';
import type { RequestKind, RequestObserver } from '../../apimachinery/request-observer.js';
import { fakeExchange } from './test-state.js';

function recorder(): RequestObserver & { inflightNow: Record<RequestKind, number> } {
  const r = {
    inflightNow: { readOnly: 0, mutating: 0 },
    observe() {},
    longRunning() {},
    inflight(kind: RequestKind, delta: 1 | -1) {
      r.inflightNow[kind] += delta;
    },
    rejected() {},
  };
  return r;
}

const SC = '/apis/networking.platform.io/v1/servicecidrs';

/** A request whose response is over before any filter runs, as `raw` says it. */
function closedBeforeEnter(user: string, raw: Record<string, unknown>) {
  const x = fakeExchange({ method: 'GET', url: SC, user: { username: user, groups: [] } });
  x.state.info = resolveRequestInfo('GET', SC, new URLSearchParams());
  Object.assign(x.state.reply.raw, raw);
  return x;
}

for (const [transport, raw] of [
  ['HTTP/1.1', { closed: true }],
  ['HTTP/2, stream closed', { stream: { closed: true, destroyed: false } }],
  ['HTTP/2, stream destroyed', { stream: { closed: false, destroyed: true } }],
] as const) {
  test(`${transport}: a response closed before the filter ran gives its seat back at once`, async () => {
    const obs = recorder();
    const filter = maxInFlightFilter({ maxRequestsInflight: 1, maxMutatingRequestsInflight: 1 }, obs);
    await filter(closedBeforeEnter('gone', raw).state, async () => {});
    assert.equal(obs.inflightNow.readOnly, 0, 'no seat kept for a client that is gone');
    // The one seat is free for the next user: no 429.
    const next = fakeExchange({ method: 'GET', url: SC, user: { username: 'next', groups: [] } });
    next.state.info = resolveRequestInfo('GET', SC, new URLSearchParams());
    await filter(next.state, async () => {});
    assert.equal(obs.inflightNow.readOnly, 1);
  });
}

test('an open HTTP/2 stream keeps its seat until the response ends', async () => {
  const obs = recorder();
  const filter = maxInFlightFilter({ maxRequestsInflight: 1, maxMutatingRequestsInflight: 1 }, obs);
  const open = closedBeforeEnter('a', { stream: { closed: false, destroyed: false } });
  await filter(open.state, async () => {});
  assert.equal(obs.inflightNow.readOnly, 1);
  open.close();
  assert.equal(obs.inflightNow.readOnly, 0);
});
