// Plain JSON values as decoded request bodies and stored objects are: the one place for
// "is this a JSON object", structural equality and canonical key order.

export type JsonMap = Record<string, unknown>;

export const isJsonMap = (v: unknown): v is JsonMap => typeof v === 'object' && v !== null && !Array.isArray(v);

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
  for (const k of Object.keys(v).sort()) out[k] = sortKeysDeep(v[k]);
  return out;
}
