// The patch formats PATCH accepts, each applied to the current object as JSON.

import { commonSchemas } from '../../apimachinery/common-schemas.js';
import { decodeBody, parseJson } from '../../apimachinery/decode.js';
import type { RequestContext } from '../../apimachinery/request-context.js';
import { applyJsonPatch, JsonPatchError } from '../../apimachinery/json-patch.js';
import { checkJsonShape } from '../../apimachinery/json-value.js';
import { FieldPath, fieldErrors } from '../../apimachinery/field-error.js';
import { applyMergePatch } from '../../apimachinery/merge-patch.js';
import { badRequest, invalid, isStatusError, requestEntityTooLarge, unprocessable, unsupportedMediaType } from '../../apimachinery/status-error.js';
import { applyStrategicMergePatch, StrategicPatchError } from '../../apimachinery/strategic-merge-patch.js';
import type { ResourceDefinition } from '../../registry/resource-definition.js';
import { writeQuery, type FieldValidation, type WriteQuery } from './query-options.js';
import { queryBool } from './query-values.js';

export const APPLY_PATCH = 'application/apply-patch+yaml';
export const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', APPLY_PATCH] as const;
export type PatchType = (typeof PATCH_TYPES)[number];
export type MergingPatchType = Exclude<PatchType, typeof APPLY_PATCH>;

/** A patch would copy more than this many bytes: refused (kube's limit on JSON patch growth). */
const MAX_PATCHED_BYTES = 3 * 1024 * 1024;

export function patchTypeOf(contentType: string | undefined): PatchType {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if ((PATCH_TYPES as readonly string[]).includes(type)) return type as PatchType;
  throw unsupportedMediaType(type, PATCH_TYPES);
}

export interface PatchQuery extends WriteQuery {
  force: boolean;
}

/** PatchOptions, validated as kube does: apply needs a fieldManager, only apply takes force. */
export function patchQuery(query: URLSearchParams, userAgent: string | undefined, type: PatchType): PatchQuery {
  const q = writeQuery(query, userAgent, 'PatchOptions');
  const force = query.get('force');
  const errs = [];
  if (type !== APPLY_PATCH && force !== null) errs.push(fieldErrors.forbidden(FieldPath.root('force'), 'may not be specified for non-apply patch'));
  if (type === APPLY_PATCH && !query.get('fieldManager')) errs.push(fieldErrors.required(FieldPath.root('fieldManager'), 'is required for apply patch'));
  if (errs.length) throw invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', errs);
  return { ...q, force: queryBool(query, 'force') ?? false };
}

/** An apply configuration: one YAML (or JSON) object; duplicate keys are refused under Strict. */
export async function parseApplyConfig(body: Buffer | undefined, mode: FieldValidation, warnings: string[], context?: RequestContext): Promise<Record<string, unknown>> {
  const bytes = body ?? Buffer.alloc(0);
  // kubectl and client-node send JSON (which is YAML too); parse it as JSON, the faster way.
  const firstByte = bytes.find((b) => b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09);
  let decoded;
  try {
    decoded = await decodeBody(bytes, firstByte === 0x7b ? 'json' : 'yaml', { context });
  } catch (err) {
    throw badRequest(`error decoding YAML: ${isStatusError(err) ? err.message : String(err)}`);
  }
  const { value, duplicateFields } = decoded;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw badRequest(`error decoding YAML: the apply configuration must be an object, not ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`);
  }
  const problems = duplicateFields.map((p) => `duplicate field "${p}"`);
  if (problems.length && mode === 'Strict') throw badRequest(`error strict decoding YAML: ${problems.join(', ')}`);
  if (problems.length && mode === 'Warn') warnings.push(...problems);
  return value as Record<string, unknown>;
}

export async function parsePatch(type: MergingPatchType, body: Buffer | undefined): Promise<unknown> {
  const text = body?.toString('utf8') ?? '';
  let patch: unknown;
  try {
    // Linear, in slices for a large patch; nesting past the limit is refused at its bracket.
    patch = (await parseJson(text)).value;
  } catch (err) {
    throw badRequest(`error decoding patch: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (type === 'application/json-patch+json' && !Array.isArray(patch)) throw badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  if (type !== 'application/json-patch+json' && (typeof patch !== 'object' || patch === null || Array.isArray(patch))) {
    throw badRequest('error decoding patch: the patch must be a JSON object');
  }
  return patch;
}

export function applyPatch(type: MergingPatchType, current: Record<string, unknown>, patch: unknown, def: ResourceDefinition): Record<string, unknown> {
  const patched = applyPatchOfType(type, current, patch, def);
  // A JSON patch can nest values into each other, deeper than any body may be.
  if (checkJsonShape(patched)) throw unprocessable('the patched object is nested too deeply: exceeded max depth');
  return patched;
}

function applyPatchOfType(type: MergingPatchType, current: Record<string, unknown>, patch: unknown, def: ResourceDefinition): Record<string, unknown> {
  switch (type) {
    case 'application/merge-patch+json':
      return applyMergePatch(current, patch) as Record<string, unknown>;
    case 'application/strategic-merge-patch+json':
      try {
        return applyStrategicMergePatch(current, patch, def.schemas[def.schemaName]!, { ...commonSchemas, ...def.schemas });
      } catch (err) {
        if (err instanceof StrategicPatchError) throw badRequest(err.message);
        throw err;
      }
    case 'application/json-patch+json':
      return applyJsonPatchBounded(current, patch as unknown[]);
  }
}

/** kube's bound on the operations of one JSON patch. */
const MAX_JSON_PATCH_OPERATIONS = 10_000;

/**
 * RFC 6902; `copy` is bounded before it allocates: copies adding up to more than 3 MiB are
 * refused (a few copies of copies would otherwise grow the object exponentially).
 */
function applyJsonPatchBounded(current: Record<string, unknown>, ops: unknown[]): Record<string, unknown> {
  if (ops.length > MAX_JSON_PATCH_OPERATIONS) {
    throw requestEntityTooLarge(`The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${ops.length}`);
  }
  let doc: unknown;
  try {
    doc = applyJsonPatch(current, ops, { maxCopyBytes: MAX_PATCHED_BYTES });
  } catch (err) {
    if (err instanceof JsonPatchError) throw unprocessable(err.message);
    throw err;
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw unprocessable('the patched document is not a JSON object');
  if (Buffer.byteLength(JSON.stringify(doc)) > MAX_PATCHED_BYTES) {
    throw unprocessable(`the patched object is larger than ${MAX_PATCHED_BYTES} bytes`);
  }
  return doc as Record<string, unknown>;
}
