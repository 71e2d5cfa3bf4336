// An HTTP/1.1 connection as Go's server keeps it (connection-guard.ts makes one per connection):
// - its header deadline: Go's ReadHeaderTimeout for its first request, IdleTimeout then
//   ReadHeaderTimeout for each one after;
// - its requests under way, so that what must wait for their answers waits: a malformed request
//   pipelined behind a valid one is answered (400) only after the valid one's answer, as Go reads
//   the next request only once the previous response is written;
// - its end when the server stops: keep-alive ends (the newest response not yet begun says
//   `Connection: close`), and the connection is closed once no response is under way (at once
//   if idle), as Go's Shutdown closes idle connections and stops keep-alives; one that has not
//   sent its first request yet is given until it is NEW_CONNECTION_GRACE_MS old, as Go gives a
//   new connection (its request, if it comes, is served).

import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * How long a stopping server waits for a new connection's first request before closing it:
 * Go's Shutdown treats a connection as idle once it has been new (no request read) this long.
 */
export const NEW_CONNECTION_GRACE_MS = 5000;

/**
 * One timer per connection, made lazily: a request and its response only move numbers, and the
 * timer, when it fires, either finds the deadline passed (the connection is closed), or sets
 * itself again for what is left, or finds requests under way (the next response sets it again).
 * Deadlines only move later (each response's is idle + headers from then), so the timer never
 * fires late.
 */
export class Http1Connection {
  private timer: NodeJS.Timeout | undefined;
  private dueAt = 0;
  private active = 0;
  private stopped = false;
  /** The newest response under way: a stop's `Connection: close` goes on it, if it has not begun. */
  private latest: ServerResponse | undefined;
  /** What to do once no response is under way, instead of starting the idle clock. */
  private whenIdle: (() => void) | undefined;
  private closing = false;
  /** Whether a request has come on it (a connection that never had one is new, to Go). */
  private served = false;

  constructor(
    private readonly socket: Socket,
    /** Go's IdleTimeout then ReadHeaderTimeout: how long after a response the next head may take. */
    private readonly idleThenHeadersMs: number,
    /** performance.now() when the connection was accepted. */
    private readonly acceptedAt = performance.now(),
  ) {}

  /** The next request's headers are due within `ms` from now. */
  arm(ms: number): void {
    this.dueAt = performance.now() + ms;
    if (!this.timer && !this.stopped) this.schedule(ms);
  }

  requestStarted(res: ServerResponse): void {
    this.active++;
    this.served = true;
    this.latest = res;
    if (this.closing) res.shouldKeepAlive = false;
  }

  /** A response is over (its 'close'); the last one under way starts the idle connection's clock. */
  readonly responseOver = (): void => {
    if (--this.active > 0 || this.socket.destroyed) return;
    this.latest = undefined;
    const then = this.whenIdle;
    if (!then) return this.arm(this.idleThenHeadersMs);
    this.whenIdle = undefined;
    then();
  };

  /** Runs `then` once the responses under way are over; at once if there are none. */
  afterResponses(then: () => void): void {
    if (this.active === 0) return then();
    const before = this.whenIdle;
    this.whenIdle = before ? () => (before(), then()) : then;
  }

  /** The server stops: no more keep-alive; closed once idle (now, if it is; a new one, once it is old enough). */
  shutdown(): void {
    this.closing = true;
    // Node writes `Connection: close` on a response that has not begun, and closes after it.
    if (this.latest && !this.latest.headersSent) this.latest.shouldKeepAlive = false;
    const left = this.acceptedAt + NEW_CONNECTION_GRACE_MS - performance.now();
    if (this.served || left <= 0) return this.afterResponses(this.close);
    // New: its first request may be on its way. Served if it comes (and the connection closed
    // after it, not kept alive); closed when the grace is over if it has not.
    setTimeout(() => this.active === 0 && this.close(), left).unref();
  }

  /** What has been written goes out first; then the connection closes. */
  private readonly close = (): void => {
    this.socket.destroySoon();
  };

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(this.fire, ms);
    this.timer.unref();
  }

  private readonly fire = (): void => {
    this.timer = undefined;
    if (this.stopped || this.active > 0) return;
    const left = this.dueAt - performance.now();
    if (left > 0) this.schedule(left);
    else this.socket.destroy();
  };
}
