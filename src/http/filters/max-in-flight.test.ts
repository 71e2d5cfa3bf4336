import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError } from '../../apimachinery/status-error.js';
import { resolveRequestInfo } from '../endpoints/request-info.js';
import { InflightPool } from './inflight-pool.js';
import { maxInFlightFilter } from './max-in-flight.js';
import { noteListed, WorkEstimator } from './work-estimate.js';
import type { RequestKind, RequestObserver } from '../../apimachinery/request-observer.js';
import { fakeExchange } from './test-state.js';

function recorder(): RequestObserver & { inflightNow: Record<RequestKind, number>; rejections: RequestKind[] } {
  const r = {
    inflightNow: { readOnly: 0, mutating: 0 },
    rejections: [] as RequestKind[],
    observe() {},
    longRunning() {},
    inflight(kind: RequestKind, delta: 1 | -1) {
      r.inflightNow[kind] += delta;
    },
    rejected(kind: RequestKind) {
      r.rejections.push(kind);
    },
  };
  return r;
}

const exchange = (method: string, url: string, user = 'alice', groups: string[] = []) => {
  const x = fakeExchange({ method, url, user: { username: user, groups } });
  const u = new URL(url, 'https://x');
  x.state.query = u.searchParams;
  x.state.info = resolveRequestInfo(method, u.pathname, u.searchParams);
  x.state.longRunning = x.state.info.verb === 'watch';
  return x;
};
const SC = '/apis/networking.platform.io/v1/servicecidrs';
const is429 = (e: unknown) =>
  isStatusError(e) && e.status.code === 429 && e.status.reason === 'TooManyRequests' && e.status.details?.retryAfterSeconds === 1 && e.status.message === 'Too many requests, please try again later.';

test('past the limit of its kind a request is refused at once with 429; a finished one frees its slot', async () => {
  const obs = recorder();
  const filter = maxInFlightFilter({ maxRequestsInflight: 2, maxMutatingRequestsInflight: 1 }, obs);
  const pass = async () => {};
  const held = [exchange('GET', SC, 'a'), exchange('GET', `${SC}/x`, 'b')];
  for (const x of held) await filter(x.state, pass);
  assert.equal(obs.inflightNow.readOnly, 2);
  await assert.rejects(filter(exchange('GET', SC, 'c').state, pass), is429);
  // The mutating pool is separate.
  const write = exchange('POST', SC, 'c');
  await filter(write.state, pass);
  await assert.rejects(filter(exchange('DELETE', `${SC}/x`, 'd').state, pass), is429);
  assert.deepEqual(obs.rejections, ['readOnly', 'mutating']);
  held[0]!.close();
  assert.equal(obs.inflightNow.readOnly, 1);
  await filter(exchange('GET', SC, 'c').state, pass);
});

test('watches, health and version paths, and system:masters are never refused', async () => {
  const filter = maxInFlightFilter({ maxRequestsInflight: 1, maxMutatingRequestsInflight: 1 }, recorder());
  const pass = async () => {};
  await filter(exchange('GET', SC, 'a').state, pass);
  let passed = 0;
  const count = async () => void passed++;
  await filter(exchange('GET', `${SC}?watch=true`, 'b').state, count);
  const health = exchange('GET', '/readyz', 'b');
  health.state.isPublic = true;
  await filter(health.state, count);
  await filter(exchange('GET', SC, 'root', ['system:masters']).state, count);
  assert.equal(passed, 3);
});

test('a limit of 0 is no limit: many requests of one user in flight at once all pass', async () => {
  const filter = maxInFlightFilter({ maxRequestsInflight: 0, maxMutatingRequestsInflight: 0 }, recorder());
  let entered = 0;
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const handler = async (): Promise<void> => {
    entered++;
    await gate;
  };
  // Every request is still in its handler (and its response open) when the next arrives.
  const running = [...Array(20)].flatMap(() => [filter(exchange('GET', SC).state, handler), filter(exchange('POST', SC).state, handler)]);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(entered, 40, 'all 40 in flight together');
  open();
  await Promise.all(running);
});

test("the pool is picked by kube's read-only verbs: get, list and watch; a non-resource HEAD counts as mutating", async () => {
  const obs = recorder();
  const filter = maxInFlightFilter({ maxRequestsInflight: 1, maxMutatingRequestsInflight: 1 }, obs);
  const pass = async () => {};
  await filter(exchange('GET', SC, 'a').state, pass);
  await filter(exchange('HEAD', '/openapi/v2', 'b').state, pass);
  assert.deepEqual(obs.inflightNow, { readOnly: 1, mutating: 1 });
  await assert.rejects(filter(exchange('POST', SC, 'c').state, pass), is429);
  assert.deepEqual(obs.rejections, ['mutating']);
});

test('one user cannot take the whole pool from the others', () => {
  const pool = new InflightPool(4);
  assert.equal(pool.tryAcquire('noisy'), true);
  assert.equal(pool.tryAcquire('noisy'), true);
  assert.equal(pool.tryAcquire('noisy'), false, 'half the pool is the share of one user once half is used');
  assert.equal(pool.tryAcquire('quiet'), true);
  assert.equal(pool.tryAcquire('other'), true);
  assert.equal(pool.tryAcquire('other2'), false, 'the pool is full');
  pool.release('noisy');
  pool.release('quiet');
  pool.release('other');
  assert.equal(pool.inUse, 1);
  assert.equal(pool.tryAcquire('noisy'), true, 'alone, a user may use its share again');
});

test('a wide request takes several seats, never more than one user share', () => {
  const pool = new InflightPool(20);
  assert.equal(pool.seatsFor(10), 10);
  assert.equal(pool.seatsFor(0), 1);
  assert.equal(new InflightPool(2).seatsFor(10), 1, 'a small pool still serves a wide list when idle');
  assert.equal(pool.tryAcquire('a', 10), true);
  assert.equal(pool.tryAcquire('a', 1), false, 'a holds its share of 10 seats and half the pool is used');
  assert.equal(pool.tryAcquire('b', 10), true);
  assert.equal(pool.tryAcquire('c', 1), false, 'the pool is full');
  pool.release('a', 10);
  assert.equal(pool.inUse, 10);
  assert.equal(pool.tryAcquire('c', 10), true);
});

test('seats not given back by the request deadline are taken back, and the response cut off', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const obs = recorder();
  const filter = maxInFlightFilter({ maxRequestsInflight: 2, maxMutatingRequestsInflight: 1 }, obs, undefined, 10_000);
  const stuck = exchange('GET', SC, 'a');
  let cutOff = 0;
  Object.assign(stuck.state.reply.raw, { destroy: () => void cutOff++ });
  await filter(stuck.state, async () => {});
  const done = exchange('GET', SC, 'b');
  await filter(done.state, async () => {});
  done.close();
  t.mock.timers.tick(9_000);
  assert.equal(obs.inflightNow.readOnly, 1, 'held until the deadline');
  t.mock.timers.tick(1_000);
  assert.equal(obs.inflightNow.readOnly, 0);
  assert.equal(cutOff, 1, 'the response that never ended is cut off');
  stuck.close();
  assert.equal(obs.inflightNow.readOnly, 0, 'a late close gives nothing back twice');
});

test('a list of many objects holds more seats: after a list of 950 objects the next takes 10 of the pool', async () => {
  const filter = maxInFlightFilter({ maxRequestsInflight: 20, maxMutatingRequestsInflight: 1 }, recorder());
  // A list reporting 950 objects teaches the estimate; it ends at once.
  const first = exchange('GET', SC, 'a');
  await filter(first.state, async () => noteListed(first.state.req, 950));
  first.close();
  const big = [exchange('GET', SC, 'a'), exchange('GET', SC, 'b')];
  for (const x of big) await filter(x.state, async () => {});
  // 20 seats held by two lists: even a get is refused now.
  await assert.rejects(filter(exchange('GET', `${SC}/x`, 'c').state, async () => {}), is429);
  big[0]!.close();
  await filter(exchange('GET', `${SC}/x`, 'c').state, async () => {});
  // A limited list is narrower: limit=100 is one seat.
  await filter(exchange('GET', `${SC}?limit=100`, 'd').state, async () => {});
});

test('without a seat deadline seats are held until the response is over, however long; the cut-off is logged', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const obs = recorder();
  const filter = maxInFlightFilter({ maxRequestsInflight: 2, maxMutatingRequestsInflight: 1 }, obs, undefined, 0);
  const stuck = exchange('GET', SC, 'a');
  await filter(stuck.state, async () => {});
  t.mock.timers.tick(3_600_000);
  assert.equal(obs.inflightNow.readOnly, 1);
  stuck.close();
  assert.equal(obs.inflightNow.readOnly, 0);

  const warned: unknown[] = [];
  const timed = maxInFlightFilter({ maxRequestsInflight: 2, maxMutatingRequestsInflight: 1 }, obs, undefined, 1000);
  const late = exchange('GET', SC, 'slowpoke');
  Object.assign(late.state.reply.raw, { destroy() {} });
  late.state.logger = { ...late.state.logger, warn: (obj: unknown, msg?: string) => void warned.push([obj, msg]) };
  await timed(late.state, async () => {});
  t.mock.timers.tick(1000);
  assert.deepEqual(warned, [[{ path: '', user: 'slowpoke' }, 'response still not over past the request timeout: cut off, its in-flight seats taken back']]);
});

test('every list teaches the estimator, limited or not', async () => {
  const estimator = new WorkEstimator();
  const filter = maxInFlightFilter({ maxRequestsInflight: 0, maxMutatingRequestsInflight: 0 }, recorder(), estimator);
  const list = exchange('GET', SC, 'a');
  await filter(list.state, async () => noteListed(list.state.req, 950));
  const next = exchange('GET', SC, 'a');
  assert.equal(estimator.seats(next.state.info, next.state.query), 10);
});
