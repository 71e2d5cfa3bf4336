import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { RequestLabels } from '../../apimachinery/request-observer.js';
import { compose, filter, STOP, type EndedRequest, type Entered, type Filter, type FilterSteps } from './filter.js';
import { fakeExchange } from './test-state.js';

test('compose runs filters in order around the handler, each able to stop the request', async () => {
  const seen: string[] = [];
  const mark = (name: string): Filter =>
    filter({
      enter: () => void seen.push(`${name}>`),
      leave: () => void seen.push(`<${name}`),
    });
  await compose([mark('a'), mark('b')], async () => void seen.push('handler'))(fakeExchange().state);
  assert.deepEqual(seen, ['a>', 'b>', 'handler', '<b', '<a']);

  const stop: Filter = filter({
    enter: () => {
      throw new Error('refused');
    },
  });
  let handled = false;
  await assert.rejects(compose([stop, mark('never')], async () => void (handled = true))(fakeExchange().state), /refused/);
  assert.equal(handled, false);
});

test('the cancellation signal aborts when the response closes or on cancel()', () => {
  const x = fakeExchange();
  const signal = x.state.cancellation.signal;
  assert.equal(signal.aborted, false);
  x.close();
  assert.equal(signal.aborted, true);

  const y = fakeExchange();
  y.state.cancellation.cancel();
  assert.equal(y.state.cancellation.signal.aborted, true, 'a signal asked for after cancel() is already aborted');
});

test('the loop: enter in order, leave in reverse (told whether the rest failed), ended once when the response closes, for entered filters only; STOP ends quietly', async () => {
  const seen: string[] = [];
  const steps = (name: string, extra: Partial<FilterSteps> = {}): Filter =>
    filter({
      enter: () => void seen.push(`enter ${name}`),
      leave: (_s, failed) => void seen.push(`leave ${name}${failed ? ' failed' : ''}`),
      ended: () => void seen.push(`ended ${name}`),
      ...extra,
    });
  const x = fakeExchange();
  await compose([steps('a'), steps('b')], async () => void seen.push('handler'))(x.state);
  assert.deepEqual(seen, ['enter a', 'enter b', 'handler', 'leave b', 'leave a']);
  x.close();
  x.close();
  assert.deepEqual(seen.slice(5), ['ended a', 'ended b']);

  seen.length = 0;
  const refused = fakeExchange();
  const refuse = steps('refuse', {
    enter: () => {
      throw new Error('refused');
    },
  });
  await assert.rejects(compose([steps('a'), refuse, steps('never')], async () => assert.fail('must not run'))(refused.state), /refused/);
  refused.close();
  assert.deepEqual(seen, ['enter a', 'leave a failed', 'ended a']);

  seen.length = 0;
  const gone = fakeExchange();
  await compose([steps('a'), steps('stop', { enter: async (): Promise<Entered> => STOP }), steps('never')], async () => assert.fail('must not run'))(gone.state);
  assert.deepEqual(seen, ['enter a', 'leave a']);
});

test('a watch whose response stays open after the request path keeps only what ended reads: its request state is collectable', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const labels = { verb: 'WATCH' } as RequestLabels;
  let released = 0;
  const ends: EndedRequest[] = [];
  const f = filter({
    enter(s) {
      s.metricLabels = labels;
      s.heldSeats = { release: () => void released++ };
    },
    ended: (s) => void ends.push(s),
  });
  // In a function of its own, so that nothing here refers to the state once it returns.
  const open = async () => {
    const x = fakeExchange();
    x.state.longRunning = true;
    await compose([f], async () => {})(x.state);
    return { close: x.close, state: new WeakRef(x.state), query: new WeakRef(x.state.query) };
  };
  const watch = await open();
  await new Promise((r) => setImmediate(r)); // a WeakRef keeps its target until the job ends
  gc();
  assert.equal(watch.state.deref(), undefined, 'the request state was collected while the response is open');
  assert.equal(watch.query.deref(), undefined);
  watch.close();
  assert.equal(ends.length, 1);
  assert.equal(ends[0]!.metricLabels, labels);
  assert.equal(ends[0]!.longRunning, true);
  ends[0]!.heldSeats?.release();
  assert.equal(released, 1);
});
