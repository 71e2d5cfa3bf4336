// How late the event loop is, measured cheaply: a timer due every INTERVAL_MS notes how late it
// fired. While a long turn is still running (thousands of requests parsed and answered in one
// poll phase, a large list serialized), the time since the last tick says so before the timer
// can fire again, so `current()` reports the delay as it grows, not only once the turn is over.
// Node being single-threaded, this is the measure of overload: every request waits that long.

const INTERVAL_MS = 10;

export class EventLoopLag {
  private readonly timer: NodeJS.Timeout;
  private lastTickAt = performance.now();
  private lastLag = 0;

  constructor(private readonly now: () => number = () => performance.now()) {
    this.lastTickAt = now();
    this.timer = setInterval(() => this.tick(), INTERVAL_MS);
    // The monitor must never keep a stopping process alive.
    this.timer.unref();
  }

  /** Called by the timer; exposed for tests. */
  tick(): void {
    const at = this.now();
    this.lastLag = Math.max(0, at - this.lastTickAt - INTERVAL_MS);
    this.lastTickAt = at;
  }

  /** The event loop's delay now, in ms: the last tick's lateness or the current turn's, whichever is larger. */
  current(): number {
    return Math.max(this.lastLag, this.now() - this.lastTickAt - INTERVAL_MS);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
