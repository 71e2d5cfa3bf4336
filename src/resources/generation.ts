// metadata.generation for both kinds (decisions.md 3): 1 on create, +1 whenever spec changes,
// never changed by metadata-only or status writes.

import type { KubeObject } from '../apimachinery/object-meta.js';

type WithSpec = KubeObject & { spec?: unknown };

export function initialGeneration(obj: KubeObject): void {
  obj.metadata.generation = 1;
}

export function bumpGenerationOnSpecChange(obj: WithSpec, old: WithSpec): void {
  const oldGeneration = old.metadata.generation ?? 0;
  obj.metadata.generation = JSON.stringify(obj.spec ?? null) === JSON.stringify(old.spec ?? null) ? oldGeneration : oldGeneration + 1;
}
