import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { iterate, type EventSink, type PushStream } from './push-stream.js';

/** A producer that records what the consumer did and pushes when told to. */
function producer<E>() {
  const calls: string[] = [];
  let sink: EventSink<E> | undefined;
  let paused = false;
  const stream: PushStream<E> = {
    start: (s) => {
      calls.push('start');
      sink = s;
    },
    resume: () => {
      calls.push('resume');
      paused = false;
    },
    stop: () => calls.push('stop'),
  };
  return {
    stream,
    calls,
    push(e: E) {
      assert.ok(sink, 'started');
      assert.equal(paused, false, 'never pushed to while paused');
      if (!sink.next(e)) paused = true;
    },
    end: (err?: unknown) => sink!.end(err),
    get paused() {
      return paused;
    },
  };
}

describe('iterate (push stream → async iterator)', () => {
  test('starts on the first pull and pauses the producer after every event until the next pull', async () => {
    const p = producer<number>();
    const it = iterate(p.stream);
    assert.deepEqual(p.calls, []);
    const first = it.next();
    assert.deepEqual(p.calls, ['start']);
    p.push(1);
    assert.equal(p.paused, true);
    assert.deepEqual(await first, { value: 1, done: false });
    const second = it.next();
    assert.deepEqual(p.calls, ['start', 'resume']);
    p.push(2);
    assert.deepEqual(await second, { value: 2, done: false });
  });

  test('events delivered before a failure come first, then the failure, then the end', async () => {
    const p = producer<string>();
    const it = iterate(p.stream);
    const first = it.next();
    p.push('a');
    p.end(new Error('gone'));
    assert.deepEqual(await first, { value: 'a', done: false });
    await assert.rejects(it.next(), /gone/);
    assert.deepEqual(await it.next(), { value: undefined, done: true });
  });

  test('a clean end finishes the loop; leaving a loop early stops the producer', async () => {
    const p = producer<number>();
    const seen: number[] = [];
    const loop = (async () => {
      for await (const n of iterate(p.stream)) seen.push(n);
    })();
    await new Promise((r) => setImmediate(r));
    p.push(1);
    await new Promise((r) => setImmediate(r));
    p.push(2);
    await new Promise((r) => setImmediate(r));
    p.end();
    await loop;
    assert.deepEqual(seen, [1, 2]);
    assert.ok(!p.calls.includes('stop'), 'an ended stream is not stopped again');

    const q = producer<number>();
    const early = (async () => {
      for await (const n of iterate(q.stream)) if (n === 1) break;
    })();
    await new Promise((r) => setImmediate(r));
    q.push(1);
    await early;
    assert.equal(q.calls.at(-1), 'stop');
  });
});
