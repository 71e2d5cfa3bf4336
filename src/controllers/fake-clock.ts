// A manual clock for controller tests: time moves only when the test calls advance(), and the
// timers that fall due run in time order. Lives beside the code (not in a .test file) because
// several test files share it; nothing in the server imports it.

import type { Clock, TimerHandle } from './clock.js';

interface Pending {
  at: number;
  seq: number;
  fn: () => void;
}

export class FakeClock implements Clock {
  private current: number;
  private seq = 0;
  private pending: Pending[] = [];

  constructor(start = Date.parse('2026-01-01T00:00:00Z')) {
    this.current = start;
  }

  now(): Date {
    return new Date(this.current);
  }

  after(ms: number, fn: () => void): TimerHandle {
    const p: Pending = { at: this.current + Math.max(0, ms), seq: this.seq++, fn };
    this.pending.push(p);
    return { cancel: () => void (this.pending = this.pending.filter((x) => x !== p)) };
  }

  /** Timers not yet run. */
  get timers(): number {
    return this.pending.length;
  }

  /** Moves time forward by `ms`, running each timer that falls due (and letting promises settle between them). */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    for (;;) {
      this.pending.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.pending[0];
      if (!next || next.at > target) break;
      this.pending.shift();
      this.current = next.at;
      next.fn();
      await settle();
    }
    this.current = target;
    await settle();
  }
}

/** Lets every already-queued promise continuation (and the ones they queue) run. */
export async function settle(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}
