// resourceVersions as kube-apiserver reads them (APIObjectVersioner.ParseResourceVersion): an
// unsigned 64-bit decimal integer, parsed exactly. JavaScript numbers are exact only up to 2^53,
// so a value above that (which no revision of ours can reach) is clamped to the largest exact
// number: it still compares as larger than every stored revision, just as the value itself
// would, and is never rounded onto a revision that exists. Messages print the exact value.

import { goQuote } from '../apimachinery/go-quote.js';
import { badRequest, type StatusError } from '../apimachinery/status-error.js';

const MAX_UINT64 = (1n << 64n) - 1n;
const MAX_EXACT = BigInt(Number.MAX_SAFE_INTEGER);

/** kube's field error for a resourceVersion strconv.ParseUint refuses (Go's wording). */
function invalidResourceVersion(rv: string, why: 'invalid syntax' | 'value out of range'): StatusError {
  return badRequest(`resourceVersion: Invalid value: ${goQuote(rv)}: strconv.ParseUint: parsing ${goQuote(rv)}: ${why}`);
}

/** The exact value; "" and "0" are 0 (no particular version). A 400 for anything that is not a uint64. */
export function exactResourceVersion(rv: string): bigint {
  if (rv === '') return 0n;
  if (!/^[0-9]+$/.test(rv)) throw invalidResourceVersion(rv, 'invalid syntax');
  const value = BigInt(rv);
  if (value > MAX_UINT64) throw invalidResourceVersion(rv, 'value out of range');
  return value;
}

/** The value as a revision to compare with the store's (clamped above 2^53, see above). */
export function parseResourceVersion(rv: string): number {
  const value = exactResourceVersion(rv);
  return value > MAX_EXACT ? Number.MAX_SAFE_INTEGER : Number(value);
}

/** Whether two resourceVersions name the same version (kube compares them parsed: "007" is "7"). */
export function sameResourceVersion(a: string, b: string): boolean {
  return exactResourceVersion(a) === exactResourceVersion(b);
}
