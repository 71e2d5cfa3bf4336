// The streaming half of a watch: takes a started watch's events and writes them to the response,
// one line each, until the watch ends, the client goes, the lifetime is up or the server stops.
// It holds only the response and what encoding needs, not the request, so a thousand idle
// watches cost little more than their streams.

import type { KubeObject } from '../../apimachinery/object-meta.js';
import type { Logger } from '../../apimachinery/request-context.js';
import { internal, isStatusError } from '../../apimachinery/status-error.js';
import type { ObjectWatch, ObjectWatchEvent } from '../../registry/rest-storage.js';
import { responseClosed } from '../transport/response-closed.js';
import { DeadlineEntry, Deadlines } from '../filters/deadlines.js';

/** A watch whose client takes nothing for this long is ended. */
const STUCK_CLIENT_MS = 60_000;
/** Often enough to keep clients with a 30 s inactivity timeout (client-node) alive. */
const BOOKMARK_INTERVAL_MS = 15_000;

/**
 * What the stream needs of a response (HTTP/1.1 and HTTP/2 compatibility responses both fit).
 * Whether the client keeps up is what write() returns: false once the response's buffer is past
 * its mark (HTTP/1.1: the socket's, lowered for the watch; HTTP/2: the stream's, whose bytes
 * leave only as the client's flow-control window lets them), then 'drain' once it has emptied.
 * (`writableNeedDrain` says the same on HTTP/1.1, but the HTTP/2 compatibility response has no
 * such property: read as false, a watch there never paused and queued everything for a client
 * that read nothing.)
 */
export interface WatchResponse {
  write(chunk: string | Buffer): boolean;
  end(): unknown;
  destroy(): unknown;
  readonly writableEnded: boolean;
  /** HTTP/1.1: over; HTTP/2 has only its stream's (response-closed.ts). */
  readonly closed?: boolean;
  readonly stream?: { readonly closed: boolean; readonly destroyed: boolean };
  /** Held writes go out together at uncork (one write per stream for a batch of events). */
  cork?(): void;
  uncork?(): void;
  on(event: 'drain' | 'close', listener: () => void): unknown;
  once(event: 'drain' | 'close', listener: () => void): unknown;
  off(event: 'drain' | 'close', listener: () => void): unknown;
}

/**
 * What an HTTP/1.1 watch may leave buffered in its socket for a client that stops reading
 * before it is paused (and then ended if it stays stuck): small, like kube's per-watcher
 * buffer, instead of the 8 MiB the server allows ordinary responses (server.ts raises every
 * socket's mark). A watch owns its connection, so it lowers the mark for its lifetime; the
 * returned function puts it back.
 */
export const WATCH_SOCKET_HIGH_WATER_MARK = 64 * 1024;

export function lowerSocketHighWaterMark(socket: unknown): () => void {
  const state = (socket as { _writableState?: { highWaterMark: number } } | undefined)?._writableState;
  if (!state || state.highWaterMark <= WATCH_SOCKET_HIGH_WATER_MARK) return () => undefined;
  const previous = state.highWaterMark;
  state.highWaterMark = WATCH_SOCKET_HIGH_WATER_MARK;
  return () => {
    state.highWaterMark = previous;
  };
}

export interface WatchStreamOptions {
  /** An event's line. */
  encode: (type: string, obj: KubeObject) => string | Buffer;
  /** A bookmark's line; absent: the client did not ask for bookmarks. */
  bookmark?: (resourceVersion: string, initialEventsEnd: boolean) => string;
  lifetimeMs: number;
  serverClosing: AbortSignal;
  logger: Logger;
}

/**
 * Per server (its closing signal): the open streams, which the signal reaches through one
 * listener (an EventTarget looks for duplicates on every add and remove, so a listener per
 * watch would make opening and closing ten thousand watches quadratic), and their wake-ups: each
 * stream's next bookmark or the end of its lifetime, entries in lists swept by one timer per
 * distinct interval (deadlines.ts), not Node timers of its own. They keep the process alive, as
 * a timer per watch did.
 */
interface ServerStreams {
  readonly open: Set<WatchStream>;
  readonly wakeUps: Deadlines;
}

const servers = new WeakMap<AbortSignal, ServerStreams>();

function serverOf(signal: AbortSignal): ServerStreams {
  let server = servers.get(signal);
  if (!server) {
    const open = new Set<WatchStream>();
    servers.set(signal, (server = { open, wakeUps: new Deadlines(true) }));
    signal.addEventListener('abort', () => {
      for (const s of [...open]) s.close();
    }, { once: true });
  }
  return server;
}

/**
 * The streams corked in this turn. A commit batch's events reach each watcher one by one; its
 * stream is corked at the first and uncorked once the batch is out (next tick), so a batch of k
 * events is one write per stream, not k (each write to an HTTP/2 stream or TLS socket has a fixed
 * cost, paid again by its completion callback).
 */
let corked: WatchStream[] = [];

function uncorkAll(): void {
  const streams = corked;
  corked = [];
  for (const s of streams) s.uncork();
}

/** The stream is its own wake-up entry (`expire`): its next bookmark, or its lifetime's end. */
export class WatchStream extends DeadlineEntry {
  private finished = false;
  private isCorked = false;
  private stuck: NodeJS.Timeout | undefined;
  /** When the lifetime ends (performance.now()). */
  private readonly endsAt: number;
  /** The 'drain' listener, made the first time the client falls behind (most watches never do). */
  private onDrain: (() => void) | undefined;

  constructor(
    private readonly res: WatchResponse,
    private readonly watch: ObjectWatch<KubeObject>,
    private readonly o: WatchStreamOptions,
  ) {
    super();
    const now = performance.now();
    this.endsAt = now + o.lifetimeMs;
    this.wakeAfter(now);
    // 'on', not 'once' (finish runs once anyway): no wrapper per watch; 'drain' is listened
    // for only while paused, so an idle watch holds one listener.
    res.on('close', this.finish);
    serverOf(o.serverClosing).open.add(this);
    // The client may have gone, or the server begun to stop, while the watch was being set up.
    if (o.serverClosing.aborted || responseClosed(res)) this.finish();
    else watch.start(this);
  }

  /** The server is stopping: the stream ends cleanly. */
  close(): void {
    this.finish();
  }

  /**
   * Wakes at the next bookmark (BOOKMARK_INTERVAL_MS from `now`, for a client that asked for
   * them) or at the lifetime's end, whichever is first. Bookmarks are listed together, lifetime
   * ends by the lifetime's length: each list gets its entries in (almost) deadline order.
   */
  private wakeAfter(now: number): void {
    const wakeUps = serverOf(this.o.serverClosing).wakeUps;
    if (this.o.bookmark && now + BOOKMARK_INTERVAL_MS < this.endsAt) wakeUps.add(this, now + BOOKMARK_INTERVAL_MS, BOOKMARK_INTERVAL_MS);
    else wakeUps.add(this, this.endsAt, this.o.lifetimeMs);
  }

  /** A wake-up is due: the lifetime is up, or a bookmark is asked for and the next one planned. */
  expire(): void {
    if (this.finished) return;
    // Its own deadline, not the clock: a list sweeps everything up to the time it was armed for.
    if (this.at >= this.endsAt) return this.finish();
    this.wakeAfter(performance.now());
    this.watch.requestBookmark();
  }

  /** The watch's sink: one event. */
  next(ev: ObjectWatchEvent<KubeObject>): boolean {
    if (this.finished) return false;
    if (ev.type !== 'BOOKMARK') return this.write(this.o.encode(ev.type, ev.object));
    return this.o.bookmark ? this.write(this.o.bookmark(ev.resourceVersion, ev.initialEventsEnd === true)) : true;
  }

  /** The watch's sink: the watch is over (with an error: sent as an ERROR event first). */
  end(err?: unknown): void {
    if (err !== undefined && !this.finished && !this.res.writableEnded) {
      const status = isStatusError(err) ? err.status : internal('watch failed').status;
      if (!isStatusError(err)) this.o.logger.error({ err }, 'watch failed');
      this.res.write(`${JSON.stringify({ type: 'ERROR', object: status })}\n`);
    }
    this.finish();
  }

  /** Sends what this turn's writes held (uncorkAll). */
  uncork(): void {
    this.isCorked = false;
    this.res.uncork?.();
  }

  /** Writes; false when the client is not keeping up (the watch then pauses until 'drain'). */
  private write(chunk: string | Buffer): boolean {
    if (!this.isCorked && this.res.cork) {
      this.isCorked = true;
      this.res.cork();
      if (corked.push(this) === 1) process.nextTick(uncorkAll);
    }
    if (this.res.write(chunk)) return true;
    // Paused, the watch's own bounded queue ends it if the client stays behind; a client that
    // takes nothing at all for a minute is cut off (it re-lists), as kube-apiserver ends
    // watchers that cannot keep up.
    if (this.stuck === undefined) {
      this.stuck = setTimeout(() => this.cutOff(), STUCK_CLIENT_MS);
      this.res.once('drain', (this.onDrain ??= () => this.drained()));
    }
    return false;
  }

  private drained(): void {
    clearTimeout(this.stuck);
    this.stuck = undefined;
    if (!this.finished) this.watch.resume();
  }

  private cutOff(): void {
    this.res.destroy();
    this.finish();
  }

  private readonly finish = (): void => {
    if (this.finished) return;
    this.finished = true;
    const server = servers.get(this.o.serverClosing);
    server?.wakeUps.remove(this);
    server?.open.delete(this);
    clearTimeout(this.stuck);
    if (this.onDrain) this.res.off('drain', this.onDrain);
    this.res.off('close', this.finish);
    this.watch.stop();
    if (!this.res.writableEnded) this.res.end();
    // An ended response closes only once the client has taken what is left; an HTTP/2 client
    // that keeps its flow-control window shut would hold the stream (and its connection, which
    // is never idle) for ever. It gets as long as a stuck client gets, then the stream is reset.
    if (!responseClosed(this.res)) {
      const unread = setTimeout(() => this.res.destroy(), STUCK_CLIENT_MS);
      (unread as { unref?: () => void }).unref?.();
      this.res.once('close', () => clearTimeout(unread));
    }
  };
}
