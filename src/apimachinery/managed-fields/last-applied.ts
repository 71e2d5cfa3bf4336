// kubectl's move from client-side to server-side apply. When `kubectl apply --server-side`
// (manager "kubectl") conflicts only on fields its last-applied-configuration annotation set and
// the live object still holds those values, the fields are its own and the apply goes ahead; and
// while the annotation exists, server-side apply keeps it in step with what was applied.

import { cloneJson, sortKeysDeep } from '../json-value.js';
import type { KubeObject } from '../object-meta.js';
import type { FieldSet } from './field-set.js';
import { compare, toFieldSet } from './typed-ops.js';
import type { TypeNode } from './typed-schema.js';

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

/** When the applied object carries the annotation, set it to the configuration just applied. */
export function syncLastApplied(obj: KubeObject, config: Record<string, unknown>): void {
  const annotations = obj.metadata?.annotations;
  if (!annotations || !(LAST_APPLIED_ANNOTATION in annotations)) return;
  const copy = cloneJson(config) as { metadata?: { annotations?: Record<string, string> } };
  if (copy.metadata?.annotations) delete copy.metadata.annotations[LAST_APPLIED_ANNOTATION];
  // Encoded as Go encodes unstructured objects: keys sorted, a trailing newline.
  obj.metadata.annotations = { ...annotations, [LAST_APPLIED_ANNOTATION]: `${JSON.stringify(sortKeysDeep(copy))}\n` };
}

