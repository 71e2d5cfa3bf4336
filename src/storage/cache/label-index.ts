// The watch cache's inverted index on labels (kube's cacher keeps "indexers" for chosen fields;
// this one covers every label): label key → value → the keys holding it, each set in store
// order (sorted-keys.ts). A list narrowed by a selector's equality / `in` requirements walks the
// smallest requirement's sets in key order, checks the other requirements against the labels
// kept per key, and stops at `limit`: it costs what the matching keys cost, not the whole cache.
// The caller (the registry) still verifies every item with its full selector.
//
// The index is built on first use (decoding every object once, shared with later readers of the
// same stored value) and then kept up to date with each change: a server whose clients never
// select by label pays nothing for it, at start-up or per write.

import type { KeyValue, LabelEquality } from '../revisioned-store.js';
import { compareUtf8, SortedKeys } from './sorted-keys.js';
import { hasPrefix } from '../key-prefix.js';

/** An object's labels from its stored bytes (the registry's shared decode); may throw for bytes it cannot decode. */
export type LabelsOf = (kv: KeyValue) => Readonly<Record<string, string>> | undefined;

type Labels = Readonly<Record<string, string>>;
/** Kept for a key whose labels could not be read: a candidate for every narrowed list (the caller's decode reports it). */
const UNREADABLE: Labels = Object.freeze({});

export interface IndexedPage {
  keys: string[];
  /** More candidates that satisfy the requirements remain after the last key. */
  more: boolean;
}

export class LabelIndex {
  private readonly byLabel = new Map<string, Map<string, SortedKeys>>();
  /** The labels indexed for each key (what to take out when it changes). */
  private readonly labelsByKey = new Map<string, Labels>();
  private readonly unreadable = new SortedKeys();

  constructor(private readonly labelsOf: LabelsOf) {}

  /** Fills the index from the cache's values, visited in store order (each set is then built already sorted). */
  fill(kvs: Iterable<KeyValue>): void {
    const pending = new Map<SortedKeys, string[]>();
    for (const kv of kvs) {
      const labels = this.read(kv);
      this.labelsByKey.set(kv.key, labels);
      const sets = labels === UNREADABLE ? [this.unreadable] : Object.keys(labels).map((name) => this.setFor(name, labels[name]!));
      for (const set of sets) {
        let keys = pending.get(set);
        if (!keys) pending.set(set, (keys = []));
        keys.push(kv.key);
      }
    }
    for (const [set, keys] of pending) set.reset(keys);
  }

  /** A key's new value (created or updated). */
  put(kv: KeyValue): void {
    const before = this.labelsByKey.get(kv.key);
    const after = this.read(kv);
    if (before) this.remove(kv.key, before, after);
    this.labelsByKey.set(kv.key, after);
    if (after === UNREADABLE) this.unreadable.add(kv.key);
    for (const name in after) {
      if (before !== UNREADABLE && before?.[name] === after[name]) continue;
      this.setFor(name, after[name]!).add(kv.key);
    }
  }

  delete(key: string): void {
    const before = this.labelsByKey.get(key);
    if (!before) return;
    this.labelsByKey.delete(key);
    this.remove(key, before, undefined);
  }

  /**
   * Up to `limit` keys under `prefix` after `startAfter`, in store order, whose labels satisfy
   * every requirement (plus keys whose labels could not be read).
   */
  page(prefix: string, reqs: readonly LabelEquality[], startAfter: string | undefined, limit: number): IndexedPage {
    // The requirement with the fewest keys drives the walk; the others are checked per key.
    let best: SortedKeys[] = [];
    let bestSize = Infinity;
    let driver: LabelEquality | undefined;
    for (const r of reqs) {
      const values = this.byLabel.get(r.key);
      const sets: SortedKeys[] = [];
      let size = 0;
      for (const v of r.values) {
        const set = values?.get(v);
        // A value named twice (`in (x,x)`) is one set: walked twice it would list its keys twice.
        if (set && !sets.includes(set)) {
          sets.push(set);
          size += set.size;
        }
      }
      if (size < bestSize) {
        best = sets;
        bestSize = size;
        driver = r;
      }
    }
    const others = reqs.filter((r) => r !== driver);
    const sources = this.unreadable.size ? [...best, this.unreadable] : best;
    // One cursor per set; the values of one label are disjoint sets, merged in store order.
    const cursors = sources.map((s) => (startAfter === undefined ? s.lowerBound(prefix) : Math.max(s.lowerBound(prefix), s.upperBound(startAfter))));
    const keys: string[] = [];
    for (;;) {
      let next: string | undefined;
      let from = -1;
      for (let j = 0; j < sources.length; j++) {
        const k = sources[j]!.at(cursors[j]!);
        if (k === undefined || !hasPrefix(k, prefix)) continue;
        if (next === undefined || compareUtf8(k, next) < 0) {
          next = k;
          from = j;
        }
      }
      if (next === undefined) return { keys, more: false };
      cursors[from]!++;
      if (others.length && !this.satisfies(next, others)) continue;
      if (keys.length >= limit) return { keys, more: true };
      keys.push(next);
    }
  }

  /** Labels indexed and keys held: for the memory figures in the bench. */
  get size(): { keys: number; entries: number } {
    let entries = 0;
    for (const values of this.byLabel.values()) for (const set of values.values()) entries += set.size;
    return { keys: this.labelsByKey.size, entries };
  }

  private satisfies(key: string, reqs: readonly LabelEquality[]): boolean {
    const labels = this.labelsByKey.get(key);
    if (labels === undefined) return false;
    if (labels === UNREADABLE) return true;
    for (const r of reqs) {
      const v = labels[r.key];
      if (v === undefined || !r.values.includes(v)) return false;
    }
    return true;
  }

  private read(kv: KeyValue): Labels {
    try {
      return this.labelsOf(kv) ?? {};
    } catch {
      return UNREADABLE;
    }
  }

  private setFor(name: string, value: string): SortedKeys {
    let values = this.byLabel.get(name);
    if (!values) this.byLabel.set(name, (values = new Map()));
    let set = values.get(value);
    if (!set) values.set(value, (set = new SortedKeys()));
    return set;
  }

  /** Takes `key` out of the sets of `before`'s labels that `after` does not keep. */
  private remove(key: string, before: Labels, after: Labels | undefined): void {
    if (before === UNREADABLE) {
      this.unreadable.delete(key);
      return;
    }
    for (const name in before) {
      const value = before[name]!;
      if (after !== undefined && after !== UNREADABLE && after[name] === value) continue;
      const values = this.byLabel.get(name)!;
      const set = values.get(value)!;
      set.delete(key);
      // Empty sets go, so a label whose values are all distinct does not grow without bound.
      if (set.size === 0) {
        values.delete(value);
        if (values.size === 0) this.byLabel.delete(name);
      }
    }
  }
}
