// Turns a POST/PUT body into an object of the endpoint's kind, as kube's typed decoding does:
// apiVersion/kind checked (and filled in when absent), JSON types checked, unknown and duplicate
// fields handled per fieldValidation (Strict: 400; Warn: warnings; Ignore: dropped silently).

import { commonSchemas } from '../../apimachinery/common-schemas.js';
import { decodeBody } from '../../apimachinery/decode.js';
import { textOf } from '../../apimachinery/json-value.js';
import type { KubeObject } from '../../apimachinery/object-meta.js';
import type { RequestContext } from '../../apimachinery/request-context.js';
import { badRequest } from '../../apimachinery/status-error.js';
import type { SchemaRegistry } from '../../apimachinery/schema.js';
import { decodeTyped } from '../../apimachinery/typed-decode.js';
import { apiVersionOf, type ResourceDefinition } from '../../registry/resource-definition.js';
import { bodyFormat } from './negotiation.js';
import type { FieldValidation } from './query-options.js';

export function checkTypeMeta(def: ResourceDefinition, value: unknown): KubeObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw badRequest(`couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
  }
  const obj = value as Record<string, unknown>;
  const expected = apiVersionOf(def);
  if (obj.apiVersion !== undefined && obj.apiVersion !== '' && obj.apiVersion !== expected) {
    throw badRequest(`the API version in the data (${textOf(obj.apiVersion)}) does not match the expected API version (${expected})`);
  }
  if (obj.kind !== undefined && obj.kind !== '' && obj.kind !== def.kind) {
    throw badRequest(`no kind "${textOf(obj.kind)}" is registered for version "${expected}" in scheme "platform-apiserver"`);
  }
  obj.apiVersion = expected;
  obj.kind = def.kind;
  if (obj.metadata === undefined || obj.metadata === null) obj.metadata = {};
  return obj as unknown as KubeObject;
}

/** Each kind's schema registry, made once (not copied on every request body). */
const registries = new WeakMap<ResourceDefinition, SchemaRegistry>();

function registryOf(def: ResourceDefinition): SchemaRegistry {
  let r = registries.get(def);
  if (!r) registries.set(def, (r = { ...commonSchemas, ...def.schemas }));
  return r;
}

/** Schema check and field validation of a decoded object; returns it with unknown fields removed. */
export function validateFields(def: ResourceDefinition, obj: KubeObject, duplicateFields: readonly string[], mode: FieldValidation, warnings: string[]): KubeObject {
  const unknown = decodeTyped(obj as unknown as Record<string, unknown>, def.schemas[def.schemaName]!, registryOf(def));
  def.normalizeDecoded?.(obj as unknown as Record<string, unknown>);
  if (unknown.length === 0 && duplicateFields.length === 0) return obj;
  const problems = [...unknown.map((p) => `unknown field "${p}"`), ...duplicateFields.map((p) => `duplicate field "${p}"`)];
  if (problems.length && mode === 'Strict') throw badRequest(`strict decoding error: ${problems.join(', ')}`);
  if (mode === 'Warn') warnings.push(...problems);
  return obj;
}

export async function decodeObjectBody(def: ResourceDefinition, body: Buffer | undefined, contentType: string | undefined, mode: FieldValidation, warnings: string[], context?: RequestContext): Promise<KubeObject> {
  const format = bodyFormat(contentType);
  if (!body || body.length === 0) throw badRequest('the body of the request was empty');
  const { value, duplicateFields } = await decodeBody(body, format, { context });
  return validateFields(def, checkTypeMeta(def, value), duplicateFields, mode, warnings);
}
