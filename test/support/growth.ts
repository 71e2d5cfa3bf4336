// How the cost of some work grows with its input, for tests that must tell linear from
// quadratic on a shared, noisy machine without timing anything absolutely: the input is grown
// until one run takes long enough to measure, then runs at that size and at four times it are
// taken in turns and the best of each compared. Linear work grows about 4×, quadratic about 16×.
// Cost is the process's CPU time (all its threads, a decoding thread's included), not the
// wall clock: other processes on the machine do not count.

export interface Growth {
  /** The size at which the comparison was made (the larger is 4×). */
  n: number;
  /** Best CPU time at n and at 4n (ms). */
  small: number;
  large: number;
  ratio: number;
}

async function timed(run: () => unknown): Promise<number> {
  const started = process.cpuUsage();
  await run();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000;
}

/**
 * `make(n)` builds an input of size n; `run` does the work on it. Starts at `start` and grows n
 * until the best of three runs takes `measurableMs` (or n reaches `maxN`), then compares n and 4n.
 */
export async function growth<T>(make: (n: number) => T, run: (input: T) => unknown, o: { start: number; maxN: number; measurableMs?: number; runs?: number }): Promise<Growth> {
  const measurable = o.measurableMs ?? 30;
  let n = o.start;
  let input = make(n);
  // The first runs of anything also compile it.
  for (let k = 0; k < 3; k++) await timed(() => run(input));
  for (;;) {
    let t = Number.POSITIVE_INFINITY;
    for (let k = 0; k < 3; k++) t = Math.min(t, await timed(() => run(input)));
    if (t >= measurable || n >= o.maxN) break;
    n *= t < measurable / 16 ? 4 : 2;
    input = make(n);
  }
  const bigger = make(4 * n);
  await timed(() => run(bigger));
  let small = Number.POSITIVE_INFINITY;
  let large = Number.POSITIVE_INFINITY;
  // In turns, so that a busy moment of the machine weighs on both alike.
  for (let k = 0; k < (o.runs ?? 5); k++) {
    small = Math.min(small, await timed(() => run(input)));
    large = Math.min(large, await timed(() => run(bigger)));
  }
  return { n, small, large, ratio: large / Math.max(small, 0.01) };
}
