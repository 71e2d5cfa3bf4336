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

/**
 * A deep copy of a JSON value (objects and arrays copied, key order and `__proto__` keys kept),
 * what structuredClone gives for such values at a fraction of its cost: structuredClone goes
 * through the serializer, and every write copies its objects a few times. Anything that is not
 * a plain object or array (never in decoded JSON) is left to structuredClone.
 */
export function cloneJson<T>(v: T): T {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) {
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = cloneJson(v[i] as unknown);
    return out as T;
  }
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto !== Object.prototype && proto !== null) return structuredClone(v);
  const out: JsonMap = {};
  for (const k of Object.keys(v)) setOwn(out, k, cloneJson((v as JsonMap)[k]));
  return out as T;
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

/**
 * How deep request bodies may nest. kube-apiserver's JSON and YAML decoders stop at 10,000
 * levels; ours is lower because later steps recurse (structured clones, JSON encoding, merges)
 * and Node's default stack ends near 2,000 levels for some of them. No object of our kinds is
 * more than a dozen levels deep, so only unknown fields can be deeper than this.
 */
export const MAX_JSON_DEPTH = 1000;

/** Why a value cannot be taken: nested deeper than allowed (and the opening bracket of the level too many), or cyclic. */
export type ShapeProblem = { kind: 'depth'; opener: '{' | '[' } | { kind: 'cycle' };

/**
 * Checks nesting without recursion, in time linear in the value's distinct containers: values
 * decoded from YAML may share containers (aliases), which are measured once (their height is
 * remembered), and may even contain themselves.
 */
export function checkJsonShape(root: unknown, maxDepth = MAX_JSON_DEPTH): ShapeProblem | undefined {
  if (typeof root !== 'object' || root === null) return undefined;
  const height = new Map<object, number>();
  const open = new Set<object>();
  const stack: { node: object; children: unknown[]; next: number; height: number }[] = [];
  const opener = (v: object): '{' | '[' => (Array.isArray(v) ? '[' : '{');
  const enter = (node: object): ShapeProblem | undefined => {
    if (stack.length >= maxDepth) return { kind: 'depth', opener: opener(node) };
    open.add(node);
    stack.push({ node, children: Array.isArray(node) ? node : Object.values(node), next: 0, height: 1 });
    return undefined;
  };
  const first = enter(root);
  if (first) return first;
  while (stack.length) {
    const top = stack[stack.length - 1]!;
    if (top.next < top.children.length) {
      const child = top.children[top.next++];
      if (typeof child !== 'object' || child === null) continue;
      if (open.has(child)) return { kind: 'cycle' };
      const known = height.get(child);
      if (known !== undefined) {
        if (stack.length + known > maxDepth) return { kind: 'depth', opener: opener(child) };
        top.height = Math.max(top.height, known + 1);
        continue;
      }
      const problem = enter(child);
      if (problem) return problem;
      continue;
    }
    stack.pop();
    open.delete(top.node);
    height.set(top.node, top.height);
    const parent = stack[stack.length - 1];
    if (parent) parent.height = Math.max(parent.height, top.height + 1);
  }
  return undefined;
}

/**
 * A client value as text for a message: strings as they are, anything else as JSON. Never
 * String(v): an object holding its own `toString` or `valueOf` key makes that throw.
 */
export function textOf(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined) return 'undefined';
  return JSON.stringify(v) ?? String(v);
}
