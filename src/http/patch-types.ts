// The patch formats PATCH accepts, each applied to the current object as JSON.

import jsonpatch from 'fast-json-patch';
import { commonSchemas } from '../apimachinery/common-schemas.js';
import { applyMergePatch } from '../apimachinery/merge-patch.js';
import { badRequest, unprocessable, unsupportedMediaType } from '../apimachinery/status-error.js';
import { applyStrategicMergePatch, StrategicPatchError } from '../apimachinery/strategic-merge-patch.js';
import type { ResourceDefinition } from '../registry/resource-definition.js';

export const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json'] as const;
export type PatchType = (typeof PATCH_TYPES)[number];

/** A patch would copy more than this many bytes: refused (kube's limit on JSON patch growth). */
const MAX_PATCHED_BYTES = 3 * 1024 * 1024;

export function patchTypeOf(contentType: string | undefined): PatchType {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if ((PATCH_TYPES as readonly string[]).includes(type)) return type as PatchType;
  throw unsupportedMediaType(type, [...PATCH_TYPES, 'application/apply-patch+yaml']);
}

export function parsePatch(type: PatchType, body: Buffer | undefined): unknown {
  const text = body?.toString('utf8') ?? '';
  let patch: unknown;
  try {
    patch = JSON.parse(text);
  } catch (err) {
    throw badRequest(`error decoding patch: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (type === 'application/json-patch+json' && !Array.isArray(patch)) throw badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  if (type !== 'application/json-patch+json' && (typeof patch !== 'object' || patch === null || Array.isArray(patch))) {
    throw badRequest('error decoding patch: the patch must be a JSON object');
  }
  return patch;
}

export function applyPatch(type: PatchType, current: Record<string, unknown>, patch: unknown, def: ResourceDefinition): Record<string, unknown> {
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
      return applyJsonPatch(current, patch as jsonpatch.Operation[]);
  }
}

function applyJsonPatch(current: Record<string, unknown>, ops: jsonpatch.Operation[]): Record<string, unknown> {
  const validation = jsonpatch.validate(ops, current);
  if (validation) throw unprocessable(jsonPatchMessage(validation));
  let result: Record<string, unknown>;
  try {
    result = jsonpatch.applyPatch(structuredClone(current), ops, true, true).newDocument;
  } catch (err) {
    throw unprocessable(jsonPatchMessage(err));
  }
  if (Buffer.byteLength(JSON.stringify(result)) > MAX_PATCHED_BYTES) {
    throw unprocessable(`the patched object is larger than ${MAX_PATCHED_BYTES} bytes`);
  }
  return result;
}

function jsonPatchMessage(err: unknown): string {
  if (err instanceof jsonpatch.JsonPatchError) {
    if (err.name === 'TEST_OPERATION_FAILED') return `testing value ${err.operation?.path ?? ''} failed: test failed`;
    return `${err.operation?.op ?? 'patch'} operation does not apply: ${err.message.split('\n')[0]}`;
  }
  return err instanceof Error ? err.message : String(err);
}
