import { afterEach, beforeEach, describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter, getEventListeners } from 'node:events';
import type { KubeObject } from '../../apimachinery/object-meta.js';
import { resourceExpired } from '../../apimachinery/status-error.js';
import type { ObjectWatch, ObjectWatchEvent } from '../../registry/rest-storage.js';
import { lowerSocketHighWaterMark, WATCH_SOCKET_HIGH_WATER_MARK, WatchStream, type WatchStreamOptions } from './watch-stream.js';

class FakeResponse extends EventEmitter {
  readonly lines: string[] = [];
  behind = false;
  writableEnded = false;
  destroyed = false;
  write(chunk: string | Buffer): boolean {
    this.lines.push(String(chunk));
    return !this.behind;
  }
  end(): void {
    this.writableEnded = true;
  }
  destroy(): void {
    this.destroyed = true;
  }
}

type Sink = Parameters<ObjectWatch<KubeObject>['start']>[0];

class FakeWatch implements ObjectWatch<KubeObject> {
  sink: Sink | undefined;
  resumed = 0;
  stopped = 0;
  bookmarksAsked = 0;
  start(sink: Sink): void {
    this.sink = sink;
  }
  resume(): void {
    this.resumed++;
  }
  stop(): void {
    this.stopped++;
  }
  requestBookmark(): void {
    this.bookmarksAsked++;
  }
  [Symbol.asyncIterator](): AsyncIterator<ObjectWatchEvent<KubeObject>> {
    throw new Error('not iterated');
  }
}

const obj = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Thing', metadata: { name, resourceVersion: '7' } });
const silent = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };

function setUp(o: Partial<WatchStreamOptions> = {}) {
  const res = new FakeResponse();
  const watch = new FakeWatch();
  const closing = new AbortController();
  new WatchStream(res, watch, {
    encode: (type, object) => `${JSON.stringify({ type, object })}\n`,
    lifetimeMs: 3_600_000,
    serverClosing: closing.signal,
    logger: silent,
    ...o,
  });
  return { res, watch, closing, sink: watch.sink! };
}

describe('WatchStream', () => {
  beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'setInterval'] }));
  afterEach(() => mock.timers.reset());

  test('one line per event; bookmarks only when the client asked for them', () => {
    const plain = setUp();
    assert.equal(plain.sink.next({ type: 'ADDED', object: obj('a') }), true);
    assert.equal(plain.sink.next({ type: 'BOOKMARK', resourceVersion: '9' }), true);
    assert.deepEqual(plain.res.lines, [`${JSON.stringify({ type: 'ADDED', object: obj('a') })}\n`]);

    const asked = setUp({ bookmark: (rv, end) => `bookmark ${rv} ${end}\n` });
    asked.sink.next({ type: 'BOOKMARK', resourceVersion: '9', initialEventsEnd: true });
    assert.deepEqual(asked.res.lines, ['bookmark 9 true\n']);
  });

  test('a client that asked for bookmarks gets one requested every 15 s; others never', () => {
    const asked = setUp({ bookmark: () => '' });
    const plain = setUp();
    // A step at a time: each bookmark's timer is armed when the previous one fires, and a mocked
    // tick runs only the timers armed before it.
    for (let i = 0; i < 3; i++) mock.timers.tick(15_000);
    assert.equal(asked.watch.bookmarksAsked, 3);
    assert.equal(plain.watch.bookmarksAsked, 0);
  });

  test('a full response pauses the watch until drain, then resumes it', () => {
    const { res, watch, sink } = setUp();
    res.behind = true;
    assert.equal(sink.next({ type: 'ADDED', object: obj('a') }), false);
    assert.equal(watch.resumed, 0);
    res.behind = false;
    res.emit('drain');
    assert.equal(watch.resumed, 1);
    mock.timers.tick(120_000);
    assert.equal(res.destroyed, false, 'a client that drained is not cut off');
  });

  test('a client that takes nothing for a minute is cut off and the watch stopped', () => {
    const { res, watch, sink } = setUp();
    res.behind = true;
    sink.next({ type: 'ADDED', object: obj('a') });
    mock.timers.tick(59_999);
    assert.equal(res.destroyed, false);
    mock.timers.tick(1);
    assert.equal(res.destroyed, true);
    assert.equal(watch.stopped, 1);
  });

  test('an ended watch whose client never takes the rest is reset a minute later', () => {
    const { res } = setUp({ lifetimeMs: 1000 });
    mock.timers.tick(1000);
    assert.equal(res.writableEnded, true);
    mock.timers.tick(59_999);
    assert.equal(res.destroyed, false);
    mock.timers.tick(1);
    assert.equal(res.destroyed, true);

    const taken = setUp({ lifetimeMs: 1000 });
    mock.timers.tick(1000);
    taken.res.emit('close');
    mock.timers.tick(120_000);
    assert.equal(taken.res.destroyed, false, 'a response that closed is left alone');
  });

  test('a failed watch sends an ERROR event with its Status, then ends the response', () => {
    const { res, watch, sink } = setUp();
    sink.end(resourceExpired('too old resource version: 1 (5)'));
    assert.equal(res.lines.length, 1);
    const ev = JSON.parse(res.lines[0]!);
    assert.equal(ev.type, 'ERROR');
    assert.deepEqual([ev.object.kind, ev.object.code, ev.object.reason, ev.object.message], ['Status', 410, 'Expired', 'too old resource version: 1 (5)']);
    assert.equal(res.writableEnded, true);
    assert.equal(watch.stopped, 1);
  });

  test('the watch stops when the client goes, the lifetime ends or the server stops', () => {
    const gone = setUp();
    gone.res.emit('close');
    assert.equal(gone.watch.stopped, 1);

    const timed = setUp({ lifetimeMs: 1000 });
    mock.timers.tick(1000);
    assert.equal(timed.watch.stopped, 1);
    assert.equal(timed.res.writableEnded, true);

    const stopping = setUp();
    stopping.closing.abort();
    assert.equal(stopping.watch.stopped, 1);
    assert.equal(stopping.res.writableEnded, true);
    assert.equal(stopping.sink.next({ type: 'ADDED', object: obj('late') }), false, 'nothing is written after the end');
    assert.deepEqual(stopping.res.lines, []);
  });

  test("many watches share one listener on the server's closing signal; its abort ends those still open", () => {
    const closing = new AbortController();
    const streams = Array.from({ length: 100 }, () => setUp({ serverClosing: closing.signal }));
    assert.equal(getEventListeners(closing.signal, 'abort').length, 1);
    streams[0]!.res.emit('close');
    closing.abort();
    assert.deepEqual(
      streams.map((s) => s.watch.stopped),
      streams.map(() => 1),
      'each watch stopped once, the one whose client left before included',
    );
    assert.ok(streams.slice(1).every((s) => s.res.writableEnded));
  });

  test("an idle watch listens for 'drain' only while paused", () => {
    const { res, sink } = setUp();
    assert.equal(res.listenerCount('drain'), 0);
    res.behind = true;
    sink.next({ type: 'ADDED', object: obj('a') });
    assert.equal(res.listenerCount('drain'), 1);
    res.behind = false;
    res.emit('drain');
    assert.equal(res.listenerCount('drain'), 0);
    assert.equal(res.listenerCount('close'), 1);
  });

  test('a watch whose client left during its setup is never started, on either protocol', () => {
    for (const gone of [{ closed: true }, { stream: { closed: true, destroyed: true } }]) {
      const res = Object.assign(new FakeResponse(), gone);
      const watch = new FakeWatch();
      new WatchStream(res, watch, { encode: () => '', lifetimeMs: 1000, serverClosing: new AbortController().signal, logger: silent });
      assert.equal(watch.sink, undefined, JSON.stringify(gone));
      assert.equal(watch.stopped, 1);
    }
  });
});

test('an HTTP/1.1 watch lowers its socket buffer to a small mark for its lifetime', () => {
  const socket = { _writableState: { highWaterMark: 8 * 1024 * 1024 } };
  const restore = lowerSocketHighWaterMark(socket);
  assert.equal(socket._writableState.highWaterMark, WATCH_SOCKET_HIGH_WATER_MARK);
  restore();
  assert.equal(socket._writableState.highWaterMark, 8 * 1024 * 1024);
  const small = { _writableState: { highWaterMark: 16 * 1024 } };
  lowerSocketHighWaterMark(small)();
  assert.equal(small._writableState.highWaterMark, 16 * 1024, 'a mark already small is left alone');
});
