import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compose, type Filter } from './filter.js';
import { fakeExchange } from './test-state.js';

test('compose runs filters in order around the handler, each able to stop the request', async () => {
  const seen: string[] = [];
  const mark =
    (name: string): Filter =>
    async (_s, next) => {
      seen.push(`${name}>`);
      await next();
      seen.push(`<${name}`);
    };
  await compose([mark('a'), mark('b')], async () => void seen.push('handler'))(fakeExchange().state);
  assert.deepEqual(seen, ['a>', 'b>', 'handler', '<b', '<a']);

  const stop: Filter = async () => {
    throw new Error('refused');
  };
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
