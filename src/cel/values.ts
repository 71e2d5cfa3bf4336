// CEL runtime values: int is a bigint, uint a Uint, double a number, lists are arrays, maps
// CelMaps; timestamps, durations, types, optionals and the libraries' opaque values are classes.
// Errors are values too (CelError): `&&` and `||` absorb them as CEL requires.

import { T, type CelType } from './types.js';

export class Uint {
  constructor(readonly value: bigint) {}
}

export class CelError {
  constructor(readonly message: string) {}
}

/** Nanoseconds since the Unix epoch. */
export class Timestamp {
  constructor(readonly nanos: bigint) {}
}

export class Duration {
  constructor(readonly nanos: bigint) {}
}

/** A type as a value (`type(x)`, `int`, `net.IP`); equal when the names are. */
export class TypeValue {
  constructor(readonly name: string) {}
}

export class Optional {
  static readonly NONE = new Optional(undefined);
  private constructor(readonly value: CelValue | undefined) {}
  static of(value: CelValue): Optional {
    return new Optional(value);
  }
  get hasValue(): boolean {
    return this.value !== undefined;
  }
}

/** A library value with no fields (net.IP, net.CIDR, kubernetes.URL, kubernetes.Quantity, ...). */
export abstract class Opaque {
  abstract readonly typeName: string;
  /** Equality with another value of the same type. */
  abstract equals(other: Opaque): boolean;
  /** Size for the cost model (cel-go's Sizer); 1 when the type has none. */
  size(): number {
    return 1;
  }
}

/**
 * A value whose fields are computed when first selected: Kubernetes' `variables`, each a compiled
 * expression evaluated at most once per activation.
 */
export abstract class LazyMap {
  abstract field(name: string): CelResult | undefined;
}

type MapKey = string | bigint | Uint | boolean;

/** A map; keys are normalized so that 1 and 1u find the same entry (CEL's numeric equality). */
export class CelMap {
  private readonly entries = new Map<string, [MapKey, CelValue]>();

  static fromEntries(entries: Iterable<readonly [MapKey, CelValue]>): CelMap {
    const m = new CelMap();
    for (const [k, v] of entries) m.entries.set(keyOf(k)!, [k, v]);
    return m;
  }

  get size(): number {
    return this.entries.size;
  }

  /** undefined when absent (or the key cannot be a map key). */
  get(key: CelValue): CelValue | undefined {
    const k = keyOf(key);
    return k === undefined ? undefined : this.entries.get(k)?.[1];
  }

  has(key: CelValue): boolean {
    const k = keyOf(key);
    return k !== undefined && this.entries.has(k);
  }

  *keys(): IterableIterator<MapKey> {
    for (const [k] of this.entries.values()) yield k;
  }

  *[Symbol.iterator](): IterableIterator<[MapKey, CelValue]> {
    for (const e of this.entries.values()) yield e;
  }
}

function keyOf(k: CelValue): string | undefined {
  if (typeof k === 'string') return `s${k}`;
  if (typeof k === 'bigint') return `n${k}`;
  if (k instanceof Uint) return `n${k.value}`;
  if (typeof k === 'boolean') return k ? 'b1' : 'b0';
  if (typeof k === 'number' && Number.isInteger(k)) return `n${BigInt(k)}`;
  return undefined;
}

export const isMapKey = (k: CelValue): k is MapKey => typeof k === 'string' || typeof k === 'bigint' || k instanceof Uint || typeof k === 'boolean';

export type CelValue =
  | bigint
  | Uint
  | number
  | boolean
  | string
  | null
  | Uint8Array
  | readonly CelValue[]
  | CelMap
  | Timestamp
  | Duration
  | TypeValue
  | Optional
  | Opaque
  | LazyMap;

export type CelResult = CelValue | CelError;

export const isError = (v: CelResult): v is CelError => v instanceof CelError;
export const isList = (v: unknown): v is readonly CelValue[] => Array.isArray(v);

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;
export const UINT64_MAX = 2n ** 64n - 1n;

/**
 * A decoded JSON value (a Kubernetes object as unstructured) as CEL sees it: integral numbers
 * are ints, others doubles; objects are maps with string keys.
 */
export function fromJson(v: unknown): CelValue {
  if (v === null || v === undefined) return null;
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      return Number.isInteger(v) && Number.isSafeInteger(v) ? BigInt(v) : v;
    case 'bigint':
      return v;
    case 'object':
      if (Array.isArray(v)) return v.map(fromJson);
      return CelMap.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, fromJson(x)] as const));
    default:
      return null;
  }
}

/** The runtime type name of a value, as cel-go prints it. */
export function runtimeTypeName(v: CelResult): string {
  return typeName(v);
}

function typeName(v: CelResult): string {
  if (v === null) return 'null_type';
  switch (typeof v) {
    case 'bigint':
      return 'int';
    case 'number':
      return 'double';
    case 'boolean':
      return 'bool';
    case 'string':
      return 'string';
  }
  if (v instanceof Uint) return 'uint';
  if (v instanceof Uint8Array) return 'bytes';
  if (isList(v)) return 'list';
  if (v instanceof CelMap) return 'map';
  if (v instanceof Timestamp) return 'google.protobuf.Timestamp';
  if (v instanceof Duration) return 'google.protobuf.Duration';
  if (v instanceof TypeValue) return 'type';
  if (v instanceof Optional) return 'optional_type';
  if (v instanceof Opaque) return v.typeName;
  if (v instanceof LazyMap) return 'map';
  return 'error';
}

/** `type(v)`: the value's type as a value. */
export function typeOf(v: CelValue): TypeValue {
  return new TypeValue(typeName(v));
}

/** The static type of a runtime value (for dynamic dispatch of overloads). */
export function celTypeOf(v: CelValue): CelType {
  if (v === null) return T.null;
  switch (typeof v) {
    case 'bigint':
      return T.int;
    case 'number':
      return T.double;
    case 'boolean':
      return T.bool;
    case 'string':
      return T.string;
  }
  if (v instanceof Uint) return T.uint;
  if (v instanceof Uint8Array) return T.bytes;
  if (isList(v)) return T.list(T.dyn);
  if (v instanceof CelMap) return T.map(T.dyn, T.dyn);
  if (v instanceof Timestamp) return T.timestamp;
  if (v instanceof Duration) return T.duration;
  if (v instanceof TypeValue) return T.type();
  if (v instanceof Optional) return T.optional(T.dyn);
  if (v instanceof LazyMap) return T.map(T.string, T.dyn);
  return T.opaque(v.typeName);
}

/** Length in Unicode code points, as Go counts runes. */
export function codePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** cel-go's actualSize: the Sizer's size, else 1. */
export function sizeOf(v: CelResult): number {
  if (typeof v === 'string') return codePoints(v);
  if (v instanceof Uint8Array) return v.length;
  if (isList(v)) return v.length;
  if (v instanceof CelMap) return v.size;
  if (v instanceof Opaque) return v.size();
  return 1;
}

const NO_SUCH_OVERLOAD = 'no such overload';
export const noSuchOverload = (): CelError => new CelError(NO_SUCH_OVERLOAD);

/** CEL equality (heterogeneous: numbers across types; other differing types are unequal). */
export function celEquals(a: CelValue, b: CelValue): boolean | CelError {
  if (a === null || b === null) return a === b;
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined || nb !== undefined) {
    if (na === undefined || nb === undefined) return false;
    return compareNumbers(na, nb) === 0;
  }
  if (typeof a === 'string' || typeof a === 'boolean') return a === b;
  if (a instanceof Uint8Array) return b instanceof Uint8Array && a.length === b.length && a.every((x, i) => x === b[i]);
  if (isList(a)) {
    if (!isList(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      const eq = celEquals(a[i]!, b[i]!);
      if (eq !== true) return eq;
    }
    return true;
  }
  if (a instanceof CelMap) {
    if (!(b instanceof CelMap) || a.size !== b.size) return false;
    for (const [k, v] of a) {
      const other = b.get(k);
      if (other === undefined) return false;
      const eq = celEquals(v, other);
      if (eq !== true) return eq;
    }
    return true;
  }
  if (a instanceof Timestamp) return b instanceof Timestamp && a.nanos === b.nanos;
  if (a instanceof Duration) return b instanceof Duration && a.nanos === b.nanos;
  if (a instanceof TypeValue) return b instanceof TypeValue && a.name === b.name;
  if (a instanceof Optional) {
    if (!(b instanceof Optional)) return false;
    if (!a.hasValue || !b.hasValue) return a.hasValue === b.hasValue;
    return celEquals(a.value!, b.value!);
  }
  if (a instanceof Opaque) {
    if (!(b instanceof Opaque) || b.typeName !== a.typeName) return noSuchOverload();
    return a.equals(b);
  }
  return false;
}

type Num = { kind: 'int'; v: bigint } | { kind: 'double'; v: number };

function numeric(v: CelValue): Num | undefined {
  if (typeof v === 'bigint') return { kind: 'int', v };
  if (v instanceof Uint) return { kind: 'int', v: v.value };
  if (typeof v === 'number') return { kind: 'double', v };
  return undefined;
}

/** -1, 0, 1; NaN compares as unordered (undefined). */
function compareNumbers(a: Num, b: Num): number | undefined {
  if (a.kind === 'int' && b.kind === 'int') return a.v < b.v ? -1 : a.v > b.v ? 1 : 0;
  if (a.kind === 'double' && b.kind === 'double') {
    if (Number.isNaN(a.v) || Number.isNaN(b.v)) return undefined;
    return a.v < b.v ? -1 : a.v > b.v ? 1 : 0;
  }
  // int against double, exactly: compare the double with the integer without rounding it.
  const [i, d, flip] = a.kind === 'int' ? [a.v, (b as { v: number }).v, 1] : [(b as { v: bigint }).v, a.v, -1];
  if (Number.isNaN(d)) return undefined;
  let c: number;
  if (d === Infinity) c = -1;
  else if (d === -Infinity) c = 1;
  else {
    const fl = Math.floor(d);
    const bi = BigInt(fl);
    c = i < bi ? -1 : i > bi ? 1 : fl === d ? 0 : -1;
  }
  return c * flip;
}

/** Ordering for `<`, `<=`, `>`, `>=`: numbers across types, strings, bytes, bools, times. */
export function celCompare(a: CelValue, b: CelValue): number | CelError {
  const na = numeric(a);
  const nb = numeric(b);
  if (na && nb) {
    const c = compareNumbers(na, nb);
    // NaN: every comparison is false; report "unordered" as 2 so callers answer false.
    return c === undefined ? 2 : c;
  }
  if (typeof a === 'string' && typeof b === 'string') return compareCodePoints(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
    return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
  }
  if (a instanceof Timestamp && b instanceof Timestamp) return a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0;
  if (a instanceof Duration && b instanceof Duration) return a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0;
  return noSuchOverload();
}

/** Go compares strings bytewise (UTF-8), which orders as code points, not UTF-16 units. */
function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done || y.done) return x.done && y.done ? 0 : x.done ? -1 : 1;
    const cx = x.value.codePointAt(0)!;
    const cy = y.value.codePointAt(0)!;
    if (cx !== cy) return cx < cy ? -1 : 1;
  }
}

/** A value for messages (`no such key: x`). */
export function display(v: CelValue): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Uint) return `${v.value}`;
  return String(v);
}
