// RFC 7386 JSON merge patch (application/merge-patch+json).

import { isJsonMap as isObject } from './json-value.js';

/** Returns the patched value; `target` is not modified. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  const out: Record<string, unknown> = isObject(target) ? structuredClone(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = applyMergePatch(out[key], value);
  }
  return out;
}
