// The watch cache's keys kept in the stores' order (byte order of their UTF-8 form) as they
// change, so a page of a list is a binary search and a slice, not a sort of every key: a list
// with `limit` costs O(log n + limit) whatever the cache holds. Inserting or removing a key moves
// the array's tail (a memmove of pointers), paid once per created or deleted key, not per list.

import { hasPrefix } from '../key-prefix.js';

/**
 * Compares two strings in the byte order of their UTF-8 encodings (etcd's and SQLite's key
 * order). JavaScript's `<` compares UTF-16 code units, which agrees except that a surrogate
 * (a code point above U+FFFF) sorts below U+E000..U+FFFF there and above them in UTF-8.
 */
export function compareUtf8(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    // A surrogate against a unit at or above U+E000: the surrogate's code point is the larger.
    if (xs !== ys && (xs ? y : x) >= 0xe000) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/** Holds a code unit where UTF-16 and UTF-8 order can disagree (a surrogate or U+E000..U+FFFF). */
const WIDE = /[\ud800-\uffff]/;

const nativeOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export class SortedKeys {
  private keys: string[] = [];
  /** Keys held with WIDE units; while there are none, searches for a narrow key use native `<`. */
  private wide = 0;

  /** Replaces the whole set (a fresh list, already in store order; sorted again to be sure). */
  reset(keys: Iterable<string>): void {
    this.keys = [...keys].sort(compareUtf8);
    this.wide = this.keys.filter((k) => WIDE.test(k)).length;
  }

  get size(): number {
    return this.keys.length;
  }

  /** Adds `key` if it is not there yet. */
  add(key: string): void {
    const i = this.lowerBound(key);
    if (this.keys[i] === key) return;
    this.keys.splice(i, 0, key);
    if (WIDE.test(key)) this.wide++;
  }

  delete(key: string): void {
    const i = this.lowerBound(key);
    if (this.keys[i] !== key) return;
    this.keys.splice(i, 1);
    if (WIDE.test(key)) this.wide--;
  }

  /** Index of the first key not below `key`. */
  lowerBound(key: string): number {
    return this.search(key, false);
  }

  /** Index of the first key above `key`. */
  upperBound(key: string): number {
    return this.search(key, true);
  }

  /** Binary search: the first key above `key` (`past`), or not below it. */
  private search(key: string, past: boolean): number {
    const compare = this.orderFor(key);
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = compare(this.keys[mid]!, key);
      if (c < 0 || (past && c === 0)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Native comparison agrees with UTF-8 order when no string compared holds a WIDE unit. */
  private orderFor(key: string): (a: string, b: string) => number {
    return this.wide === 0 && !WIDE.test(key) ? nativeOrder : compareUtf8;
  }

  at(i: number): string | undefined {
    return this.keys[i];
  }

  /** How many keys start with `prefix`. */
  countPrefix(prefix: string): number {
    const last = prefix.charCodeAt(prefix.length - 1);
    // Keys starting with "…/" are exactly those in ["…/", "…0"): two binary searches.
    if (last < 0xd7ff) return this.lowerBound(prefix.slice(0, -1) + String.fromCharCode(last + 1)) - this.lowerBound(prefix);
    let n = 0;
    for (let i = this.lowerBound(prefix); i < this.keys.length && hasPrefix(this.keys[i]!, prefix); i++) n++;
    return n;
  }
}
