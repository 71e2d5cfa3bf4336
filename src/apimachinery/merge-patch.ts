// RFC 7386 JSON merge patch (application/merge-patch+json). Keys are client data: read and
// written as own keys only (see json-value.ts), so `__proto__` is just a key.

import { cloneJson, getOwn, isJsonMap as isObject, setOwn } from './json-value.js';

/** Returns the patched value; `target` is not modified. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return cloneJson(patch);
  const out: Record<string, unknown> = isObject(target) ? cloneJson(target) : {};
  mergeInto(out, patch);
  return out;
}

/** Merges `patch` into `out` (already a private copy) in place. */
function mergeInto(out: Record<string, unknown>, patch: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete out[key];
      continue;
    }
    if (!isObject(value)) {
      setOwn(out, key, cloneJson(value));
      continue;
    }
    const current = getOwn(out, key);
    const child = isObject(current) ? current : {};
    // Stryker disable next-line ConditionalExpression: equivalent, setting the map that is already there changes nothing
    if (child !== current) setOwn(out, key, child);
    mergeInto(child, value);
  }
}
