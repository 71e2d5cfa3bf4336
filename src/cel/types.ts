// CEL types as the checker reasons about them and as cel-go prints them in its messages
// (`int`, `list(string)`, `map(string, dyn)`, `optional_type(int)`, `net.IP`, ...).

export type PrimitiveKind = 'int' | 'uint' | 'double' | 'bool' | 'string' | 'bytes' | 'null_type' | 'dyn' | 'timestamp' | 'duration' | 'error';

export type CelType =
  | { readonly kind: PrimitiveKind }
  | { readonly kind: 'list'; readonly elem: CelType }
  | { readonly kind: 'map'; readonly key: CelType; readonly value: CelType }
  | { readonly kind: 'type'; readonly of?: CelType }
  | { readonly kind: 'optional'; readonly elem: CelType }
  /** A type whose values only answer its functions (net.IP, kubernetes.Quantity, ...). */
  | { readonly kind: 'opaque'; readonly name: string }
  /** A structured type with declared fields (kubernetes.AdmissionRequest, a kind's schema). */
  | { readonly kind: 'object'; readonly name: string; readonly fields: () => ReadonlyMap<string, CelType> }
  /** A type parameter of an overload (A in `list(A).indexOf(A)`). */
  | { readonly kind: 'param'; readonly name: string };

const primitive = (kind: PrimitiveKind): CelType => ({ kind });

export const T = {
  int: primitive('int'),
  uint: primitive('uint'),
  double: primitive('double'),
  bool: primitive('bool'),
  string: primitive('string'),
  bytes: primitive('bytes'),
  null: primitive('null_type'),
  dyn: primitive('dyn'),
  timestamp: primitive('timestamp'),
  duration: primitive('duration'),
  error: primitive('error'),
  list: (elem: CelType): CelType => ({ kind: 'list', elem }),
  map: (key: CelType, value: CelType): CelType => ({ kind: 'map', key, value }),
  type: (of?: CelType): CelType => ({ kind: 'type', of }),
  optional: (elem: CelType): CelType => ({ kind: 'optional', elem }),
  opaque: (name: string): CelType => ({ kind: 'opaque', name }),
  object: (name: string, fields: () => ReadonlyMap<string, CelType>): CelType => ({ kind: 'object', name, fields }),
  param: (name: string): CelType => ({ kind: 'param', name }),
} as const;

/** cel-go's rendering of a type in messages. */
export function typeName(t: CelType): string {
  switch (t.kind) {
    case 'timestamp':
      return 'google.protobuf.Timestamp';
    case 'duration':
      return 'google.protobuf.Duration';
    case 'list':
      return `list(${typeName(t.elem)})`;
    case 'map':
      return `map(${typeName(t.key)}, ${typeName(t.value)})`;
    case 'type':
      return t.of ? `type(${typeName(t.of)})` : 'type';
    case 'optional':
      return `optional_type(${typeName(t.elem)})`;
    case 'opaque':
    case 'object':
    case 'param':
      return t.name;
    default:
      return t.kind;
  }
}

export const isDyn = (t: CelType): boolean => t.kind === 'dyn' || t.kind === 'error';

/** Type parameter bindings made while matching an overload. */
export type Bindings = Map<string, CelType>;

export function substitute(t: CelType, b: Bindings): CelType {
  switch (t.kind) {
    case 'param':
      return b.get(t.name) ?? T.dyn;
    case 'list':
      return T.list(substitute(t.elem, b));
    case 'map':
      return T.map(substitute(t.key, b), substitute(t.value, b));
    case 'optional':
      return T.optional(substitute(t.elem, b));
    case 'type':
      return t.of ? T.type(substitute(t.of, b)) : t;
    default:
      return t;
  }
}

/**
 * Whether a value of type `actual` may be passed where `formal` is declared, binding type
 * parameters as it goes (dyn is assignable both ways, as in cel-go).
 */
export function assignable(formal: CelType, actual: CelType, b: Bindings): boolean {
  if (isDyn(actual) || isDyn(formal)) {
    if (formal.kind === 'param' && !b.has(formal.name)) b.set(formal.name, T.dyn);
    return true;
  }
  if (formal.kind === 'param') {
    const bound = b.get(formal.name);
    if (!bound) {
      b.set(formal.name, actual);
      return true;
    }
    if (isDyn(bound)) return true;
    if (assignable(bound, actual, b)) return true;
    // A wider binding (null to a concrete type) is kept as the concrete one.
    if (bound.kind === 'null_type' && nullable(actual)) {
      b.set(formal.name, actual);
      return true;
    }
    return false;
  }
  if (actual.kind === 'param') return true;
  if (formal.kind === 'null_type') return actual.kind === 'null_type';
  if (actual.kind === 'null_type') return nullable(formal);
  switch (formal.kind) {
    case 'list':
      return actual.kind === 'list' && assignable(formal.elem, actual.elem, b);
    case 'map':
      return actual.kind === 'map' && assignable(formal.key, actual.key, b) && assignable(formal.value, actual.value, b);
    case 'optional':
      return actual.kind === 'optional' && assignable(formal.elem, actual.elem, b);
    case 'type':
      return actual.kind === 'type';
    case 'opaque':
    case 'object':
      return (actual.kind === 'opaque' || actual.kind === 'object') && actual.name === formal.name;
    default:
      return formal.kind === actual.kind;
  }
}

/** null is assignable to messages, wrappers, timestamps, durations, optionals and dyn (cel-go). */
function nullable(t: CelType): boolean {
  return t.kind === 'object' || t.kind === 'timestamp' || t.kind === 'duration' || t.kind === 'optional' || isDyn(t);
}

/** The most specific type two branches share (ternaries, list elements): dyn when they differ. */
export function join(a: CelType, b: CelType): CelType {
  if (isDyn(a)) return a;
  if (isDyn(b)) return b;
  if (a.kind === 'null_type') return nullable(b) ? b : T.dyn;
  if (b.kind === 'null_type') return nullable(a) ? a : T.dyn;
  return sameType(a, b) ? a : T.dyn;
}

export function sameType(a: CelType, b: CelType): boolean {
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'list':
      return sameType(a.elem, (b as typeof a).elem);
    case 'map':
      return sameType(a.key, (b as typeof a).key) && sameType(a.value, (b as typeof a).value);
    case 'optional':
      return sameType(a.elem, (b as typeof a).elem);
    case 'opaque':
    case 'object':
    case 'param':
      return a.name === (b as typeof a).name;
    case 'type':
      return true;
    default:
      return true;
  }
}
