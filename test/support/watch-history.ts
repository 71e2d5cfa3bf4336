// What a watcher must have seen, computed from the store's own history: the ground truth of the
// randomized watch checkers. Kube's selector transitions: a change that moves an object into a
// label filter is ADDED, out of it DELETED, within it MODIFIED.

export interface Seen {
  type: string;
  name: string;
  rv: number;
}

export interface Change {
  rv: number;
  name: string;
  /** The label value before the change (undefined: the object did not exist). */
  before?: string;
  /** The label value after (undefined: deleted). */
  after?: string;
}

/** The events a watcher filtering on `color` (or nothing) must see for the changes after `fromRv`. */
export function expectedEvents(history: readonly Change[], fromRv: number, color: string | undefined): Seen[] {
  const out: Seen[] = [];
  for (const c of history) {
    if (c.rv <= fromRv) continue;
    const was = c.before !== undefined && (color === undefined || c.before === color);
    const is = c.after !== undefined && (color === undefined || c.after === color);
    if (was && is) out.push({ type: 'MODIFIED', name: c.name, rv: c.rv });
    else if (is) out.push({ type: 'ADDED', name: c.name, rv: c.rv });
    else if (was) out.push({ type: 'DELETED', name: c.name, rv: c.rv });
  }
  return out;
}

/** A deterministic PRNG, so a failure can be replayed from its seed. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

/** The checkers' watchers: a label filter or none, slow or not, restarting every n events or not. */
export const WATCHER_SPECS: readonly { color?: string; slow: boolean; restartEvery?: number }[] = [
  { slow: false },
  { slow: true },
  { color: 'red', slow: false },
  { color: 'blue', slow: true },
  { slow: false, restartEvery: 5 },
  { color: 'red', slow: false, restartEvery: 3 },
];
