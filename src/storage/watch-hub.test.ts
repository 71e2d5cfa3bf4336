import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { WatchHub, type ChangeEvent } from './watch-hub.js';
import { isStorageError, type WatchEvent } from './revisioned-store.js';

const put = (revision: number, key = `/r/${revision}`): ChangeEvent => ({
  type: 'put',
  revision,
  kv: { key, value: new TextEncoder().encode(String(revision)), createRevision: revision, modRevision: revision },
});

/** A hub over an in-memory log; `commit` appends and publishes, as a store does. */
function hubWithLog(opts: { maxQueued?: number } = {}) {
  const log: ChangeEvent[] = [];
  const hub = new WatchHub({
    revision: () => log.at(-1)?.revision ?? 0,
    history: (prefix, after, upTo, limit) => log.filter((e) => e.revision > after && e.revision <= upTo && (e.type === 'put' ? e.kv.key : e.key).startsWith(prefix)).slice(0, limit),
    maxQueued: opts.maxQueued,
  });
  const commit = (...events: ChangeEvent[]) => {
    log.push(...events);
    hub.publish(events);
  };
  return { hub, log, commit };
}

/** A sink that records events and pauses when `accept` says so. */
function recorder(accept: (seen: number) => boolean = () => true) {
  const seen: WatchEvent[] = [];
  const ends: unknown[] = [];
  return {
    seen,
    ends,
    revisions: () => seen.map((e) => e.revision),
    sink: {
      next(e: WatchEvent) {
        seen.push(e);
        return accept(seen.length);
      },
      end(err?: unknown) {
        ends.push(err ?? 'clean');
      },
    },
  };
}

describe('watch hub, push delivery', () => {
  test('a live watcher gets each commit synchronously, in order; other prefixes are not its business', () => {
    const { hub, commit } = hubWithLog();
    const w = hub.subscribe('/r/', undefined, 0);
    const r = recorder();
    w.start(r.sink);
    commit(put(1), put(2, '/other/2'), put(3));
    assert.deepEqual(r.revisions(), [1, 3]);
  });

  test('a paused sink gets nothing until resume(), then everything held, in order', () => {
    const { hub, commit } = hubWithLog();
    const w = hub.subscribe('/r/', undefined, 0);
    let open = false;
    const r = recorder((n) => open || n < 2);
    w.start(r.sink);
    commit(put(1), put(2), put(3));
    commit(put(4));
    assert.deepEqual(r.revisions(), [1, 2], 'paused after the second');
    open = true;
    w.resume();
    assert.deepEqual(r.revisions(), [1, 2, 3, 4]);
    commit(put(5));
    assert.deepEqual(r.revisions(), [1, 2, 3, 4, 5]);
  });

  test('a watcher paused past the bound ends with Unavailable; the others go on', () => {
    const { hub, commit } = hubWithLog({ maxQueued: 3 });
    const stalled = recorder(() => false);
    const healthy = recorder();
    hub.subscribe('/r/', undefined, 0).start(stalled.sink);
    hub.subscribe('/r/', undefined, 0).start(healthy.sink);
    for (let rev = 1; rev <= 6; rev++) commit(put(rev));
    assert.deepEqual(stalled.revisions(), [1]);
    assert.equal(stalled.ends.length, 1);
    assert.ok(isStorageError(stalled.ends[0], 'Unavailable'));
    assert.deepEqual(healthy.revisions(), [1, 2, 3, 4, 5, 6]);
    assert.equal(hub.size, 1, 'the ended watcher left the hub');
  });

  test('a watch from a past revision replays the log first (pausable mid-replay), then goes live', () => {
    const { hub, commit } = hubWithLog();
    commit(put(1), put(2), put(3));
    const w = hub.subscribe('/r/', undefined, 1);
    let open = false;
    const r = recorder((n) => open || n !== 1);
    commit(put(4)); // before start: held behind the replay
    w.start(r.sink);
    assert.deepEqual(r.revisions(), [2]);
    open = true;
    w.resume();
    commit(put(5));
    assert.deepEqual(r.revisions(), [2, 3, 4, 5]);
  });

  test('stop() ends delivery without calling end; an aborted signal ends it cleanly', () => {
    const { hub, commit } = hubWithLog();
    const stopped = recorder();
    const w = hub.subscribe('/r/', undefined, 0);
    w.start(stopped.sink);
    w.stop();
    commit(put(1));
    assert.deepEqual(stopped.seen, []);
    assert.deepEqual(stopped.ends, []);

    const ac = new AbortController();
    const aborted = recorder();
    hub.subscribe('/r/', ac.signal, 1).start(aborted.sink);
    ac.abort();
    commit(put(2));
    assert.deepEqual(aborted.ends, ['clean']);
    assert.deepEqual(aborted.seen, []);
    assert.equal(hub.size, 0);
  });

  test('publishProgress reaches only the watchers that asked, once', () => {
    const { hub, commit } = hubWithLog();
    const asking = recorder();
    const quiet = recorder();
    const a = hub.subscribe('/r/', undefined, 0);
    a.start(asking.sink);
    hub.subscribe('/r/', undefined, 0).start(quiet.sink);
    hub.requestProgressFor(a);
    commit(put(1));
    hub.publishProgress(1);
    hub.publishProgress(1);
    assert.deepEqual(asking.seen.map((e) => e.type), ['put', 'progress']);
    assert.deepEqual(quiet.seen.map((e) => e.type), ['put']);
  });

  test('a consumer that throws ends its own watch; the commit and the other watchers go on', () => {
    const { hub, commit } = hubWithLog();
    const throwing = recorder(() => {
      throw new Error('boom');
    });
    const healthy = recorder();
    hub.subscribe('/r/', undefined, 0).start(throwing.sink);
    hub.subscribe('/r/', undefined, 0).start(healthy.sink);
    commit(put(1));
    commit(put(2));
    assert.equal(throwing.seen.length, 1);
    assert.ok(isStorageError(throwing.ends[0], 'Unavailable') && /boom/.test(throwing.ends[0].message));
    assert.deepEqual(healthy.revisions(), [1, 2]);
  });
});
