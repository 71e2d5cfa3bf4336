// kubectl's move from client-side to server-side apply. When `kubectl apply --server-side`
// (manager "kubectl") conflicts only on fields its last-applied-configuration annotation set and
// the live object still holds those values, the fields are its own and the apply goes ahead; and
// while the annotation exists, server-side apply keeps it in step with what was applied.

import { cloneJson, sortKeysDeep } from '../json-value.js';
import type { KubeObject } from '../object-meta.js';
import type { FieldSet } from './field-set.js';
import { compare, toFieldSet } from './typed-ops.js';
import type { TypeNode } from './typed-schema.js';
import { TOTAL_ANNOTATION_SIZE_LIMIT } from '../validation/object-meta-validation.js';

export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/** The fields the annotation set that the live object still holds unchanged; undefined when there is none. */
export function allowedConflictsFromLastApplied(live: Record<string, unknown>, apiVersion: string, root: TypeNode): FieldSet | undefined {
  const annotations = (live.metadata as KubeObject['metadata'] | undefined)?.annotations;
  const text = annotations?.[LAST_APPLIED_ANNOTATION];
  if (!text) return undefined;
  let lastApplied: unknown;
  try {
    lastApplied = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof lastApplied !== 'object' || lastApplied === null || (lastApplied as { apiVersion?: unknown }).apiVersion !== apiVersion) return undefined;
  try {
    const c = compare(lastApplied, live, root);
    return toFieldSet(lastApplied, root).difference(c.modified).difference(c.added).difference(c.removed);
  } catch {
    return undefined;
  }
}

/**
 * When the applied object carries a non-empty annotation, set it to the configuration just
 * applied; left out instead when it would take the annotations past their size limit (kube's
 * SetLastApplied), so that the apply still stores.
 */
export function syncLastApplied(obj: KubeObject, config: Record<string, unknown>): void {
  const annotations = obj.metadata?.annotations;
  if (!annotations?.[LAST_APPLIED_ANNOTATION]) return;
  const copy = cloneJson(config) as { metadata?: { annotations?: Record<string, string> } };
  if (copy.metadata?.annotations) delete copy.metadata.annotations[LAST_APPLIED_ANNOTATION];
  // Encoded as Go encodes unstructured objects: keys sorted, a trailing newline.
  const next: Record<string, string> = { ...annotations, [LAST_APPLIED_ANNOTATION]: `${JSON.stringify(sortKeysDeep(copy))}\n` };
  if (annotationsSize(next) > TOTAL_ANNOTATION_SIZE_LIMIT) delete next[LAST_APPLIED_ANNOTATION];
  obj.metadata.annotations = next;
}

/** Bytes of keys and values, as apimachinery's ValidateAnnotationsSize counts them. */
function annotationsSize(annotations: Record<string, string>): number {
  let size = 0;
  for (const [k, v] of Object.entries(annotations)) size += Buffer.byteLength(k) + Buffer.byteLength(v);
  return size;
}
