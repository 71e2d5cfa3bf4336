// Strategic merge patch (application/strategic-merge-patch+json), driven by a kind's schema:
// maps merge key by key, lists follow their declared patch strategy (merge by key, set union
// of primitives, or atomic replace), and the directives $patch, $retainKeys,
// $deleteFromPrimitiveList/<field> and $setElementOrder/<field> are honoured. Keys are client
// data: read and written as own keys only (see json-value.ts).

import { cloneJson, getOwn, hasOwnKey, isJsonMap as isMap, setOwn, textOf, type JsonMap } from './json-value.js';
import { resolveSchema, type Schema, type SchemaRegistry } from './schema.js';

/** A malformed patch (bad directive, wrong shapes); the http layer renders it as 400. */
export class StrategicPatchError extends Error {
  override name = 'StrategicPatchError';
}

const DIRECTIVE = '$patch';
const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM_PRIMITIVE = '$deleteFromPrimitiveList/';
const SET_ELEMENT_ORDER = '$setElementOrder/';

const clone = <T>(v: T): T => cloneJson(v);

/** Applies `patch` to a copy of `original`; `schema` describes the original's type. */
export function applyStrategicMergePatch(original: JsonMap, patch: unknown, schema: Schema, registry: SchemaRegistry): JsonMap {
  if (!isMap(patch)) throw new StrategicPatchError('invalid JSON document: a strategic merge patch must be a JSON object');
  const result = mergeMap(clone(original), patch, schema, registry);
  return result ?? {};
}

interface ListStrategy {
  kind: 'replace' | 'merge-primitives' | 'merge-by-key';
  mergeKey?: string;
  itemSchema?: Schema;
}

function listStrategy(fieldSchema: Schema | undefined, registry: SchemaRegistry): ListStrategy {
  const s = resolveSchema(fieldSchema, registry);
  const strategies = (s?.['x-kubernetes-patch-strategy'] ?? '').split(',');
  const itemSchema = resolveSchema(s?.items, registry);
  if (!strategies.includes('merge')) return { kind: 'replace', itemSchema };
  const mergeKey = s?.['x-kubernetes-patch-merge-key'];
  if (mergeKey) return { kind: 'merge-by-key', mergeKey, itemSchema };
  return { kind: 'merge-primitives', itemSchema };
}

function propertySchema(schema: Schema | undefined, key: string, registry: SchemaRegistry): Schema | undefined {
  const s = resolveSchema(schema, registry);
  if (!s) return undefined;
  if (s.properties && hasOwnKey(s.properties, key)) return s.properties[key];
  if (isMap(s.additionalProperties)) return s.additionalProperties;
  return undefined;
}

/** Merges `patch` into `original` in place; returns undefined when the map itself is deleted. */
function mergeMap(original: JsonMap, patch: JsonMap, schema: Schema | undefined, registry: SchemaRegistry): JsonMap | undefined {
  const directive = getOwn(patch, DIRECTIVE);
  if (directive !== undefined) {
    if (directive === 'delete') return undefined;
    if (directive === 'replace') return stripDirectives(withoutKey(patch, DIRECTIVE), schema, registry) as JsonMap;
    if (directive !== 'merge') throw new StrategicPatchError(`unknown patch type: ${textOf(directive)}`);
  }
  if (hasOwnKey(patch, RETAIN_KEYS)) applyRetainKeys(original, getOwn(patch, RETAIN_KEYS));

  // $setElementOrder compares against the stored order before this patch (kube's serverOrder).
  const orders: [string, unknown, unknown[]][] = [];
  for (const [key, value] of Object.entries(patch)) {
    if (key === DIRECTIVE || key === RETAIN_KEYS) continue;
    if (key.startsWith(DELETE_FROM_PRIMITIVE)) {
      deleteFromPrimitiveList(original, key.slice(DELETE_FROM_PRIMITIVE.length), value);
      continue;
    }
    if (key.startsWith(SET_ELEMENT_ORDER)) {
      const field = key.slice(SET_ELEMENT_ORDER.length);
      const stored = getOwn(original, field);
      orders.push([field, value, Array.isArray(stored) ? [...stored] : []]);
      continue;
    }
    const fieldSchema = propertySchema(schema, key, registry);
    if (value === null) {
      delete original[key];
      continue;
    }
    const current = getOwn(original, key);
    if (isMap(value) && isMap(current)) {
      const merged = mergeMap(current, value, fieldSchema, registry);
      if (merged === undefined) delete original[key];
      else setOwn(original, key, merged);
    } else if (Array.isArray(value) && Array.isArray(current)) {
      setOwn(original, key, mergeList(current, value, listStrategy(fieldSchema, registry), registry));
    } else if (isMap(value) && getOwn(value, DIRECTIVE) === 'delete') {
      delete original[key];
    } else {
      setOwn(original, key, stripDirectives(value, fieldSchema, registry));
    }
  }
  for (const [field, order, serverOrder] of orders) {
    applyElementOrder(original, field, order, serverOrder, propertySchema(schema, field, registry), registry);
  }
  return original;
}

function withoutKey(m: JsonMap, key: string): JsonMap {
  const { [key]: _dropped, ...rest } = m;
  return rest;
}

function applyRetainKeys(original: JsonMap, retain: unknown): void {
  if (!Array.isArray(retain) || !retain.every((k) => typeof k === 'string')) {
    throw new StrategicPatchError('invalid patch: $retainKeys must be a list of strings');
  }
  const kept = new Set(retain);
  for (const key of Object.keys(original)) if (!kept.has(key)) delete original[key];
}

function deleteFromPrimitiveList(original: JsonMap, field: string, values: unknown): void {
  if (!Array.isArray(values)) throw new StrategicPatchError(`invalid patch: ${DELETE_FROM_PRIMITIVE}${field} must be a list`);
  const current = getOwn(original, field);
  if (!Array.isArray(current)) return;
  // A Set: linear in the two lists (JSON primitives compare by value in a Set as with ===).
  const drop = new Set(values);
  setOwn(original, field, current.filter((item) => !drop.has(item)));
}

function mergeList(current: unknown[], patch: unknown[], strategy: ListStrategy, registry: SchemaRegistry): unknown[] {
  if (strategy.kind === 'replace') return patch.map((v) => stripDirectives(v, strategy.itemSchema, registry));
  if (strategy.kind === 'merge-primitives') {
    const out = [...current];
    const present = new Set(current);
    for (const item of patch) {
      if (isMap(item)) throw new StrategicPatchError('invalid patch: a list of primitives cannot hold objects');
      if (!present.has(item)) {
        present.add(item);
        out.push(item);
      }
    }
    return out;
  }
  return mergeListByKey(current, patch, strategy.mergeKey!, strategy.itemSchema, registry);
}

/** Removed items are marked, not spliced out, so that the key index stays valid; dropped at the end. */
const REMOVED = Symbol('removed');

function mergeListByKey(current: unknown[], patch: unknown[], mergeKey: string, itemSchema: Schema | undefined, registry: SchemaRegistry): unknown[] {
  if (patch.some((item) => isMap(item) && getOwn(item, DIRECTIVE) === 'replace')) {
    return patch.filter((item) => !(isMap(item) && getOwn(item, DIRECTIVE) === 'replace')).map((v) => stripDirectives(v, itemSchema, registry));
  }
  const out: unknown[] = [...current];
  // Positions of the items holding each merge key value, in order: one pass, then lookups, so
  // that a long list costs linear time (merge key values compare as with ===).
  const positions = new Map<unknown, number[]>();
  out.forEach((v, i) => {
    if (!isMap(v)) return;
    const k = getOwn(v, mergeKey);
    const at = positions.get(k);
    if (at) at.push(i);
    else positions.set(k, [i]);
  });
  for (const item of patch) {
    if (!isMap(item)) throw new StrategicPatchError(`invalid patch: list items must be objects with the merge key "${mergeKey}"`);
    if (!hasOwnKey(item, mergeKey)) throw new StrategicPatchError(`map: ${JSON.stringify(item)} does not contain declared merge key: ${mergeKey}`);
    const itemKey = getOwn(item, mergeKey);
    const at = positions.get(itemKey);
    if (getOwn(item, DIRECTIVE) === 'delete') {
      for (const i of at ?? []) out[i] = REMOVED;
      positions.delete(itemKey);
      continue;
    }
    if (!at || at.length === 0) {
      positions.set(itemKey, [out.length]);
      out.push(stripDirectives(item, itemSchema, registry));
      continue;
    }
    const index = at[0]!;
    const merged = mergeMap(out[index] as JsonMap, item, itemSchema, registry);
    if (merged === undefined) {
      out[index] = REMOVED;
      at.shift();
    } else {
      out[index] = merged;
    }
  }
  return out.filter((v) => v !== REMOVED);
}

/**
 * $setElementOrder/<field>: the listed items come in the given order; items only the server
 * knows are interleaved by their stored position (kube's mergeSortedSlice: a server-only item
 * goes first only when both items were stored and it was stored earlier).
 */
function applyElementOrder(
  original: JsonMap,
  field: string,
  order: unknown,
  serverOrder: unknown[],
  fieldSchema: Schema | undefined,
  registry: SchemaRegistry,
): void {
  if (!Array.isArray(order)) throw new StrategicPatchError(`invalid patch: ${SET_ELEMENT_ORDER}${field} must be a list`);
  const list = getOwn(original, field);
  if (!Array.isArray(list)) return;
  const { mergeKey } = listStrategy(fieldSchema, registry);
  const identity = (v: unknown): unknown => (mergeKey && isMap(v) ? getOwn(v, mergeKey) : v);
  // First positions by identity, looked up in constant time (indexOf in a sort comparator would
  // make a long list quadratic).
  const firstPositions = (items: unknown[]): Map<unknown, number> => {
    const m = new Map<unknown, number>();
    items.forEach((v, i) => {
      const id = identity(v);
      if (!m.has(id)) m.set(id, i);
    });
    return m;
  };
  const orderIds = firstPositions(order);
  const serverIds = firstPositions(serverOrder);
  const rank = (v: unknown): number => orderIds.get(identity(v)) ?? -1;
  const stored = (v: unknown): number => serverIds.get(identity(v)) ?? -1;
  const patched = list.filter((v) => rank(v) >= 0).sort((a, b) => rank(a) - rank(b));
  const serverOnly = list.filter((v) => rank(v) < 0).sort((a, b) => stored(a) - stored(b));
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < serverOnly.length || j < patched.length) {
    if (j >= patched.length) out.push(serverOnly[i++]);
    else if (i >= serverOnly.length) out.push(patched[j++]);
    else {
      const [l, r] = [stored(serverOnly[i]), stored(patched[j])];
      if (l >= 0 && r >= 0 && l < r) out.push(serverOnly[i++]);
      else out.push(patched[j++]);
    }
  }
  setOwn(original, field, out);
}

/** A value new to the original: drop any directives nested in it. */
function stripDirectives(value: unknown, schema: Schema | undefined, registry: SchemaRegistry): unknown {
  if (Array.isArray(value)) {
    const itemSchema = resolveSchema(schema, registry)?.items;
    return value.filter((v) => !(isMap(v) && getOwn(v, DIRECTIVE) === 'delete')).map((v) => stripDirectives(v, itemSchema, registry));
  }
  if (!isMap(value)) return value;
  const out: JsonMap = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === DIRECTIVE || k === RETAIN_KEYS || k.startsWith(DELETE_FROM_PRIMITIVE) || k.startsWith(SET_ELEMENT_ORDER)) continue;
    if (v === null) continue;
    if (isMap(v) && getOwn(v, DIRECTIVE) === 'delete') continue;
    setOwn(out, k, stripDirectives(v, propertySchema(schema, k, registry), registry));
  }
  return out;
}
