// Query parameter values read the way kube-apiserver's parameter codec reads them
// (apimachinery `runtime.Convert_Slice_string_To_bool` and friends, and Go's strconv), so a
// client that spells a boolean `True` (Python), `1` or leaves it empty means here what it means
// to kube.

import { goQuote } from '../../apimachinery/go-quote.js';
import { badRequest } from '../../apimachinery/status-error.js';

/**
 * A boolean query parameter as kube's conversion reads it: absent is `undefined`; present, it is
 * false only for `0` or `false` in any case, and true for anything else, the empty value of
 * `?watch=` and a bare `?watch` included (Go's query parser gives both as one empty value).
 */
export function queryBool(query: URLSearchParams, name: string): boolean | undefined {
  const v = query.get(name);
  if (v === null) return undefined;
  // Go's EqualFold: U+017F (long s) folds to s as well.
  return !(v === '0' || v.toLowerCase().replace(/\u017f/g, 's') === 'false');
}

const GO_TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const GO_FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** Go's strconv.ParseBool: undefined for anything it refuses. */
export function goParseBool(v: string): boolean | undefined {
  if (GO_TRUE.has(v)) return true;
  if (GO_FALSE.has(v)) return false;
  return undefined;
}

/**
 * Whether the answer is indented (kube's `isPrettyPrint`): a non-empty `pretty` decides by Go's
 * ParseBool (a value it refuses is false); without one, the user agents of people at a terminal
 * or a browser (curl, Wget, Mozilla/5.0) get it indented.
 */
export function isPretty(query: URLSearchParams, userAgent: string | undefined): boolean {
  const pp = query.get('pretty');
  if (pp) return goParseBool(pp) ?? false;
  const ua = userAgent ?? '';
  return ua.startsWith('curl') || ua.startsWith('Wget') || ua.startsWith('Mozilla/5.0');
}

const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;

/**
 * An integer query parameter as kube's conversion reads it (Go's `strconv.ParseInt(v, 10, 64)`:
 * an optional sign and decimal digits, nothing else, the empty value refused). A value it
 * refuses is kube's 400, in ParseInt's words. Numbers past 2^53 lose precision, which no
 * parameter we read (limit, timeoutSeconds, gracePeriodSeconds) can tell apart.
 */
export function queryInt64(query: URLSearchParams, name: string): number | undefined {
  const v = query.get(name);
  if (v === null) return undefined;
  if (!/^[+-]?\d+$/.test(v)) throw badRequest(`strconv.ParseInt: parsing ${goQuote(v)}: invalid syntax`);
  const n = BigInt(v);
  if (n > INT64_MAX || n < INT64_MIN) throw badRequest(`strconv.ParseInt: parsing ${goQuote(v)}: value out of range`);
  return Number(n);
}

/** Go's %q of a string, near enough for an error message: JSON's quoting. */

/**
 * The query string as Go's `url.ParseQuery` reads it (kube reads `req.URL.Query()`, which drops
 * what ParseQuery refuses): pairs split on `&` only; a pair containing `;` is dropped (Go 1.17's
 * rule), and so is a pair with a malformed `%` escape; `+` is a space. URLSearchParams would
 * keep both kinds of pair, so `?labelSelector=a;b` or `?labelSelector=%zz` would filter here and
 * not in kube.
 */
export function parseGoQuery(raw: string): URLSearchParams {
  // The common case (nothing Go would drop): URLSearchParams reads it the same.
  if (!raw.includes(';') && !/%(?![0-9a-fA-F]{2})/.test(raw)) return new URLSearchParams(raw);
  const out = new URLSearchParams();
  for (const pair of raw.split('&')) {
    if (pair === '' || pair.includes(';') || /%(?![0-9a-fA-F]{2})/.test(pair)) continue;
    const eq = pair.indexOf('=');
    const key = eq < 0 ? pair : pair.slice(0, eq);
    const value = eq < 0 ? '' : pair.slice(eq + 1);
    out.append(goUnescape(key), goUnescape(value));
  }
  return out;
}

/** Go's QueryUnescape of text whose escapes are well formed: `+` a space, `%XX` runs as UTF-8. */
const goUnescape = (s: string): string =>
  s.replace(/\+/g, ' ').replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => Buffer.from(run.replace(/%/g, ''), 'hex').toString('utf8'));
