// cel-go's optional types library (Kubernetes enables it from 1.28): optional.of, ofNonZeroValue,
// none, hasValue, value, or, orValue. The syntax (`a.?f`, `a[?i]`, `[?x]`, `{?k: v}`) and the
// optMap/optFlatMap macros are the parser's and evaluator's.

import { fn, method, type Overload } from '../functions.js';
import { T } from '../types.js';
import { CelError, CelMap, Duration, Optional, Timestamp, Uint, isList, type CelValue } from '../values.js';

const A = T.param('A');

function isZero(v: CelValue): boolean {
  if (v === null || v === false || v === '' || v === 0n || v === 0) return true;
  if (v instanceof Uint) return v.value === 0n;
  if (v instanceof Uint8Array || isList(v)) return v.length === 0;
  if (v instanceof CelMap) return v.size === 0;
  if (v instanceof Duration || v instanceof Timestamp) return v.nanos === 0n;
  return false;
}

export const optionalOverloads: Overload[] = [
  fn('optional_of', 'optional.of', [A], T.optional(A), (v: CelValue) => Optional.of(v)),
  fn('optional_ofNonZeroValue', 'optional.ofNonZeroValue', [A], T.optional(A), (v: CelValue) => (isZero(v) ? Optional.NONE : Optional.of(v))),
  fn('optional_none', 'optional.none', [], T.optional(T.dyn), () => Optional.NONE),
  method('optional_hasValue', 'hasValue', [T.optional(A)], T.bool, (o: Optional) => o.hasValue),
  method('optional_value', 'value', [T.optional(A)], A, (o: Optional) => (o.hasValue ? o.value! : new CelError('optional.none() dereference'))),
  method('optional_or_optional', 'or', [T.optional(A), T.optional(A)], T.optional(A), (o: Optional, other: Optional) => (o.hasValue ? o : other)),
  method('optional_orValue_value', 'orValue', [T.optional(A), A], A, (o: Optional, v: CelValue) => (o.hasValue ? o.value! : v)),
];
