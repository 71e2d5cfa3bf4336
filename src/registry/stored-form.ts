// Whether two objects would be stored as the same JSON (an update that changes nothing is a
// no-op), decided on the objects themselves: serializing both and parsing them back, as a
// comparison of stored forms would, costs two round trips on every update.

import type { KubeObject } from '../apimachinery/object-meta.js';

/** JSON-equal ignoring metadata.resourceVersion and key order. */
export function sameStoredForm(a: KubeObject, b: KubeObject): boolean {
  const ma = a.metadata as Record<string, unknown> | undefined;
  const mb = b.metadata as Record<string, unknown> | undefined;
  if (!membersEqual(a as unknown as Record<string, unknown>, b as unknown as Record<string, unknown>, 'metadata')) return false;
  // metadata is compared here, without its resourceVersion (never stored).
  if (!isObject(ma) || !isObject(mb)) return jsonEqual(ma, mb);
  return membersEqual(ma, mb, 'resourceVersion');
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What JSON.stringify drops from an object. */
const absent = (v: unknown): boolean => v === undefined || typeof v === 'function' || typeof v === 'symbol';

/** What JSON.stringify writes as null inside an array (and non-finite numbers anywhere). */
const asNull = (v: unknown): boolean => v === null || absent(v) || (typeof v === 'number' && !Number.isFinite(v));

/** JSON.parse(JSON.stringify(a)) deep-equals JSON.parse(JSON.stringify(b)), without either. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (asNull(a) || asNull(b)) return asNull(a) && asNull(b);
  if (typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  return membersEqual(a as Record<string, unknown>, b as Record<string, unknown>);
}

/** Objects' present members are JSON-equal (`skip`: a member left out of the comparison). */
function membersEqual(a: Record<string, unknown>, b: Record<string, unknown>, skip?: string): boolean {
  let count = 0;
  for (const k of Object.keys(a)) {
    const v = a[k];
    if (k === skip || absent(v)) continue;
    count++;
    if (!Object.hasOwn(b, k) || absent(b[k]) || !jsonEqual(v, b[k])) return false;
  }
  for (const k of Object.keys(b)) if (k !== skip && !absent(b[k])) count--;
  return count === 0;
}
