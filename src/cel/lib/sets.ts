// cel-go's sets extension (Kubernetes enables it from 1.29): sets.contains, sets.equivalent,
// sets.intersects over lists, with CEL equality.

import { fn, type Overload } from '../functions.js';
import { T } from '../types.js';
import { celEquals, type CelValue } from '../values.js';

const A = T.param('A');
const has = (list: readonly CelValue[], x: CelValue): boolean => list.some((y) => celEquals(y, x) === true);
const contains = (a: readonly CelValue[], b: readonly CelValue[]): boolean => b.every((x) => has(a, x));
const cost = (args: readonly CelValue[]): number => (args[0] as readonly CelValue[]).length * (args[1] as readonly CelValue[]).length;

export const setsOverloads: Overload[] = [
  fn('list_sets_contains_list', 'sets.contains', [T.list(A), T.list(A)], T.bool, contains, cost),
  fn('list_sets_equivalent_list', 'sets.equivalent', [T.list(A), T.list(A)], T.bool, (a: readonly CelValue[], b: readonly CelValue[]) => contains(a, b) && contains(b, a), cost),
  fn('list_sets_intersects_list', 'sets.intersects', [T.list(A), T.list(A)], T.bool, (a: readonly CelValue[], b: readonly CelValue[]) => b.some((x) => has(a, x)), cost),
];
