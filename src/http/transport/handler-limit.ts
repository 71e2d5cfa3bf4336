// What one HTTP/2 connection may start, against rapid reset (CVE-2023-44487): a client that
// resets each stream right after opening it never reaches the connection's limit of concurrent
// streams (a reset stream is no longer open), so it can have the server start requests as fast
// as it sends them. nghttp2 parses everything one socket read hands it, and libuv reads a
// readable socket many times in a row: thousands of requests were started in one poll phase,
// queued in the filters holding their objects, and every other connection waited for them and
// for the collector (another client's GET waited 2.5–2.8 s in test/attack/h2-floods). Go counts
// a handler against the connection's stream limit until it returns, reset or not, queues a few
// times that many, and past that ends the connection with ENHANCE_YOUR_CALM. Here:
// - a connection's first `nowPerTurn` requests in a turn of the event loop start at once; the
//   rest start in the next turn, if their client has not reset them by then (a reset one then
//   costs nothing more). A client with fewer requests in flight (kubectl, an informer) never
//   waits; a burst of many waits one turn;
// - a connection with more than `maxRunning` requests in the request path (from arrival until
//   the handler is over: its body read, its answer written or refused; a watch, until it is
//   streaming) is ended (GOAWAY ENHANCE_YOUR_CALM): no client that keeps within its open streams
//   reaches it;
// - and the connection guard ends one whose client resets too many streams in one turn
//   (connection-guard.ts, RESETS_PER_TURN), before nghttp2 has parsed (and Node made objects
//   for) the thousands more the same reads may hold.

import { constants, type Http2Session } from 'node:http2';

const COUNTS = Symbol('requests started on this connection');

interface Counts {
  running: number;
  turn: number;
  startedInTurn: number;
}

/** The turn of the event loop, as far as streams are concerned: moved on by one setImmediate while streams arrive. */
let turn = 0;
let ticking = false;

export function currentTurn(): number {
  if (!ticking) {
    ticking = true;
    setImmediate(() => {
      ticking = false;
      turn++;
    });
  }
  return turn;
}

/** What to do with a request: start it, start it in the next turn, or nothing (its connection is ended). */
export const START_NOW = 0;
export const START_NEXT_TURN = 1;
export const REFUSED = 2;
export type Start = typeof START_NOW | typeof START_NEXT_TURN | typeof REFUSED;

export class HandlerLimit {
  constructor(
    private readonly maxRunning: number,
    private readonly nowPerTurn: number,
  ) {}

  /** A request arrives on `session`; unless refused, it counts until over() is called. */
  start(session: Http2Session): Start {
    const s = session as Http2Session & { [COUNTS]?: Counts };
    const now = currentTurn();
    const c = (s[COUNTS] ??= { running: 0, turn: now, startedInTurn: 0 });
    if (c.turn !== now) {
      c.turn = now;
      c.startedInTurn = 0;
    }
    if (c.running >= this.maxRunning) {
      enhanceYourCalm(session);
      return REFUSED;
    }
    c.running++;
    return ++c.startedInTurn > this.nowPerTurn ? START_NEXT_TURN : START_NOW;
  }

  /** Its request's handler is over. */
  over(session: Http2Session): void {
    (session as Http2Session & { [COUNTS]: Counts })[COUNTS].running--;
  }

}

/** Ends a connection as Go ends one that resets too much (GOAWAY ENHANCE_YOUR_CALM). */
export function enhanceYourCalm(session: Http2Session): void {
  if (!session.destroyed) session.destroy(new Error('too many requests reset while in progress'), constants.NGHTTP2_ENHANCE_YOUR_CALM);
}
