// The constants of cel-go's cost model (common/cost.go) and the size-based costs built on them.

import { sizeOf, type CelResult } from '../values.js';

export const STRING_TRAVERSAL_FACTOR = 0.1;
export const REGEX_STRING_LENGTH_FACTOR = 0.25;
export const LIST_CREATE_BASE_COST = 10;
export const MAP_CREATE_BASE_COST = 30;
export const SELECT_AND_IDENT_COST = 1;

/** ceil(size × factor): the cost of traversing a value once. */
export const traversal = (v: CelResult, factor = STRING_TRAVERSAL_FACTOR): number => Math.ceil(sizeOf(v) * factor);

/** cel-go's cost of a regex match: (1 + len(s)) × 0.1 times len(re) × 0.25, each rounded up. */
export const regexCost = (s: CelResult, re: CelResult): number => Math.ceil((1 + sizeOf(s)) * STRING_TRAVERSAL_FACTOR) * Math.ceil(sizeOf(re) * REGEX_STRING_LENGTH_FACTOR);
