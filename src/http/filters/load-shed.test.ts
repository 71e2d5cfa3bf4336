import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError } from '../../apimachinery/status-error.js';
import { noopRequestObserver } from '../../apimachinery/request-observer.js';
import { EventLoopLag } from '../transport/event-loop-lag.js';
import { resolveRequestInfo } from '../endpoints/request-info.js';
import { loadShedFilter, SHED_SEATS_PER_USER } from './load-shed.js';
import { fakeExchange } from './test-state.js';
import { noteListed, WorkEstimator } from './work-estimate.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';
const exchange = (method: string, url: string, user = 'alice', groups: string[] = []) => {
  const x = fakeExchange({ method, url, user: { username: user, groups } });
  const u = new URL(url, 'https://x');
  x.state.query = u.searchParams;
  x.state.info = resolveRequestInfo(method, u.pathname, u.searchParams);
  return x;
};
const is429 = (e: unknown) => isStatusError(e) && e.status.code === 429 && e.status.reason === 'TooManyRequests' && e.status.details?.retryAfterSeconds === 1;

function setup(estimator = new WorkEstimator()) {
  const clock = { now: 0, lag: 0 };
  let rejected = 0;
  const filter = loadShedFilter({ maxDelayMs: 100, lag: () => clock.lag, estimator, observer: { ...noopRequestObserver, rejected: () => void rejected++ }, now: () => clock.now, rejectDelayMs: 0 });
  let served = 0;
  const send = (method: string, url: string, user = 'alice', groups: string[] = []) => filter(exchange(method, url, user, groups).state, async () => void served++);
  return { clock, send, served: () => served, rejected: () => rejected };
}

test('while the event loop lags, a user past its allowance of seats per second gets 429; a light user is served', async () => {
  const s = setup();
  s.clock.lag = 500;
  for (let i = 0; i < SHED_SEATS_PER_USER; i++) await s.send('POST', SC, 'storm');
  await assert.rejects(s.send('POST', SC, 'storm'), is429);
  await assert.rejects(s.send('GET', SC, 'storm'), is429);
  await s.send('GET', `${SC}/x`, 'prober');
  assert.equal(s.served(), SHED_SEATS_PER_USER + 1);
  assert.equal(s.rejected(), 2);
  // A new second: a new allowance.
  s.clock.now += 1000;
  await s.send('POST', SC, 'storm');
});

test('without lag nothing is shed, however many requests; lag then sheds the user that sent them', async () => {
  const s = setup();
  for (let i = 0; i < 3 * SHED_SEATS_PER_USER; i++) await s.send('GET', SC, 'storm');
  assert.equal(s.served(), 3 * SHED_SEATS_PER_USER);
  s.clock.lag = 101;
  await assert.rejects(s.send('GET', SC, 'storm'), is429);
  s.clock.lag = 100;
  await s.send('GET', SC, 'storm');
});

test('health and version paths and system:masters are never shed', async () => {
  const s = setup();
  s.clock.lag = 10_000;
  for (let i = 0; i < 2 * SHED_SEATS_PER_USER; i++) await s.send('GET', SC, 'root', ['system:masters']);
  const health = exchange('GET', '/readyz', 'storm');
  health.state.isPublic = true;
  for (let i = 0; i < 2 * SHED_SEATS_PER_USER; i++) await loadShedFilter({ maxDelayMs: 1, lag: () => 10_000, estimator: new WorkEstimator(), observer: noopRequestObserver, rejectDelayMs: 0 })(health.state, async () => {});
  assert.equal(s.served(), 2 * SHED_SEATS_PER_USER);
});

test('wide lists use the allowance faster', async () => {
  const estimator = new WorkEstimator();
  const first = exchange('GET', SC);
  noteListed(first.state.req, 5000);
  estimator.learn(first.state.req, first.state.info);
  const s = setup(estimator);
  s.clock.lag = 500;
  for (let i = 0; i < SHED_SEATS_PER_USER / 10; i++) await s.send('GET', SC, 'storm');
  await assert.rejects(s.send('GET', SC, 'storm'), is429);
});

test('the lag monitor reports how late its timer is, and a turn still running', () => {
  let t = 0;
  const lag = new EventLoopLag(() => t);
  try {
    t = 10;
    lag.tick();
    assert.equal(lag.current(), 0);
    t = 260;
    assert.equal(lag.current(), 240, 'a turn 250 ms long, not over yet');
    lag.tick();
    t = 265;
    assert.equal(lag.current(), 240, 'the late tick is remembered until the next');
    t = 270;
    lag.tick();
    assert.equal(lag.current(), 0);
  } finally {
    lag.stop();
  }
});

test('a refusal waits out its delay before it is sent', async () => {
  const filter = loadShedFilter({ maxDelayMs: 1, lag: () => 1000, estimator: new WorkEstimator(), observer: noopRequestObserver, rejectDelayMs: 50 });
  for (let i = 0; i < SHED_SEATS_PER_USER; i++) await filter(exchange('GET', SC, 'storm').state, async () => {});
  let settled = false;
  const refused = filter(exchange('GET', SC, 'storm').state, async () => {}).finally(() => (settled = true));
  await new Promise((r) => setImmediate(r));
  assert.equal(settled, false, 'not answered at once');
  await assert.rejects(refused, is429);
});

test('a refusal whose client went away during the wait is not built: the request just ends', async () => {
  const filter = loadShedFilter({ maxDelayMs: 1, lag: () => 1000, estimator: new WorkEstimator(), observer: noopRequestObserver, rejectDelayMs: 20 });
  for (let i = 0; i < SHED_SEATS_PER_USER; i++) await filter(exchange('GET', SC, 'storm').state, async () => {});
  const gone = exchange('GET', SC, 'storm');
  let served = false;
  const refused = filter(gone.state, async () => void (served = true));
  gone.close();
  await refused;
  assert.equal(served, false);
});

test('a --max-event-loop-delay of 0 sheds nothing, however late the loop', async () => {
  const filter = loadShedFilter({ maxDelayMs: 0, lag: () => 10_000, estimator: new WorkEstimator(), observer: noopRequestObserver, rejectDelayMs: 0 });
  let served = 0;
  for (let i = 0; i < 3 * SHED_SEATS_PER_USER; i++) await filter(exchange('GET', SC, 'storm').state, async () => void served++);
  assert.equal(served, 3 * SHED_SEATS_PER_USER);
});

test('by default a refusal waits about its Retry-After: half of it to one and a half', async (t) => {
  const filter = loadShedFilter({ maxDelayMs: 1, lag: () => 1000, estimator: new WorkEstimator(), observer: noopRequestObserver, now: () => 0 });
  for (let i = 0; i < SHED_SEATS_PER_USER; i++) await filter(exchange('GET', SC, 'storm').state, async () => {});
  t.mock.timers.enable({ apis: ['setTimeout'] });
  t.mock.method(Math, 'random', () => 0.25);
  let settled = false;
  const refused = filter(exchange('GET', SC, 'storm').state, async () => assert.fail('must not be served')).finally(() => (settled = true));
  await new Promise((r) => setImmediate(r));
  t.mock.timers.tick(749);
  await new Promise((r) => setImmediate(r));
  assert.equal(settled, false, 'still waiting at 749 ms (0.75 of the second)');
  t.mock.timers.tick(1);
  await assert.rejects(refused, is429);
});

test("the refusal's message is kube's; public paths are never counted nor shed by one filter however many come", async () => {
  const s = setup();
  s.clock.lag = 500;
  for (let i = 0; i < SHED_SEATS_PER_USER; i++) await s.send('POST', SC, 'storm');
  await assert.rejects(s.send('POST', SC, 'storm'), (e: unknown) => is429(e) && (e as { status: { message: string } }).status.message === 'Too many requests, please try again later.');
  const filter = loadShedFilter({ maxDelayMs: 1, lag: () => 10_000, estimator: new WorkEstimator(), observer: noopRequestObserver, now: () => 0, rejectDelayMs: 0 });
  let served = 0;
  for (let i = 0; i < 2 * SHED_SEATS_PER_USER; i++) {
    const health = exchange('GET', '/readyz', 'storm');
    health.state.isPublic = true;
    await filter(health.state, async () => void served++);
  }
  assert.equal(served, 2 * SHED_SEATS_PER_USER);
});
