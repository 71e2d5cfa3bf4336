// CEL's standard functions: arithmetic with cel-go's overflow errors, comparisons across numeric
// types, membership, size, the string predicates, and the type conversions.

import { RE2JS } from 're2js';
import { fn, method, type Overload } from '../functions.js';
import { T, type CelType } from '../types.js';
import {
  CelError,
  CelMap,
  INT64_MAX,
  INT64_MIN,
  Optional,
  UINT64_MAX,
  Uint,
  celCompare,
  celEquals,
  codePoints,
  isList,
  typeOf,
  type CelResult,
  type CelValue,
} from '../values.js';
import { regexCost, traversal, STRING_TRAVERSAL_FACTOR } from './cost.js';
import { formatDouble } from './go-format.js';

const A = T.param('A');
const B = T.param('B');

const overflow = (): CelError => new CelError('integer overflow');
const uintOverflow = (): CelError => new CelError('unsigned integer overflow');
const int = (v: bigint): CelResult => (v < INT64_MIN || v > INT64_MAX ? overflow() : v);
const uint = (v: bigint): CelResult => (v < 0n || v > UINT64_MAX ? uintOverflow() : new Uint(v));

function arithmetic(): Overload[] {
  const out: Overload[] = [
    fn('add_int64', '_+_', [T.int, T.int], T.int, (a: bigint, b: bigint) => int(a + b)),
    fn('add_uint64', '_+_', [T.uint, T.uint], T.uint, (a: Uint, b: Uint) => uint(a.value + b.value)),
    fn('add_double', '_+_', [T.double, T.double], T.double, (a: number, b: number) => a + b),
    fn('add_string', '_+_', [T.string, T.string], T.string, (a: string, b: string) => a + b, (args) => Math.ceil((codePoints(args[0] as string) + codePoints(args[1] as string)) * STRING_TRAVERSAL_FACTOR)),
    fn('add_bytes', '_+_', [T.bytes, T.bytes], T.bytes, (a: Uint8Array, b: Uint8Array) => {
      const out = new Uint8Array(a.length + b.length);
      out.set(a);
      out.set(b, a.length);
      return out;
    }, (args) => Math.ceil(((args[0] as Uint8Array).length + (args[1] as Uint8Array).length) * STRING_TRAVERSAL_FACTOR)),
    fn('add_list', '_+_', [T.list(A), T.list(A)], T.list(A), (a: readonly CelValue[], b: readonly CelValue[]) => [...a, ...b]),
    fn('subtract_int64', '_-_', [T.int, T.int], T.int, (a: bigint, b: bigint) => int(a - b)),
    fn('subtract_uint64', '_-_', [T.uint, T.uint], T.uint, (a: Uint, b: Uint) => uint(a.value - b.value)),
    fn('subtract_double', '_-_', [T.double, T.double], T.double, (a: number, b: number) => a - b),
    fn('multiply_int64', '_*_', [T.int, T.int], T.int, (a: bigint, b: bigint) => int(a * b)),
    fn('multiply_uint64', '_*_', [T.uint, T.uint], T.uint, (a: Uint, b: Uint) => uint(a.value * b.value)),
    fn('multiply_double', '_*_', [T.double, T.double], T.double, (a: number, b: number) => a * b),
    fn('divide_int64', '_/_', [T.int, T.int], T.int, (a: bigint, b: bigint) => (b === 0n ? new CelError('division by zero') : int(a / b))),
    fn('divide_uint64', '_/_', [T.uint, T.uint], T.uint, (a: Uint, b: Uint) => (b.value === 0n ? new CelError('division by zero') : new Uint(a.value / b.value))),
    fn('divide_double', '_/_', [T.double, T.double], T.double, (a: number, b: number) => a / b),
    fn('modulo_int64', '_%_', [T.int, T.int], T.int, (a: bigint, b: bigint) => (b === 0n ? new CelError('modulus by zero') : int(a % b))),
    fn('modulo_uint64', '_%_', [T.uint, T.uint], T.uint, (a: Uint, b: Uint) => (b.value === 0n ? new CelError('modulus by zero') : new Uint(a.value % b.value))),
    fn('negate_int64', '-_', [T.int], T.int, (a: bigint) => int(-a)),
    fn('negate_double', '-_', [T.double], T.double, (a: number) => -a),
    fn('logical_not', '!_', [T.bool], T.bool, (a: boolean) => !a),
  ];
  return out;
}

const ORDERED: [string, CelType][] = [
  ['int64', T.int],
  ['uint64', T.uint],
  ['double', T.double],
];

/** `<`, `<=`, `>`, `>=` for each comparable type, numbers also across types (cel-go's cross-type comparisons). */
function comparisons(): Overload[] {
  const ops: [string, string, (c: number) => boolean][] = [
    ['_<_', 'less', (c) => c === -1],
    ['_<=_', 'less_equals', (c) => c === -1 || c === 0],
    ['_>_', 'greater', (c) => c === 1],
    ['_>=_', 'greater_equals', (c) => c === 1 || c === 0],
  ];
  const out: Overload[] = [];
  for (const [name, idBase, test] of ops) {
    const cmp = (a: CelValue, b: CelValue): CelResult => {
      const c = celCompare(a, b);
      return c instanceof CelError ? c : test(c);
    };
    const sized = (args: readonly CelValue[]): number => Math.ceil(Math.min(sizeOfArg(args[0]!), sizeOfArg(args[1]!)) * STRING_TRAVERSAL_FACTOR);
    for (const [n, t] of [
      ['bool', T.bool],
      ['string', T.string],
      ['bytes', T.bytes],
      ['timestamp', T.timestamp],
      ['duration', T.duration],
    ] as [string, CelType][]) {
      out.push(fn(`${idBase}_${n}`, name, [t, t], T.bool, cmp, n === 'string' || n === 'bytes' ? sized : undefined));
    }
    for (const [an, at] of ORDERED) {
      for (const [bn, bt] of ORDERED) {
        out.push(fn(an === bn ? `${idBase}_${an}` : `${idBase}_${an}_${bn}`, name, [at, bt], T.bool, cmp));
      }
    }
  }
  return out;
}

const sizeOfArg = (v: CelValue): number => (typeof v === 'string' ? codePoints(v) : v instanceof Uint8Array ? v.length : isList(v) ? v.length : v instanceof CelMap ? v.size : 1);

const equalityCost = (args: readonly CelValue[]): number => Math.ceil(Math.min(sizeOfArg(args[0]!), sizeOfArg(args[1]!)) * STRING_TRAVERSAL_FACTOR);

function equality(): Overload[] {
  return [
    fn('equals', '_==_', [A, A], T.bool, (a: CelValue, b: CelValue) => celEquals(a, b), equalityCost),
    fn('not_equals', '_!=_', [A, A], T.bool, (a: CelValue, b: CelValue) => {
      const eq = celEquals(a, b);
      return eq instanceof CelError ? eq : !eq;
    }, equalityCost),
    fn('in_list', '@in', [A, T.list(A)], T.bool, (x: CelValue, list: readonly CelValue[]) => {
      for (const el of list) if (celEquals(el, x) === true) return true;
      return false;
    }, (args) => sizeOfArg(args[1]!)),
    fn('in_map', '@in', [A, T.map(A, B)], T.bool, (x: CelValue, m: CelMap) => m.has(x)),
  ];
}

function sizes(): Overload[] {
  const size = (v: CelValue): bigint => BigInt(sizeOfArg(v));
  return [
    fn('size_string', 'size', [T.string], T.int, size),
    method('string_size', 'size', [T.string], T.int, size),
    fn('size_bytes', 'size', [T.bytes], T.int, size),
    method('bytes_size', 'size', [T.bytes], T.int, size),
    fn('size_list', 'size', [T.list(A)], T.int, size),
    method('list_size', 'size', [T.list(A)], T.int, size),
    fn('size_map', 'size', [T.map(A, B)], T.int, size),
    method('map_size', 'size', [T.map(A, B)], T.int, size),
  ];
}

/** Compiled patterns, shared across evaluations (cel-go compiles constant patterns once too). */
const patterns = new Map<string, RE2JS | CelError>();

export function compilePattern(re: string): RE2JS | CelError {
  let p = patterns.get(re);
  if (!p) {
    try {
      p = RE2JS.compile(re);
    } catch (err) {
      p = new CelError((err as Error).message);
    }
    if (patterns.size > 1024) patterns.clear();
    patterns.set(re, p);
  }
  return p;
}

function matches(s: string, re: string): CelResult {
  const p = compilePattern(re);
  return p instanceof CelError ? p : p.matcher(s).find();
}

function strings(): Overload[] {
  const traverse = (args: readonly CelValue[]): number => traversal(args[0]!);
  return [
    method('contains_string', 'contains', [T.string, T.string], T.bool, (s: string, sub: string) => s.includes(sub), (args) => traversal(args[0]!) * traversal(args[1]!)),
    method('starts_with_string', 'startsWith', [T.string, T.string], T.bool, (s: string, p: string) => s.startsWith(p), traverse),
    method('ends_with_string', 'endsWith', [T.string, T.string], T.bool, (s: string, p: string) => s.endsWith(p), traverse),
    fn('matches', 'matches', [T.string, T.string], T.bool, matches, (args) => regexCost(args[0]!, args[1]!)),
    method('matches_string', 'matches', [T.string, T.string], T.bool, matches, (args) => regexCost(args[0]!, args[1]!)),
  ];
}

function toIntFromDouble(d: number): CelResult {
  if (!Number.isFinite(d) || d <= -9223372036854775808 || d >= 9223372036854775807) return new CelError('integer overflow');
  return BigInt(Math.trunc(d));
}

function parseIntText(s: string, unsigned: boolean): CelResult {
  const m = /^[+-]?\d+$/.exec(s);
  if (!m) return new CelError(`type conversion error from 'string' to '${unsigned ? 'uint' : 'int'}'`);
  const v = BigInt(s);
  return unsigned ? uint(v) : int(v);
}

function parseDoubleText(s: string): CelResult {
  const t = s.trim();
  if (/^[+-]?(inf|infinity)$/i.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
  if (/^nan$/i.test(t)) return NaN;
  if (!/^[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?)$/.test(t) || t !== s) return new CelError("type conversion error from 'string' to 'double'");
  return Number(s);
}

function bytesToString(b: Uint8Array): CelResult {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(b);
  } catch {
    return new CelError("invalid UTF-8 in bytes, cannot convert to string");
  }
}

function conversions(): Overload[] {
  return [
    fn('int64_to_int64', 'int', [T.int], T.int, (v: bigint) => v),
    fn('uint64_to_int64', 'int', [T.uint], T.int, (v: Uint) => int(v.value)),
    fn('double_to_int64', 'int', [T.double], T.int, toIntFromDouble),
    fn('string_to_int64', 'int', [T.string], T.int, (s: string) => parseIntText(s, false)),
    fn('uint64_to_uint64', 'uint', [T.uint], T.uint, (v: Uint) => v),
    fn('int64_to_uint64', 'uint', [T.int], T.uint, (v: bigint) => uint(v)),
    fn('double_to_uint64', 'uint', [T.double], T.uint, (d: number) => (!Number.isFinite(d) || d < 0 || d >= 18446744073709551616 ? uintOverflow() : new Uint(BigInt(Math.trunc(d))))),
    fn('string_to_uint64', 'uint', [T.string], T.uint, (s: string) => parseIntText(s, true)),
    fn('double_to_double', 'double', [T.double], T.double, (d: number) => d),
    fn('int64_to_double', 'double', [T.int], T.double, (v: bigint) => Number(v)),
    fn('uint64_to_double', 'double', [T.uint], T.double, (v: Uint) => Number(v.value)),
    fn('string_to_double', 'double', [T.string], T.double, parseDoubleText),
    fn('string_to_string', 'string', [T.string], T.string, (s: string) => s),
    fn('int64_to_string', 'string', [T.int], T.string, (v: bigint) => v.toString()),
    fn('uint64_to_string', 'string', [T.uint], T.string, (v: Uint) => v.value.toString()),
    fn('double_to_string', 'string', [T.double], T.string, formatDouble),
    fn('bool_to_string', 'string', [T.bool], T.string, (b: boolean) => (b ? 'true' : 'false')),
    fn('bytes_to_string', 'string', [T.bytes], T.string, bytesToString, (args) => traversal(args[0]!)),
    fn('bytes_to_bytes', 'bytes', [T.bytes], T.bytes, (b: Uint8Array) => b),
    fn('string_to_bytes', 'bytes', [T.string], T.bytes, (s: string) => new TextEncoder().encode(s), (args) => traversal(args[0]!)),
    fn('bool_to_bool', 'bool', [T.bool], T.bool, (b: boolean) => b),
    fn('string_to_bool', 'bool', [T.string], T.bool, (s: string) => {
      if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(s)) return true;
      if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(s)) return false;
      return new CelError("type conversion error from 'string' to 'bool'");
    }),
    fn('to_dyn', 'dyn', [A], T.dyn, (v: CelValue) => v),
    fn('type', 'type', [A], T.type(A), (v: CelValue) => typeOf(v)),
  ];
}

/** `@not_strictly_false` is the evaluator's; `@mapInsert` builds transformMap's result. */
function internal(): Overload[] {
  return [
    fn('cel_@mapInsert_map_key_value', '@mapInsert', [T.map(A, B), A, B], T.map(A, B), (m: CelMap, k: CelValue, v: CelValue) => {
      if (m.has(k)) return new CelError(`insert failed: key ${String(k)} already exists`);
      return CelMap.fromEntries([...m, [k as string, v]]);
    }),
    fn('cel_@mapInsert_map_map', '@mapInsert', [T.map(A, B), T.map(A, B)], T.map(A, B), (m: CelMap, other: CelMap) => {
      const out: [string, CelValue][] = [...m] as [string, CelValue][];
      for (const [k, v] of other) {
        if (m.has(k)) return new CelError(`insert failed: key ${String(k)} already exists`);
        out.push([k as string, v]);
      }
      return CelMap.fromEntries(out);
    }),
  ];
}

export const coreOverloads: Overload[] = [...arithmetic(), ...comparisons(), ...equality(), ...sizes(), ...strings(), ...conversions(), ...internal()];


