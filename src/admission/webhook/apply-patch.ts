// A mutating webhook's JSONPatch applied as kube applies it (callAttrMutatingHook): the patch
// decoded (an undecodable one is a call error, so the failure policy decides), applied to the
// object's JSON, and the result decoded back into the kind's type, which drops fields the kind
// does not have; a patch that does not apply or decode is an internal error.

import type { AdmissionAttributes } from '../../apimachinery/admission.js';
import { commonSchemas } from '../../apimachinery/common-schemas.js';
import { applyJsonPatch, JsonPatchError } from '../../apimachinery/json-patch.js';
import { deepEqual } from '../../apimachinery/json-value.js';
import type { KubeObject } from '../../apimachinery/object-meta.js';
import { goQuote } from '../../apimachinery/go-quote.js';
import { internal, isStatusError, type StatusError } from '../../apimachinery/status-error.js';
import { decodeTyped } from '../../apimachinery/typed-decode.js';
import type { ResourceDefinition } from '../../registry/resource-definition.js';
import { goJsonSyntaxError } from './go-json-syntax.js';

/** Copies a patch may make, in bytes (kube has no bound here; memory stays bounded). */
const MAX_COPY_BYTES = 3 * 1024 * 1024;

export type PatchResult =
  | { readonly kind: 'unchanged' }
  | { readonly kind: 'patched'; readonly object: KubeObject; readonly changed: boolean; readonly ops: unknown[] }
  /** An undecodable or unsupported patch: a call error under the failure policy. */
  | { readonly kind: 'calling-error'; readonly reason: string }
  | { readonly kind: 'error'; readonly error: StatusError };

const goKind = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v === 'boolean' ? 'bool' : typeof v === 'number' ? 'number' : 'string');

/** jsonpatch.DecodePatch's errors (json.Unmarshal into []Operation). */
function decodePatch(bytes: Buffer): unknown[] | string {
  const syntax = goJsonSyntaxError(bytes);
  if (syntax !== undefined) return syntax;
  const doc = JSON.parse(bytes.toString('utf8')) as unknown;
  if (doc === null) return [];
  if (!Array.isArray(doc)) return `json: cannot unmarshal ${goKind(doc)} into Go value of type jsonpatch.Patch`;
  for (const op of doc) if (op !== null && (typeof op !== 'object' || Array.isArray(op))) return `json: cannot unmarshal ${goKind(op)} into Go value of type jsonpatch.Operation`;
  return doc.map((op) => op ?? {});
}

export function applyWebhookPatch(name: string, a: AdmissionAttributes, def: ResourceDefinition, patch: Buffer, patchType: string): PatchResult {
  const ops = decodePatch(patch);
  if (typeof ops === 'string') return { kind: 'calling-error', reason: `received undecodable patch in webhook response: ${ops}` };
  if (ops.length === 0) return { kind: 'unchanged' };
  if (!a.object) return { kind: 'error', error: internal(`admission webhook ${goQuote(name)} attempted to modify the object, which is not supported for this operation`) };
  if (patchType !== 'JSONPatch') return { kind: 'calling-error', reason: `unsupported patch type ${goQuote(patchType)}` };
  let patched: unknown;
  try {
    patched = applyJsonPatch(a.object, ops, { maxCopyBytes: MAX_COPY_BYTES });
  } catch (err) {
    if (err instanceof JsonPatchError) return { kind: 'error', error: internal(err.message) };
    throw err;
  }
  if (typeof patched !== 'object' || patched === null || Array.isArray(patched)) {
    return { kind: 'error', error: internal(`json: cannot unmarshal ${goKind(patched)} into Go value of type ${def.version}.${def.kind}`) };
  }
  const obj = patched as Record<string, unknown>;
  try {
    decodeTyped(obj, def.schemas[def.schemaName]!, { ...commonSchemas, ...def.schemas });
  } catch (err) {
    if (isStatusError(err)) return { kind: 'error', error: internal(err.message) };
    throw err;
  }
  // Decoding into the kind's type: it keeps its own apiVersion and kind.
  const object = { ...obj, apiVersion: def.group ? `${def.group}/${def.version}` : def.version, kind: def.kind, metadata: obj.metadata ?? {} } as KubeObject;
  return { kind: 'patched', object, changed: !deepEqual(a.object, object), ops };
}
