// Plain JSON values as decoded request bodies and stored objects are: the one place for
// "is this a JSON object", structural equality, canonical key order, and reading and writing
// keys that came from a client.
//
// Client keys are data, never property names of the language: JSON.parse and the YAML decoder
// keep `__proto__`, `constructor` and `prototype` as ordinary own keys (as kube's decoders keep
// them as ordinary map keys), but `obj[key]` on a plain object reads Object.prototype's members
// for a key the object does not own, and `obj[key] = v` with key `__proto__` replaces the
// object's prototype instead of adding a key. Every walk or merge of client JSON reads with
// `getOwn` and writes with `setOwn`.

export type JsonMap = Record<string, unknown>;

export const isJsonMap = (v: unknown): v is JsonMap => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether `m` itself holds `key` (inherited members never count). */
export const hasOwnKey = (m: object, key: string): boolean => Object.hasOwn(m, key);

/** The value `m` holds under `key`, or undefined; never an inherited member such as `constructor`. */
export const getOwn = (m: object, key: string): unknown => (Object.hasOwn(m, key) ? (m as JsonMap)[key] : undefined);

/** Stores `value` under `key` as an own, enumerable key, whatever the key (`__proto__` included). */
export function setOwn(m: JsonMap, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(m, key, { value, writable: true, enumerable: true, configurable: true });
  else m[key] = value;
}

/** Structural equality of JSON values; object key order does not matter. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!Object.hasOwn(b, k) || !deepEqual((a as JsonMap)[k], (b as JsonMap)[k])) return false;
  }
  return true;
}

/** A copy with every object's keys in sorted order (how Go encodes unstructured objects). */
export function sortKeysDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeysDeep);
  if (!isJsonMap(v)) return v;
  const out: JsonMap = {};
  for (const k of Object.keys(v).sort()) setOwn(out, k, sortKeysDeep(v[k]));
  return out;
}
