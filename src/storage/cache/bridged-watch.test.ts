// The hand-over from a store replay to the cache's fan-out happens only between revisions: a
// revision with several events (a multi-key transaction) is delivered whole, once.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BridgedWatch, type BridgeTarget } from './bridged-watch.js';
import { CacheContents } from './cache-contents.js';
import type { EventSink } from '../push-stream.js';
import type { RevisionedStore, StoreWatch, WatchEvent } from '../revisioned-store.js';

const put = (revision: number, key: string): WatchEvent => ({ type: 'put', revision, kv: { key, value: new Uint8Array(), createRevision: revision, modRevision: revision } });

/** A watch that pushes `events` (those after `after`) as soon as it starts. */
function scripted(events: WatchEvent[], after: number): StoreWatch & { stopped: boolean } {
  let sink: EventSink<WatchEvent> | undefined;
  const w = {
    stopped: false,
    start(s: EventSink<WatchEvent>) {
      sink = s;
      for (const e of events) {
        if (w.stopped) return;
        if (e.type !== 'progress' && e.revision <= after) continue;
        sink.next(e);
      }
    },
    resume() {},
    stop() {
      w.stopped = true;
    },
    requestProgress() {},
    [Symbol.asyncIterator]: () => {
      throw new Error('unused');
    },
  };
  return w;
}

test('a replay that reaches the window inside a multi-key revision moves to the cache only after it', () => {
  // The store's history: revision 6 is one transaction of three keys, 7 a single write.
  const history = [put(4, '/p/x'), put(6, '/p/b'), put(6, '/p/c'), put(6, '/p/d'), put(7, '/p/e')];
  // The cache listed at 6: its window holds what came after (7).
  const cacheEvents = [put(7, '/p/e')];
  const movedAfter: number[] = [];
  const target: BridgeTarget = {
    windowStart: () => 6,
    tryWatch: (_prefix, after) => {
      movedAfter.push(after);
      return scripted(cacheEvents, after);
    },
  };
  const store = { watch: (_p: string, o: { afterRevision: number }) => scripted(history, o.afterRevision) } as unknown as RevisionedStore;
  const seen: string[] = [];
  const w = new BridgedWatch(store, target, '/p/', 3, undefined);
  w.start({ next: (e) => (e.type !== 'progress' && seen.push(`${e.revision} ${e.type === 'put' ? e.kv.key : e.key}`), true), end: () => {} });
  assert.deepEqual(seen, ['4 /p/x', '6 /p/b', '6 /p/c', '6 /p/d', '7 /p/e']);
  assert.deepEqual(movedAfter, [6]);
});

test('the cache window hands out history in whole revisions', () => {
  const c = new CacheContents(100);
  c.replace({ kvs: [], more: false, revision: 1 });
  for (const e of [put(2, '/p/a'), put(3, '/p/b'), put(3, '/p/c'), put(3, '/p/d'), put(4, '/p/e')]) c.apply(e as Exclude<WatchEvent, { type: 'progress' }>);
  // A page of 2 would end inside revision 3: it takes all of revision 3.
  assert.deepEqual(c.history('/p/', 1, 4, 2).map((e) => e.revision), [2, 3, 3, 3]);
  assert.deepEqual(c.history('/p/', 3, 4, 2).map((e) => e.revision), [4]);
});
