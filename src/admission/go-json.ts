// JSON as Go's encoding/json writes it: `<`, `>`, `&`, U+2028 and U+2029 escaped, so annotation
// values read the same as kube's.

export function goJson(v: unknown): string {
  return JSON.stringify(v).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
