// RFC 6902 JSON patch (application/json-patch+json) over plain JSON values, with RFC 6901
// pointers. Our own rather than a library's because pointer tokens are client data: a token
// such as `constructor` or `__proto__` must name an own key or nothing, never a member of
// Object.prototype (a library walking `obj[token]` lets `/metadata/constructor/assign` reach
// the global Object). Messages follow the Go json-patch library kube-apiserver uses.

import { cloneJson, deepEqual, getOwn, hasOwnKey, isJsonMap, setOwn, textOf, type JsonMap } from './json-value.js';

/** A patch that does not apply (rendered as 422 by the http layer). */
export class JsonPatchError extends Error {
  override name = 'JsonPatchError';
}

/** Copies adding up to more than this are refused before they are made (kube's JSONPatchMaxCopyBytes). */
export class JsonPatchCopyLimitError extends JsonPatchError {
  override name = 'JsonPatchCopyLimitError';
}

export interface JsonPatchOptions {
  /** Bytes `copy` operations may add in total, counted as encoded JSON. */
  maxCopyBytes: number;
}

type Container = JsonMap | unknown[];

/** Applies `ops` to a copy of `doc`; `doc` and the values in `ops` are never modified. */
export function applyJsonPatch(doc: unknown, ops: readonly unknown[], opts: JsonPatchOptions): unknown {
  try {
    return applyOps(doc, ops, opts);
  } catch (err) {
    // Values copied into each other can nest deeper than a structured clone or JSON encoding
    // can follow on the stack: such a patch does not apply.
    if (err instanceof RangeError) throw new JsonPatchError('the patched object is nested too deeply: exceeded max depth');
    throw err;
  }
}

function applyOps(doc: unknown, ops: readonly unknown[], opts: JsonPatchOptions): unknown {
  let root = cloneJson(doc);
  let copied = 0;
  for (const raw of ops) {
    if (!isJsonMap(raw)) throw new JsonPatchError('Unexpected kind: a patch operation must be an object');
    const op = getOwn(raw, 'op');
    const path = pointer(raw, 'path', textOf(op));
    switch (op) {
      case 'add':
        root = add(root, path, cloneJson(value(raw, 'add')), 'add');
        break;
      case 'remove':
        root = remove(root, path, 'remove').root;
        break;
      case 'replace': {
        const v = cloneJson(value(raw, 'replace'));
        if (!exists(root, path)) throw new JsonPatchError(`replace operation does not apply: doc is missing key: ${show(path)}: missing value`);
        root = remove(root, path, 'replace').root;
        root = add(root, path, v, 'replace');
        break;
      }
      case 'move': {
        const from = pointer(raw, 'from', 'move');
        if (path.length > from.length && from.every((t, i) => t === path[i])) {
          throw new JsonPatchError(`move operation does not apply: cannot move ${show(from)} into its own child ${show(path)}`);
        }
        if (!exists(root, from)) throw new JsonPatchError(`move operation does not apply: doc is missing from path: ${show(from)}: missing value`);
        const removed = remove(root, from, 'move');
        root = add(removed.root, path, removed.value, 'move');
        break;
      }
      case 'copy': {
        const from = pointer(raw, 'from', 'copy');
        if (!exists(root, from)) throw new JsonPatchError(`copy operation does not apply: doc is missing from path: ${show(from)}: missing value`);
        const v = get(root, from);
        copied += Buffer.byteLength(JSON.stringify(v) ?? '');
        if (copied > opts.maxCopyBytes) {
          throw new JsonPatchCopyLimitError(`Unable to complete the copy, the accumulated size increase of copy is ${copied}, exceeding the limit ${opts.maxCopyBytes}`);
        }
        root = add(root, path, cloneJson(v), 'copy');
        break;
      }
      case 'test': {
        const expected = value(raw, 'test');
        const actual = exists(root, path) ? get(root, path) : undefined;
        // Go's library treats a missing path as null.
        if (!deepEqual(actual === undefined ? null : actual, expected)) throw new JsonPatchError(`testing value ${show(path)} failed: test failed`);
        break;
      }
      default:
        throw new JsonPatchError(`Unexpected kind: ${typeof op === 'string' ? op : JSON.stringify(op) ?? 'undefined'}`);
    }
  }
  return root;
}

const show = (tokens: readonly string[]): string => tokens.map((t) => `/${t.replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');

function value(op: JsonMap, name: string): unknown {
  if (!hasOwnKey(op, 'value')) throw new JsonPatchError(`${name} operation does not apply: missing value`);
  return op.value;
}

/** The pointer in `field` of `op` as unescaped tokens ([] is the whole document). */
function pointer(op: JsonMap, field: 'path' | 'from', name: string): string[] {
  const p = getOwn(op, field);
  if (typeof p !== 'string') throw new JsonPatchError(`${name} operation failed to decode ${field}: missing value`);
  if (p === '') return [];
  if (!p.startsWith('/')) throw new JsonPatchError(`${name} operation does not apply: invalid JSON pointer ${JSON.stringify(p)}`);
  return p
    .slice(1)
    .split('/')
    .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** An array index token: a non-negative decimal without leading zeros. */
function index(token: string): number | undefined {
  return /^(0|[1-9][0-9]{0,8})$/.test(token) ? Number(token) : undefined;
}

function child(container: unknown, token: string): unknown {
  if (Array.isArray(container)) {
    const i = index(token);
    return i !== undefined && i < container.length ? container[i] : undefined;
  }
  if (isJsonMap(container)) return getOwn(container, token);
  return undefined;
}

function exists(root: unknown, path: readonly string[]): boolean {
  let node = root;
  for (const token of path) {
    if (Array.isArray(node)) {
      const i = index(token);
      if (i === undefined || i >= node.length) return false;
      node = node[i];
    } else if (isJsonMap(node)) {
      if (!hasOwnKey(node, token)) return false;
      node = node[token];
    } else {
      return false;
    }
  }
  return true;
}

function get(root: unknown, path: readonly string[]): unknown {
  let node = root;
  for (const token of path) node = child(node, token);
  return node;
}

/** The container holding the last token of `path`, which must exist and be an object or array. */
function parentOf(root: unknown, path: readonly string[], name: string): Container {
  const parentPath = path.slice(0, -1);
  const parent = exists(root, parentPath) ? get(root, parentPath) : undefined;
  if (!isJsonMap(parent) && !Array.isArray(parent)) throw new JsonPatchError(`${name} operation does not apply: doc is missing path: "${show(path)}": missing value`);
  return parent;
}

function add(root: unknown, path: readonly string[], v: unknown, name: string): unknown {
  if (path.length === 0) return v;
  const parent = parentOf(root, path, name);
  const token = path[path.length - 1]!;
  if (isJsonMap(parent)) {
    setOwn(parent, token, v);
    return root;
  }
  if (token === '-') {
    parent.push(v);
    return root;
  }
  const i = index(token);
  if (i === undefined || i > parent.length) throw new JsonPatchError(`Unable to access invalid index: ${token}: invalid index referenced`);
  parent.splice(i, 0, v);
  return root;
}

function remove(root: unknown, path: readonly string[], name: string): { root: unknown; value: unknown } {
  if (path.length === 0) return { root: null, value: root };
  const parent = parentOf(root, path, name);
  const token = path[path.length - 1]!;
  if (isJsonMap(parent)) {
    if (!hasOwnKey(parent, token)) throw new JsonPatchError(`Unable to remove nonexistent key: ${token}: missing value`);
    const v = parent[token];
    delete parent[token];
    return { root, value: v };
  }
  const i = index(token);
  if (i === undefined || i >= parent.length) throw new JsonPatchError(`Unable to access invalid index: ${token}: invalid index referenced`);
  return { root, value: parent.splice(i, 1)[0] };
}
