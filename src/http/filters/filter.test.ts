import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { RequestLabels } from '../../apimachinery/request-observer.js';
import { compose, filter, policyOf, STOP, type EndedRequest, type Entered, type Filter, type FilterSteps } from './filter.js';
import type { WorkEstimator } from './work-estimate.js';
import { resolveRequestInfo } from '../endpoints/request-info.js';
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

test('cancellation: aborted once the response is over or on cancel(), without making a signal; a signal asked for late is already aborted', () => {
  const x = fakeExchange();
  assert.equal(x.state.cancellation.aborted, false);
  x.close();
  assert.equal(x.state.cancellation.aborted, true);
  assert.equal(x.state.cancellation.signal.aborted, true, 'asked for after the response closed');

  const y = fakeExchange();
  y.state.cancellation.cancel();
  assert.equal(y.state.cancellation.aborted, true);

  const z = fakeExchange();
  const signal = z.state.cancellation.signal;
  z.state.cancellation.cancel();
  assert.equal(signal.aborted, true, 'a signal already made aborts on cancel()');
  assert.equal(z.state.cancellation.aborted, true);
});

test('policyOf: who acts (the impersonated user first), whether privileged, the kind and width, found once', () => {
  const widths: number[] = [];
  const estimator = { seats: () => (widths.push(1), 3) } as unknown as WorkEstimator;
  const x = fakeExchange({ method: 'POST', url: '/apis/g/v1/rs', user: { username: 'admin', groups: ['system:masters'] } });
  x.state.info = resolveRequestInfo('POST', '/apis/g/v1/rs', new URLSearchParams());
  x.state.impersonated = { username: 'bob', groups: ['devs'] };
  const p = policyOf(x.state, estimator);
  assert.deepEqual(p, { user: { username: 'bob', groups: ['devs'] }, who: 'bob', privileged: false, kind: 'mutating', seats: 3 });
  assert.equal(policyOf(x.state, estimator), p, 'kept');
  assert.equal(widths.length, 1);

  const root = fakeExchange({ user: { username: 'root', groups: ['system:masters'] } });
  root.state.info = resolveRequestInfo('GET', '/apis/g/v1/rs', new URLSearchParams());
  assert.deepEqual(policyOf(root.state, estimator), { user: { username: 'root', groups: ['system:masters'] }, who: 'root', privileged: true, kind: 'readOnly', seats: 3 });
  const nobody = fakeExchange();
  nobody.state.info = root.state.info;
  assert.deepEqual(policyOf(nobody.state, estimator), { user: undefined, who: '', privileged: false, kind: 'readOnly', seats: 3 });
});

test('around wraps the rest of the chain (the handler itself when last); the filters after it still enter and leave in order', async () => {
  const seen: string[] = [];
  const wrap = (name: string): Filter =>
    filter({
      enter: () => void seen.push(`enter ${name}`),
      async around(_s, rest) {
        seen.push(`around ${name}`);
        await rest;
        seen.push(`rest of ${name} done`);
      },
      leave: () => void seen.push(`leave ${name}`),
    });
  const plain = filter({ enter: () => void seen.push('enter plain'), leave: () => void seen.push('leave plain') });
  await compose([wrap('outer'), plain, wrap('inner')], async () => void seen.push('handler'))(fakeExchange().state);
  // The rest is started first and handed to around as its promise.
  assert.deepEqual(seen, ['enter outer', 'enter plain', 'enter inner', 'handler', 'around inner', 'around outer', 'rest of inner done', 'leave inner', 'leave plain', 'rest of outer done', 'leave outer']);
});

test('an enter that waits goes on when it settles; filtersEntered counts the filters entered, never less on the way back', async () => {
  const x = fakeExchange();
  const waits = filter({ enter: async () => undefined });
  let entered = -1;
  await compose([waits, waits, filter({ enter: (s) => void (entered = s.filtersEntered ?? 0) })], async () => {})(x.state);
  assert.equal(entered, 2);
  assert.equal(x.state.filtersEntered, 3);
});
