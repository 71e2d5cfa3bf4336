// Kubernetes' lists library: isSorted, sum, min, max, indexOf, lastIndexOf on lists of comparable
// (or summable) values. Each costs one traversal of the list (Kubernetes' CostEstimator).

import { method, type Overload } from '../functions.js';
import { T, type CelType } from '../types.js';
import { CelError, CelMap, Duration, Uint, celCompare, celEquals, codePoints, isList, type CelResult, type CelValue } from '../values.js';
import { STRING_TRAVERSAL_FACTOR } from './cost.js';
import { coreOverloads } from './core.js';

/** Kubernetes' traversalCost: strings by length, containers by their contents, anything else 1. */
export function traversalCost(v: CelValue): number {
  if (typeof v === 'string') return Math.ceil(codePoints(v) * STRING_TRAVERSAL_FACTOR);
  if (v instanceof Uint8Array) return v.length;
  if (isList(v)) return v.reduce<number>((n, x) => n + traversalCost(x), 0);
  if (v instanceof CelMap) return [...v].reduce((n, [k, x]) => n + traversalCost(k as CelValue) + traversalCost(x), 0);
  return 1;
}

const cost = (args: readonly CelValue[]): number => traversalCost(args[0]!);

const COMPARABLE: [string, CelType][] = [
  ['int', T.int],
  ['uint', T.uint],
  ['double', T.double],
  ['bool', T.bool],
  ['duration', T.duration],
  ['timestamp', T.timestamp],
  ['string', T.string],
  ['bytes', T.bytes],
];
const SUMMABLE: [string, CelType, CelValue][] = [
  ['int', T.int, 0n],
  ['uint', T.uint, new Uint(0n)],
  ['double', T.double, 0],
  ['duration', T.duration, new Duration(0n)],
];

function isSorted(list: readonly CelValue[]): CelResult {
  for (let i = 1; i < list.length; i++) {
    const c = celCompare(list[i - 1]!, list[i]!);
    if (c instanceof CelError) return c;
    if (c === 1) return false;
  }
  return true;
}

function extreme(name: string, prefer: number) {
  return (list: readonly CelValue[]): CelResult => {
    if (list.length === 0) return new CelError(`${name} called on empty list`);
    let best: CelValue = list[0]!;
    for (const v of list.slice(1)) {
      const c = celCompare(best, v);
      if (c instanceof CelError) return c;
      if (c === prefer) best = v;
    }
    return best;
  };
}

const adders = coreOverloads.filter((o) => o.name === '_+_');

function sum(zero: CelValue) {
  return (list: readonly CelValue[]): CelResult => {
    let acc: CelValue = zero;
    for (const v of list) {
      const add = adders.find((o) => o.params.length === 2 && sameKind(o.params[0]!, acc) && sameKind(o.params[1]!, v));
      if (!add) return new CelError('no such overload');
      const r = add.impl([acc, v], {});
      if (r instanceof CelError) return r;
      acc = r;
    }
    return acc;
  };
}

const sameKind = (t: CelType, v: CelValue): boolean =>
  (t.kind === 'int' && typeof v === 'bigint') || (t.kind === 'uint' && v instanceof Uint) || (t.kind === 'double' && typeof v === 'number') || (t.kind === 'duration' && v instanceof Duration);

function indexOf(list: readonly CelValue[], x: CelValue): CelResult {
  for (let i = 0; i < list.length; i++) if (celEquals(list[i]!, x) === true) return BigInt(i);
  return -1n;
}

function lastIndexOf(list: readonly CelValue[], x: CelValue): CelResult {
  for (let i = list.length - 1; i >= 0; i--) if (celEquals(list[i]!, x) === true) return BigInt(i);
  return -1n;
}

const A = T.param('A');

export const listsOverloads: Overload[] = [
  ...COMPARABLE.map(([n, t]) => method(`list_${n}_is_sorted_bool`, 'isSorted', [T.list(t)], T.bool, isSorted, cost)),
  ...SUMMABLE.map(([n, t, zero]) => method(`list_${n}_sum_${n}`, 'sum', [T.list(t)], t, sum(zero), cost)),
  ...COMPARABLE.map(([n, t]) => method(`list_${n}_max_${n}`, 'max', [T.list(t)], t, extreme('max', -1), cost)),
  ...COMPARABLE.map(([n, t]) => method(`list_${n}_min_${n}`, 'min', [T.list(t)], t, extreme('min', 1), cost)),
  method('list_a_index_of_int', 'indexOf', [T.list(A), A], T.int, indexOf, cost),
  method('list_a_last_index_of_int', 'lastIndexOf', [T.list(A), A], T.int, lastIndexOf, cost),
];
