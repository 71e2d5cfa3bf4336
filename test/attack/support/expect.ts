// The assertions every attack test makes about "another client": it was answered during and
// after the attack, every time, within the thresholds the test states.

import assert from 'node:assert/strict';
import { explain, type AttackFigures } from './measure.js';

export interface Thresholds {
  /** Another client's GET p99 during the attack, and after it (ms). */
  p99DuringMs: number;
  p99AfterMs: number;
  /** Growth of the server's peak RSS over the baseline during the attack (MB). */
  rssGrowthMB?: number;
  /** Descriptors the server may hold at the end of the "after" phase beyond its baseline. */
  fdsAfterOverBaseline?: number;
}

export function expectServed(x: AttackFigures, t: Thresholds): void {
  const why = explain(x);
  // Printed as well: the test log then carries the figures of a passing run too.
  console.log(why);
  for (const [label, phase, p99] of [['during', x.during, t.p99DuringMs], ['after', x.after, t.p99AfterMs]] as const) {
    assert.ok(phase.count >= 2, `another client got fewer than 2 answers ${label} the attack\n${why}`);
    assert.equal(phase.failures, 0, `another client's GETs failed ${label} the attack\n${why}`);
    assert.ok(phase.p99 < p99, `another client's GET p99 ${label} the attack is ${phase.p99.toFixed(0)} ms (threshold ${p99} ms)\n${why}`);
  }
  if (t.rssGrowthMB !== undefined) {
    const growth = x.during.peakRssMB - x.baseline.endRssMB;
    assert.ok(growth < t.rssGrowthMB, `the server's RSS grew by ${growth.toFixed(1)} MB during the attack (threshold ${t.rssGrowthMB} MB)\n${why}`);
  }
  if (t.fdsAfterOverBaseline !== undefined) {
    const over = x.after.endFds - x.baseline.endFds;
    assert.ok(over <= t.fdsAfterOverBaseline, `the server holds ${over} more descriptors after the attack than before (threshold ${t.fdsAfterOverBaseline})\n${why}`);
  }
}
