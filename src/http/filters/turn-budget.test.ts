import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveRequestInfo } from '../endpoints/request-info.js';
import { fakeExchange } from './test-state.js';
import { SEATS_PER_TURN, turnBudgetFilter } from './turn-budget.js';
import { WorkEstimator } from './work-estimate.js';

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
