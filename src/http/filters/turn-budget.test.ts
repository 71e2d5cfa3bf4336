import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveRequestInfo } from '../endpoints/request-info.js';
import { fakeExchange } from './test-state.js';
import { SEATS_PER_TURN, turnBudgetFilter } from './turn-budget.js';
import { noteListed, WorkEstimator } from './work-estimate.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';
const exchange = (user: string, groups: string[] = []) => {
  const x = fakeExchange({ method: 'POST', url: SC, user: { username: user, groups } });
  x.state.info = resolveRequestInfo('POST', SC, new URLSearchParams());
  return x;
};
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test('a user starts at most SEATS_PER_TURN seats per turn; the rest start in later turns, in order; others are not held', async () => {
  const filter = turnBudgetFilter(new WorkEstimator());
  const started: string[] = [];
  const all: Promise<void>[] = [];
  for (let i = 0; i < 2 * SEATS_PER_TURN + 1; i++) all.push(filter(exchange('storm').state, async () => void started.push(`storm-${i}`)));
  all.push(filter(exchange('prober').state, async () => void started.push('prober')));
  all.push(filter(exchange('root', ['system:masters']).state, async () => void started.push('root')));
  await Promise.resolve();
  assert.equal(started.filter((s) => s.startsWith('storm')).length, SEATS_PER_TURN);
  assert.ok(started.includes('prober') && started.includes('root'));
  await turn();
  assert.equal(started.filter((s) => s.startsWith('storm')).length, 2 * SEATS_PER_TURN);
  await Promise.all(all);
  assert.deepEqual(
    started.filter((s) => s.startsWith('storm')),
    Array.from({ length: 2 * SEATS_PER_TURN + 1 }, (_, i) => `storm-${i}`),
  );
});

test('a request whose client left while it waited never starts', async () => {
  const filter = turnBudgetFilter(new WorkEstimator());
  for (let i = 0; i < SEATS_PER_TURN; i++) await filter(exchange('storm').state, async () => {});
  const gone = exchange('storm');
  let ran = false;
  const waiting = filter(gone.state, async () => void (ran = true));
  gone.close();
  await waiting;
  assert.equal(ran, false);
});

test('public and long-running requests and a budget of 0 are never held', async () => {
  const filter = turnBudgetFilter(new WorkEstimator());
  for (let i = 0; i < SEATS_PER_TURN; i++) await filter(exchange('storm').state, async () => {});
  const started: string[] = [];
  const health = exchange('storm');
  health.state.isPublic = true;
  const watch = exchange('storm');
  watch.state.longRunning = true;
  const both = [filter(health.state, async () => void started.push('health')), filter(watch.state, async () => void started.push('watch'))];
  await Promise.resolve();
  assert.deepEqual(started, ['health', 'watch']);
  await Promise.all(both);

  const unlimited = turnBudgetFilter(new WorkEstimator(), 0);
  let n = 0;
  const all = Array.from({ length: 3 * SEATS_PER_TURN }, () => unlimited(exchange('storm').state, async () => void n++));
  await Promise.resolve();
  assert.equal(n, 3 * SEATS_PER_TURN, 'all started in this turn');
  await Promise.all(all);
});

test('each turn brings a new budget: a user that spent it starts again in the next turn', async () => {
  const filter = turnBudgetFilter(new WorkEstimator());
  let n = 0;
  for (let i = 0; i < SEATS_PER_TURN; i++) await filter(exchange('storm').state, async () => void n++);
  await turn();
  const next = Array.from({ length: SEATS_PER_TURN }, () => filter(exchange('storm').state, async () => void n++));
  await Promise.resolve();
  assert.equal(n, 2 * SEATS_PER_TURN, 'started without waiting');
  await Promise.all(next);
});

test('a request wider than the budget starts alone in its turn; the next waits for the turn after', async () => {
  const estimator = new WorkEstimator();
  // A list of 2000 objects is 10 seats wide, past the budget of 8.
  const learned = fakeExchange({ url: SC });
  const info = resolveRequestInfo('GET', SC, new URLSearchParams());
  noteListed(learned.state.req, 2000);
  estimator.learn(learned.state.req, info);
  const list = () => {
    const x = fakeExchange({ url: SC, user: { username: 'lister', groups: [] } });
    x.state.info = info;
    return x;
  };
  const filter = turnBudgetFilter(estimator);
  const started: string[] = [];
  const all = [
    filter(list().state, async () => void started.push('wide-1')),
    filter(list().state, async () => void started.push('wide-2')),
    filter(exchange('lister').state, async () => void started.push('narrow')),
  ];
  await Promise.resolve();
  assert.deepEqual(started, ['wide-1'], 'the first, wide as it is, starts at once');
  await turn();
  assert.deepEqual(started, ['wide-1', 'wide-2']);
  await turn();
  assert.deepEqual(started, ['wide-1', 'wide-2', 'narrow']);
  await Promise.all(all);
});
