// metadata.generation for both kinds (docs/api-compatibility.md, decision 3): 1 on create, +1 whenever spec changes,
// never changed by metadata-only or status writes.

import { deepEqual } from '../apimachinery/json-value.js';
import type { KubeObject } from '../apimachinery/object-meta.js';

type WithSpec = KubeObject & { spec?: unknown };

export function initialGeneration(obj: KubeObject): void {
  obj.metadata.generation = 1;
}

/** The value as stored (members holding undefined dropped), for a structural comparison. */
const jsonForm = (v: unknown): unknown => JSON.parse(JSON.stringify(v ?? null)) as unknown;

export function bumpGenerationOnSpecChange(obj: WithSpec, old: WithSpec): void {
  const oldGeneration = old.metadata.generation ?? 0;
  // Compared as values, not text: kube compares decoded structs, so key order never counts.
  obj.metadata.generation = deepEqual(jsonForm(obj.spec), jsonForm(old.spec)) ? oldGeneration : oldGeneration + 1;
}
