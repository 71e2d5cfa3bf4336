// Canonical field order: kube-apiserver encodes typed Go structs, so every object it writes has
// its fields in the struct's declaration order (and map keys sorted), whatever order the client
// sent. A FieldOrder describes that order for one type; canonicalOrder() rebuilds a JSON value
// in it, so objects are stored and served the same way kube serves them.

import { isJsonMap, type JsonMap } from './json-value.js';

/**
 * The order of a struct's fields. Each entry is a field name, or [name, order of its value]
 * (for a list, the order of each item). 'map' sorts a map's keys, as Go's encoder does;
 * 'raw' keeps a free-form value (fieldsV1) untouched.
 */
export type FieldOrder = readonly (string | readonly [string, FieldOrder | 'map' | 'raw'])[];

/** metav1.OwnerReference, in Go field order. */
const OWNER_REFERENCE: FieldOrder = ['apiVersion', 'kind', 'name', 'uid', 'controller', 'blockOwnerDeletion'];
/** metav1.ManagedFieldsEntry, in Go field order. */
const MANAGED_FIELDS_ENTRY: FieldOrder = ['manager', 'operation', 'apiVersion', 'time', 'fieldsType', ['fieldsV1', 'raw'], 'subresource'];

/** metav1.ObjectMeta, in Go field order. */
export const OBJECT_META_ORDER: FieldOrder = [
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  ['labels', 'map'],
  ['annotations', 'map'],
  ['ownerReferences', OWNER_REFERENCE],
  'finalizers',
  ['managedFields', MANAGED_FIELDS_ENTRY],
];

/** metav1.Condition, in Go field order. */
export const CONDITION_ORDER: FieldOrder = ['type', 'status', 'observedGeneration', 'lastTransitionTime', 'reason', 'message'];

/** A top-level kind: TypeMeta, ObjectMeta, then the kind's own fields (spec, status …). */
export const kindOrder = (...rest: FieldOrder): FieldOrder => ['apiVersion', 'kind', ['metadata', OBJECT_META_ORDER], ...rest];

/**
 * Sets an own property even for the key `__proto__` (plain assignment would set the prototype);
 * every other key is a plain assignment, which is much cheaper than defineProperty.
 */
const put = (o: JsonMap, k: string, v: unknown): void => {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
};

function reorder(value: unknown, order: FieldOrder | 'map' | 'raw' | undefined): unknown {
  if (order === 'raw' || order === undefined) return value;
  if (Array.isArray(value)) return value.map((v) => reorder(v, order));
  if (!isJsonMap(value)) return value;
  const out: JsonMap = {};
  if (order === 'map') {
    for (const k of Object.keys(value).sort()) if (value[k] !== undefined) put(out, k, value[k]);
    return out;
  }
  // A member set to undefined is left out, as JSON leaves it out: the ordered object is the same
  // value as its stored JSON (the registry shares the object it wrote as that version's decoded form).
  for (const entry of order) {
    const [name, sub] = typeof entry === 'string' ? [entry, undefined] : entry;
    if (Object.hasOwn(value, name) && value[name] !== undefined) put(out, name, reorder(value[name], sub));
  }
  // Fields the order does not name (none in a decoded object) keep their place after the known ones.
  for (const k of Object.keys(value)) if (!Object.hasOwn(out, k) && value[k] !== undefined) put(out, k, value[k]);
  return out;
}

/** A copy of `obj` with its fields in canonical order. */
export function canonicalOrder<T>(obj: T, order: FieldOrder): T {
  return reorder(obj, order) as T;
}

const META_INDEX = new Map(OBJECT_META_ORDER.map((e, i) => [typeof e === 'string' ? e : e[0], i]));
const RV_INDEX = META_INDEX.get('resourceVersion')!;
const metaIndex = (k: string): number => META_INDEX.get(k) ?? -1;

/**
 * Sets metadata.resourceVersion in its ObjectMeta place. Stored bytes never hold it (it is the
 * key's revision), so plain assignment would append it after managedFields.
 */
export function setResourceVersion(obj: { metadata: object }, rv: string): void {
  const meta = obj.metadata as JsonMap;
  if (Object.hasOwn(meta, 'resourceVersion')) {
    meta.resourceVersion = rv;
    return;
  }
  const out: JsonMap = {};
  let placed = false;
  for (const k of Object.keys(meta)) {
    if (!placed && metaIndex(k) > RV_INDEX) {
      put(out, 'resourceVersion', rv);
      placed = true;
    }
    put(out, k, meta[k]);
  }
  if (!placed) put(out, 'resourceVersion', rv);
  obj.metadata = out;
}
