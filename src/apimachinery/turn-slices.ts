// Long work on the event loop in slices: the work asks, at points where it can stop, whether its
// slice is used up, and if so gives the loop a turn (a setImmediate: the poll phase, every other
// request's I/O and timers, runs in between) before going on. A body of megabytes is decoded in
// hundreds of such slices instead of holding every other client for as long as it takes.

/** Work done in one go before the event loop gets a turn (ms). */
export const SLICE_MS = 2;

export class TurnSlices {
  private started = performance.now();

  constructor(private readonly sliceMs = SLICE_MS) {}

  /** Whether the current slice is used up (cheap enough to ask every few thousand steps). */
  due(): boolean {
    return performance.now() - this.started >= this.sliceMs;
  }

  /** Gives the event loop a turn, then starts a new slice. */
  async pause(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.started = performance.now();
  }
}
