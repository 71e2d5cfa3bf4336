// An HTTP/1.1 connection's header deadline (connection-guard.ts): Go's ReadHeaderTimeout for its
// first request, IdleTimeout then ReadHeaderTimeout for each one after.

import type { Socket } from 'node:net';

/**
 * An HTTP/1.1 connection's header deadline: its next request's headers are due by `dueAt`, unless
 * a request is under way (a pipelined one may start before the last ends). One timer per
 * connection, made lazily: a request and its response only move numbers, and the timer, when it
 * fires, either finds the deadline passed (the connection is closed), or sets itself again for
 * what is left, or finds requests under way (the next response sets it again). Deadlines only
 * move later (each response's is idle + headers from then), so the timer never fires late.
 */
export class HeaderDeadline {
  private timer: NodeJS.Timeout | undefined;
  private dueAt = 0;
  private active = 0;
  private stopped = false;

  constructor(
    private readonly socket: Socket,
    /** Go's IdleTimeout then ReadHeaderTimeout: how long after a response the next head may take. */
    private readonly idleThenHeadersMs: number,
  ) {}

  /** The next request's headers are due within `ms` from now. */
  arm(ms: number): void {
    this.dueAt = performance.now() + ms;
    if (!this.timer && !this.stopped) this.schedule(ms);
  }

  requestStarted(): void {
    this.active++;
  }

  /** A response is over (its 'close'); the last one under way starts the idle connection's clock. */
  readonly responseOver = (): void => {
    if (--this.active === 0 && !this.socket.destroyed) this.arm(this.idleThenHeadersMs);
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
