import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { RequestLogger } from './request-logger.js';

test('a request logger binds the request id, and makes its child only when the request logs', () => {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const parent = pino({ level: 'info' }, sink);
  let children = 0;
  const counting = Object.assign(Object.create(parent) as typeof parent, {
    child: (b: Record<string, unknown>) => {
      children++;
      return parent.child(b);
    },
  });
  new RequestLogger(counting, 'r-1');
  assert.equal(children, 0, 'nothing made for a request that never logs');
  const loud = new RequestLogger(counting, 'r-2');
  loud.warn({ path: '/x' }, 'first');
  loud.error('second');
  assert.equal(children, 1, 'one child, made once');
  assert.deepEqual(
    lines.map((l) => [l.requestId, l.path, l.msg]),
    [
      ['r-2', '/x', 'first'],
      ['r-2', undefined, 'second'],
    ],
  );
});

test('every level and a child carry the request id', () => {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const logger = new RequestLogger(pino({ level: 'debug' }, sink), 'r-3');
  logger.debug({ a: 1 }, 'd');
  logger.info('i');
  logger.child({ part: 'watch' }).warn('c');
  assert.deepEqual(
    lines.map((l) => [l.level, l.requestId, l.msg, l.a ?? l.part]),
    [
      [20, 'r-3', 'd', 1],
      [30, 'r-3', 'i', undefined],
      [40, 'r-3', 'c', 'watch'],
    ],
  );
});
