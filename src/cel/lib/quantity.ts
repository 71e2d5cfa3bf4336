// Kubernetes' quantity library over resource.Quantity's parsing: the value is held exactly, in
// nano-units (ParseQuantity rounds up to that precision), so comparison and addition are exact.

import { fn, method, type Overload } from '../functions.js';
import { T } from '../types.js';
import { CelError, INT64_MAX, INT64_MIN, Opaque, type CelResult } from '../values.js';
import { traversal } from './cost.js';

export const QUANTITY_TYPE = 'kubernetes.Quantity';
const NANO = 1_000_000_000n;
const MAX_EXPONENT = 4096;

export class QuantityValue extends Opaque {
  readonly typeName = QUANTITY_TYPE;
  /** The value × 10^9. */
  constructor(readonly nanos: bigint) {
    super();
  }
  equals(other: Opaque): boolean {
    return other instanceof QuantityValue && other.nanos === this.nanos;
  }
}

const FORMAT_WRONG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const SUFFIX = "unable to parse quantity's suffix";

const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

/** resource.Quantity's parseQuantityString: sign, digits, fraction, suffix; or the format error. */
function scanQuantity(str: string): { negative: boolean; num: string; denom: string; suffix: string } | undefined {
  const end = str.length;
  let pos = 0;
  let negative = false;
  if (str[0] === '-' || str[0] === '+') {
    negative = str[0] === '-';
    pos++;
  }
  while (pos < end && str[pos] === '0') pos++;
  if (pos >= end) return { negative, num: '0', denom: '', suffix: '' };
  let i = pos;
  while (i < end && isDigit(str[i])) i++;
  const num = str.slice(pos, i) || '0';
  if (i >= end) return { negative, num, denom: '', suffix: '' };
  pos = i;
  let denom = '';
  if (str[pos] === '.') {
    pos++;
    i = pos;
    while (i < end && isDigit(str[i])) i++;
    denom = str.slice(pos, i);
    if (i >= end) return { negative, num, denom, suffix: '' };
    pos = i;
  }
  const suffixStart = pos;
  i = pos;
  while (i < end && 'eEinumkKMGTP'.includes(str[i]!)) i++;
  if (i < end) {
    if (str[i] === '-' || str[i] === '+') i++;
    while (i < end && isDigit(str[i])) i++;
    if (i < end) return undefined;
  }
  return { negative, num, denom, suffix: str.slice(suffixStart) };
}

/** resource.ParseQuantity, as a value in nano-units (rounded away from zero) or its error text. */
export function parseQuantity(str: string): bigint | string {
  if (str.length === 0) return FORMAT_WRONG;
  const scanned = scanQuantity(str);
  if (!scanned) return FORMAT_WRONG;
  const { negative, num: intDigits, denom: fracDigits, suffix } = scanned;
  let base: 2 | 10;
  let exponent: number;
  let binary = false;
  if (suffix in DECIMAL) [base, exponent] = [10, DECIMAL[suffix]!];
  else if (suffix in BINARY) [base, exponent, binary] = [2, BINARY[suffix]!, true];
  else if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E') && /^[+-]?\d+$/.test(suffix.slice(1))) [base, exponent] = [10, Number(suffix.slice(1))];
  else return SUFFIX;
  // Go keeps a decimal exponent unexpanded; expanding a huge one here would take unbounded memory,
  // so exponents beyond any real quantity are refused as an unparseable suffix.
  if (Math.abs(exponent) > MAX_EXPONENT) return SUFFIX;
  // value = digits / 10^len(fraction) × base^exponent, in nano-units, rounded up.
  let num = BigInt(intDigits + fracDigits);
  let den = 10n ** BigInt(fracDigits.length);
  if (base === 2) num *= 2n ** BigInt(exponent);
  else if (exponent >= 0) num *= 10n ** BigInt(exponent);
  else den *= 10n ** BigInt(-exponent);
  num *= NANO;
  let nanos = num / den + (num % den === 0n ? 0n : 1n);
  // BinarySI quantities are capped at the largest int64 (resource.Quantity's maxAllowed).
  if (binary && nanos > INT64_MAX * NANO) nanos = INT64_MAX * NANO;
  return negative ? -nanos : nanos;
}

function toQuantity(s: string): CelResult {
  const v = parseQuantity(s);
  return typeof v === 'string' ? new CelError(v) : new QuantityValue(v);
}

const cmp = (a: QuantityValue, b: QuantityValue): bigint => (a.nanos < b.nanos ? -1n : a.nanos > b.nanos ? 1n : 0n);
const asInt = (q: QuantityValue): bigint | undefined => {
  if (q.nanos % NANO !== 0n) return undefined;
  const v = q.nanos / NANO;
  return v < INT64_MIN || v > INT64_MAX ? undefined : v;
};

const Q = T.opaque(QUANTITY_TYPE);
const sign = (q: QuantityValue): bigint => (q.nanos > 0n ? 1n : q.nanos < 0n ? -1n : 0n);

export const quantityOverloads: Overload[] = [
  fn('string_to_quantity', 'quantity', [T.string], Q, toQuantity, (args) => traversal(args[0]!)),
  fn('is_quantity_string', 'isQuantity', [T.string], T.bool, (s: string) => typeof parseQuantity(s) !== 'string', (args) => traversal(args[0]!)),
  fn('quantity_sign', 'sign', [Q], T.int, sign),
  method('quantity_sign_member', 'sign', [Q], T.int, sign),
  method('quantity_is_greater_than', 'isGreaterThan', [Q, Q], T.bool, (a: QuantityValue, b: QuantityValue) => cmp(a, b) === 1n),
  method('quantity_is_less_than', 'isLessThan', [Q, Q], T.bool, (a: QuantityValue, b: QuantityValue) => cmp(a, b) === -1n),
  method('quantity_compare_to', 'compareTo', [Q, Q], T.int, cmp),
  method('quantity_get_float', 'asApproximateFloat', [Q], T.double, (q: QuantityValue) => Number(q.nanos) / 1e9),
  method('quantity_get_int', 'asInteger', [Q], T.int, (q: QuantityValue) => asInt(q) ?? new CelError('cannot convert value to integer')),
  method('quantity_is_integer', 'isInteger', [Q], T.bool, (q: QuantityValue) => asInt(q) !== undefined),
  method('quantity_add', 'add', [Q, Q], Q, (a: QuantityValue, b: QuantityValue) => new QuantityValue(a.nanos + b.nanos)),
  method('quantity_add_int', 'add', [Q, T.int], Q, (a: QuantityValue, b: bigint) => new QuantityValue(a.nanos + b * NANO)),
  method('quantity_sub', 'sub', [Q, Q], Q, (a: QuantityValue, b: QuantityValue) => new QuantityValue(a.nanos - b.nanos)),
  method('quantity_sub_int', 'sub', [Q, T.int], Q, (a: QuantityValue, b: bigint) => new QuantityValue(a.nanos - b * NANO)),
];
