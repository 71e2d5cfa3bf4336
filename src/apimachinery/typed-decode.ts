// What decoding into Go types does for kube-apiserver, driven by our schemas: wrong JSON types
// are a 400, `null` fields become absent, unknown fields are reported (for fieldValidation) and
// removed. Free-form subtrees (x-kubernetes-preserve-unknown-fields) are kept as sent.

import { hasOwnKey } from './json-value.js';
import { resolveSchema, type Schema, type SchemaRegistry } from './schema.js';
import { badRequest } from './status-error.js';

const jsonType = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v);

const GO_TYPE: Record<string, string> = { string: 'string', integer: 'int64', number: 'float64', boolean: 'bool', array: 'array', object: 'object' };

function mismatch(path: string, value: unknown, expected: string): never {
  throw badRequest(`json: cannot unmarshal ${jsonType(value)} into Go struct field ${path || '.'} of type ${GO_TYPE[expected] ?? expected}`);
}

function zeroValue(s: Schema | undefined): unknown {
  if (!s || s['x-kubernetes-preserve-unknown-fields'] || s['x-kubernetes-int-or-string']) return null;
  switch (s.type) {
    case 'string':
      return '';
    case 'integer':
    case 'number':
      return 0;
    case 'boolean':
      return false;
    case 'object':
      return s.additionalProperties ? null : {};
    default:
      return null;
  }
}

/** Checks `value` against `schema` in place; returns the paths of unknown fields (already removed). */
export function decodeTyped(value: Record<string, unknown>, schema: Schema, registry: SchemaRegistry): string[] {
  const unknown: string[] = [];
  walkObject(value, resolveSchema(schema, registry), registry, '', unknown);
  return unknown;
}

function walk(value: unknown, schema: Schema | undefined, registry: SchemaRegistry, path: string, unknown: string[]): void {
  const s = resolveSchema(schema, registry);
  if (!s || s['x-kubernetes-preserve-unknown-fields'] || s['x-kubernetes-int-or-string']) return;
  switch (s.type) {
    case 'object':
      if (jsonType(value) !== 'object') mismatch(path, value, 'object');
      walkObject(value as Record<string, unknown>, s, registry, path, unknown);
      return;
    case 'array':
      if (!Array.isArray(value)) mismatch(path, value, 'array');
      (value as unknown[]).forEach((item, i, items) => {
        // Go decodes a null element as the element type's zero value.
        if (item === null) {
          items[i] = zeroValue(resolveSchema(s.items, registry));
          return;
        }
        walk(item, s.items, registry, `${path}[${i}]`, unknown);
      });
      return;
    case 'string':
      if (typeof value !== 'string') mismatch(path, value, 'string');
      return;
    case 'boolean':
      if (typeof value !== 'boolean') mismatch(path, value, 'boolean');
      return;
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) mismatch(path, value, 'integer');
      return;
    case 'number':
      if (typeof value !== 'number') mismatch(path, value, 'number');
      return;
  }
}

function walkObject(obj: Record<string, unknown>, s: Schema | undefined, registry: SchemaRegistry, path: string, unknown: string[]): void {
  if (!s) return;
  for (const [key, child] of Object.entries(obj)) {
    const childPath = path ? `${path}.${key}` : key;
    // An own-key lookup: `constructor` or `__proto__` in a body is an unknown field like any other.
    const declared = s.properties && hasOwnKey(s.properties, key) ? s.properties[key] : undefined;
    const childSchema = declared ?? (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined);
    if (!childSchema) {
      if (s.additionalProperties === true) continue;
      unknown.push(childPath);
      delete obj[key];
      continue;
    }
    if (child === null) {
      delete obj[key];
      continue;
    }
    walk(child, childSchema, registry, childPath, unknown);
  }
}
