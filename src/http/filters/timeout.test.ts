import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { badRequest, isStatusError } from '../../apimachinery/status-error.js';
import { timeoutFilter } from './timeout.js';
import { fakeExchange } from './test-state.js';

const is504 = (e: unknown) =>
  isStatusError(e) && e.status.code === 504 && e.status.reason === 'Timeout' && e.status.message === 'Timeout: request did not complete within the allotted timeout';

test('a handler still running after the timeout gets 504, and its signal aborts', async () => {
  const x = fakeExchange();
  let signal: AbortSignal | undefined;
  let finished = false;
  const slow = async () => {
    signal = x.state.cancellation.signal;
    await sleep(300);
    finished = true;
  };
  await assert.rejects(timeoutFilter(20)(x.state, slow), is504);
  assert.equal(signal?.aborted, true);
  assert.equal(finished, false, 'answered before the handler finished');
});

test('a fast handler is untouched; its errors pass through', async () => {
  const x = fakeExchange();
  await timeoutFilter(1000)(x.state, async () => {});
  assert.equal(x.state.cancellation.signal.aborted, false);
  await assert.rejects(
    timeoutFilter(1000)(fakeExchange().state, async () => {
      throw new Error('own error');
    }),
    /own error/,
  );
});

test('time already spent before the filter counts; long-running requests have no timeout; 0 disables it', async () => {
  const late = fakeExchange();
  (late.state as { receivedAt: number }).receivedAt = performance.now() - 5000;
  await assert.rejects(timeoutFilter(1000)(late.state, async () => assert.fail('must not run')), is504);

  const watch = fakeExchange();
  watch.state.longRunning = true;
  await timeoutFilter(10)(watch.state, () => sleep(50));
  await timeoutFilter(0)(fakeExchange().state, () => sleep(30));
});

test('?timeout= shortens the deadline; an unparsable one is a 400', async () => {
  const x = fakeExchange();
  x.state.query = new URLSearchParams('timeout=20ms');
  await assert.rejects(timeoutFilter(60_000)(x.state, () => sleep(300)), is504);
  const longer = fakeExchange();
  longer.state.query = new URLSearchParams('timeout=1h');
  await assert.rejects(timeoutFilter(20)(longer.state, () => sleep(300)), is504, 'never longer than the server allows');
  const bad = fakeExchange();
  bad.state.query = new URLSearchParams('timeout=soon');
  await assert.rejects(
    timeoutFilter(1000)(bad.state, async () => assert.fail('must not run')),
    (e: unknown) => isStatusError(e) && e.status.code === 400 && e.status.message === 'invalid timeout specified in the request URL - time: invalid duration "soon"',
  );
});

test('after a 504, what the handler went on to end with is handed on as abandonedWork; cancellation says aborted', async () => {
  const committed = fakeExchange();
  let proceed!: () => void;
  const held = new Promise<void>((r) => (proceed = r));
  await assert.rejects(
    timeoutFilter(20)(committed.state, async () => {
      await held;
      committed.state.reply.raw.statusCode = 201;
    }),
    is504,
  );
  assert.equal(committed.state.cancellation.aborted, true);
  assert.ok(committed.state.abandonedWork);
  proceed();
  assert.equal(await committed.state.abandonedWork, 201);

  const stopped = fakeExchange();
  await assert.rejects(
    timeoutFilter(20)(stopped.state, async () => {
      await sleep(60);
      throw new Error('unexpected');
    }),
    is504,
  );
  assert.equal(await stopped.state.abandonedWork, 500);

  const fast = fakeExchange();
  await timeoutFilter(1000)(fast.state, async () => {});
  assert.equal(fast.state.abandonedWork, undefined);
  assert.equal(fast.state.cancellation.aborted, false);
});

test('an answer already begun at the deadline is cut off (the response destroyed), not turned into a 504', async () => {
  const x = fakeExchange();
  let destroyed = 0;
  Object.assign(x.state.reply.raw, { headersSent: true, destroy: () => void destroyed++ });
  // The filter settles at the deadline, though the handler is still writing.
  await timeoutFilter(20)(x.state, () => sleep(2000));
  assert.equal(destroyed, 1);
  assert.equal(x.state.cancellation.aborted, true);
  assert.equal(x.state.abandonedWork, undefined);
});

test("abandoned work that ends in a Status error is recorded with that error's code", async () => {
  const x = fakeExchange();
  await assert.rejects(
    timeoutFilter(20)(x.state, async () => {
      await sleep(60);
      throw badRequest('refused after all');
    }),
    is504,
  );
  assert.equal(await x.state.abandonedWork, 400);
});

test('?timeout=0s (or negative) asks for nothing: the server\'s timeout applies', async () => {
  for (const asked of ['0s', '-5s']) {
    const x = fakeExchange();
    x.state.query = new URLSearchParams(`timeout=${asked}`);
    await timeoutFilter(60_000)(x.state, async () => {});
    assert.equal(x.state.deadline, x.state.receivedAt + 60_000, asked);
  }
  const shorter = fakeExchange();
  shorter.state.query = new URLSearchParams('timeout=5s');
  await timeoutFilter(60_000)(shorter.state, async () => {});
  assert.equal(shorter.state.deadline, shorter.state.receivedAt + 5000);
});

test('a request already past its deadline on arrival is cancelled as it is refused', async () => {
  const late = fakeExchange();
  (late.state as { receivedAt: number }).receivedAt = performance.now() - 5000;
  await assert.rejects(timeoutFilter(1000)(late.state, async () => assert.fail('must not run')), is504);
  assert.equal(late.state.cancellation.aborted, true);
  assert.equal(late.state.deadline, undefined);
});

test('a long-running request gets no deadline; a request that times out is logged at debug with its path', async () => {
  const watch = fakeExchange();
  watch.state.longRunning = true;
  await timeoutFilter(1000)(watch.state, async () => {});
  assert.equal(watch.state.deadline, undefined);

  const logged: unknown[] = [];
  const x = fakeExchange();
  x.state.path = '/apis/x';
  x.state.logger = { ...x.state.logger, debug: (obj: unknown, msg?: string) => void logged.push([obj, msg]) };
  await assert.rejects(timeoutFilter(20)(x.state, () => sleep(300)), is504);
  assert.deepEqual(logged, [[{ path: '/apis/x' }, 'request timed out']]);
});
