// The operations server-side apply performs on JSON values under their apply types
// (structured-merge-diff's semantics): the set of fields a value sets, the difference between two
// values as added / modified / removed field sets, the merge of an applied configuration into a
// live object, and the removal of a set of fields.

import { cloneJson, deepEqual, getOwn, isJsonMap as isMap, setOwn, type JsonMap } from '../json-value.js';
import { FieldSet, formatPath, type PathElement } from './field-set.js';
import { untypedMap, type ListType, type MapType, type ScalarType, type TypeNode } from './typed-schema.js';

const UNTYPED: TypeNode = { kind: 'untyped' };
const SCALAR: ScalarType = { kind: 'scalar' };
const ATOMIC_UNTYPED_LIST: ListType = { kind: 'list', atomic: true, keys: [], element: UNTYPED };

/** Free-form values take the shape they have: maps merge key by key, lists are atomic. */
function effective(t: TypeNode, v: unknown): ScalarType | MapType | ListType {
  if (t.kind !== 'untyped') return t;
  if (isMap(v)) return untypedMap;
  if (Array.isArray(v)) return ATOMIC_UNTYPED_LIST;
  return SCALAR;
}

export class ListKeyError extends Error {
  override name = 'ListKeyError';
}

/** The path element naming one item of an associative list: `k:{"type":"Ready"}` or `v:"a"`. */
export function listItemElement(t: ListType, item: unknown): PathElement {
  if (t.keys.length === 0) return `v:${JSON.stringify(item)}`;
  if (!isMap(item)) throw new ListKeyError('associative list with keys has an element that is not a map');
  const key: JsonMap = {};
  for (const k of [...t.keys].sort()) {
    const v = getOwn(item, k);
    if (v === undefined || v === null) throw new ListKeyError(`associative list with keys has an element that omits key field "${k}"`);
    setOwn(key, k, v);
  }
  return `k:${JSON.stringify(key)}`;
}

// ---- what an applied configuration may not hold ----

/**
 * Problems that make a configuration unappliable, as structured-merge-diff words them: list
 * items without their keys, and the same key (or set value) twice.
 */
export function applyConfigErrors(value: unknown, type: TypeNode): string[] {
  const errs: string[] = [];
  checkConfigNode(value, type, [], errs);
  return errs;
}

/**
 * A path as the walk went: `.field` text, or a list item's path element. Rendered only for an
 * error message, since a walk of a valid configuration (every apply) needs none.
 */
type PathSegments = (string | { item: PathElement })[];

const renderPath = (segments: PathSegments): string => segments.map((s) => (typeof s === 'string' ? s : formatPath([s.item]))).join('');

function checkConfigNode(value: unknown, type: TypeNode, path: PathSegments, errs: string[]): void {
  const t = effective(type, value);
  if (t.kind === 'map' && !t.atomic && isMap(value)) {
    for (const k of Object.keys(value)) {
      const ft = t.field(k);
      if (!ft) continue;
      path.push(`.${k}`);
      checkConfigNode(value[k], ft, path, errs);
      path.pop();
    }
  } else if (t.kind === 'list' && !t.atomic && Array.isArray(value)) {
    const seen = new Set<PathElement>();
    value.forEach((item, i) => {
      let pe: PathElement;
      try {
        pe = listItemElement(t, item);
      } catch (err) {
        errs.push(`${renderPath(path)}: element ${i}: ${(err as Error).message}`);
        return;
      }
      if (seen.has(pe)) errs.push(`${renderPath(path)}: duplicate entries for key ${formatPath([pe])}`);
      seen.add(pe);
      path.push({ item: pe });
      checkConfigNode(item, t.element, path, errs);
      path.pop();
    });
  }
}

// ---- the fields a value sets ----

export function toFieldSet(value: unknown, type: TypeNode): FieldSet {
  const set = new FieldSet();
  collect(value, type, [], set);
  return set;
}

function collect(v: unknown, type: TypeNode, path: PathElement[], set: FieldSet): void {
  const t = effective(type, v);
  if (t.kind === 'scalar') {
    set.insert(path);
  } else if (t.kind === 'list') {
    if (t.atomic) return set.insert(path);
    if (!Array.isArray(v)) return;
    const seen = new Set<PathElement>();
    for (const item of v) {
      const pe = listItemElement(t, item);
      if (seen.has(pe)) continue;
      seen.add(pe);
      const itemPath = [...path, pe];
      collect(item, t.element, itemPath, set);
      set.insert(itemPath);
    }
  } else {
    if (t.atomic) return set.insert(path);
    if (!isMap(v)) return;
    for (const [k, child] of Object.entries(v)) {
      const ft = t.field(k);
      if (!ft) continue;
      const childPath = [...path, `f:${k}`];
      collect(child, ft, childPath, set);
      if (child === null || (isMap(child) && Object.keys(child).length === 0) || !t.isNamedField(k)) set.insert(childPath);
    }
  }
}

// ---- comparison ----

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/** What changed from `lhs` to `rhs`, field by field (undefined: absent). */
export function compare(lhs: unknown, rhs: unknown, type: TypeNode): Comparison {
  const out: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  compareNode(lhs, rhs, type, [], out);
  return out;
}

/** Null or empty (an absent side, undefined, walks to the same answer as an empty one). */
const emptyOrNull = (v: unknown): boolean => v === null || (Array.isArray(v) && v.length === 0) || (isMap(v) && Object.keys(v).length === 0);

/**
 * `path` is one array for the whole walk, pushed and popped around each child (FieldSet.insert
 * copies what it keeps): a compare runs on every write, over every field of the object.
 */
function compareNode(l: unknown, r: unknown, type: TypeNode, path: PathElement[], out: Comparison): void {
  const t = effective(type, r !== undefined ? r : l);
  const leaf =
    t.kind === 'scalar' ||
    t.atomic ||
    (emptyOrNull(l) && emptyOrNull(r)) ||
    (t.kind === 'list' ? !isListOrAbsent(l) || !isListOrAbsent(r) : !isMapOrAbsent(l) || !isMapOrAbsent(r));
  // At the root, path is empty and inserting it adds nothing.
  if (leaf) {
    if (l === undefined) out.added.insert(path);
    else if (r === undefined) out.removed.insert(path);
    else if (!deepEqual(l, r)) out.modified.insert(path);
    return;
  }
  if (t.kind === 'list') {
    const li = indexItems(t, l);
    const ri = indexItems(t, r);
    for (const [pe, item] of li) compareChild(item, ri.get(pe), t.element, path, pe, out);
    for (const [pe, item] of ri) if (!li.has(pe)) compareChild(undefined, item, t.element, path, pe, out);
  } else {
    const lm = isMap(l) ? l : EMPTY;
    const rm = isMap(r) ? r : EMPTY;
    for (const k of Object.keys(lm)) compareChild(lm[k], Object.hasOwn(rm, k) ? rm[k] : undefined, t.field(k) ?? UNTYPED, path, `f:${k}`, out);
    for (const k of Object.keys(rm)) if (!Object.hasOwn(lm, k)) compareChild(undefined, rm[k], t.field(k) ?? UNTYPED, path, `f:${k}`, out);
  }
  if (l === undefined) out.added.insert(path);
  else if (r === undefined) out.removed.insert(path);
}

const EMPTY: JsonMap = Object.freeze({}) as JsonMap;

function compareChild(l: unknown, r: unknown, type: TypeNode, path: PathElement[], pe: PathElement, out: Comparison): void {
  path.push(pe);
  compareNode(l, r, type, path, out);
  path.pop();
}

const isListOrAbsent = (v: unknown): boolean => v === undefined || v === null || Array.isArray(v);
const isMapOrAbsent = (v: unknown): boolean => v === undefined || v === null || isMap(v);

/** Items by path element; the first of duplicates wins (live objects may hold duplicates). */
function indexItems(t: ListType, v: unknown): Map<PathElement, unknown> {
  const out = new Map<PathElement, unknown>();
  if (!Array.isArray(v)) return out;
  for (const item of v) {
    let pe: PathElement;
    try {
      pe = listItemElement(t, item);
    } catch {
      continue;
    }
    if (!out.has(pe)) out.set(pe, item);
  }
  return out;
}

// ---- merge (apply) ----

/** Merges the applied configuration `rhs` into `lhs`: rhs wins at leaves, maps and associative lists merge. */
export function merge(lhs: unknown, rhs: unknown, type: TypeNode): unknown {
  if (rhs === undefined) return lhs;
  // An absent or null lhs is no list or map: the applied value is taken whole, below.
  const t = effective(type, rhs);
  if (t.kind === 'list' && !t.atomic && Array.isArray(lhs) && Array.isArray(rhs)) return mergeList(lhs, rhs, t);
  if (t.kind === 'map' && !t.atomic && isMap(lhs) && isMap(rhs)) {
    const out: JsonMap = {};
    for (const [k, v] of Object.entries(lhs)) setOwn(out, k, Object.hasOwn(rhs, k) ? merge(v, rhs[k], t.field(k) ?? { kind: 'untyped' }) : v);
    for (const [k, v] of Object.entries(rhs)) if (!Object.hasOwn(lhs, k)) setOwn(out, k, cloneJson(v));
    return out;
  }
  return cloneJson(rhs);
}

/**
 * Items only in lhs keep their place; items in rhs follow rhs's order, shared items merged
 * (structured-merge-diff's interleaving, so that reordering by the applier is honoured).
 */
function mergeList(lhs: unknown[], rhs: unknown[], t: ListType): unknown[] {
  const lPE = lhs.map((item) => listItemElement(t, item));
  const rPE = rhs.map((item) => listItemElement(t, item));
  const lIndex = new Map<PathElement, unknown>();
  lPE.forEach((pe, i) => lIndex.has(pe) || lIndex.set(pe, lhs[i]));
  const rIndex = new Map<PathElement, unknown>();
  rPE.forEach((pe, i) => rIndex.has(pe) || rIndex.set(pe, rhs[i]));
  const shared = rPE.filter((pe) => lIndex.has(pe));
  // A cursor rather than shift(), which moves the whole array each time (quadratic on long lists).
  let sharedAt = 0;
  let nextShared = shared[sharedAt++];
  const taken = new Set<PathElement>();
  const out: unknown[] = [];
  const take = (pe: PathElement): void => {
    taken.add(pe);
    out.push(merge(lIndex.get(pe), rIndex.get(pe), t.element));
  };
  let l = 0;
  let r = 0;
  // Every round moves l or r on: an lhs item still in rhs and not yet taken is one rhs has yet to reach.
  while (l < lhs.length || r < rhs.length) {
    if (l < lhs.length && r < rhs.length) {
      const pe = lPE[l]!;
      if (pe === rPE[r]) {
        take(pe);
        l++;
        r++;
        nextShared = shared[sharedAt++];
        continue;
      }
      // A shared item, but not the one rhs reaches next: it is taken when rhs reaches it.
      if (rIndex.has(pe) && nextShared !== pe) {
        l++;
        continue;
      }
    }
    if (l < lhs.length) {
      const pe = lPE[l]!;
      if (!rIndex.has(pe)) {
        out.push(lhs[l]);
        l++;
        continue;
      }
      if (taken.has(pe)) {
        l++;
        continue;
      }
    }
    if (r < rhs.length) {
      const pe = rPE[r]!;
      r++;
      // nextShared stays: with lhs items left, rhs reaches a shared item only by matching it.
      if (taken.has(pe)) continue;
      take(pe);
    }
  }
  return out;
}

// ---- removal ----

/** `value` without the fields in `set`; a map or list emptied by the removal disappears (undefined). */
export function removeFields(value: unknown, set: FieldSet, type: TypeNode): unknown {
  const t = effective(type, value);
  if (t.kind === 'map' && !t.atomic && isMap(value)) {
    const out: JsonMap = {};
    let removedAny = false;
    for (const [k, v] of Object.entries(value)) {
      const pe = `f:${k}`;
      if (set.members.has(pe)) {
        removedAny = true;
        continue;
      }
      const sub = set.children.get(pe);
      const kept = sub ? removeFields(v, sub, t.field(k) ?? { kind: 'untyped' }) : v;
      if (kept === undefined) removedAny = true;
      else setOwn(out, k, kept);
    }
    return removedAny && Object.keys(out).length === 0 ? undefined : out;
  }
  if (t.kind === 'list' && !t.atomic && Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value) {
      const pe = listItemElement(t, item);
      if (set.members.has(pe)) continue;
      const sub = set.children.get(pe);
      out.push(sub ? (removeFields(item, sub, t.element) ?? item) : item);
    }
    return out.length === 0 && value.length > 0 ? undefined : out;
  }
  return value;
}
