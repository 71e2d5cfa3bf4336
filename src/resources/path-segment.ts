// apimachinery's path.IsValidPathSegmentName: a name that can be one segment of a REST path or a
// storage key. Shared by the kinds whose references or names must be path segments.

export function isValidPathSegmentName(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  const errs: string[] = [];
  for (const bad of ['/', '%']) if (name.includes(bad)) errs.push(`may not contain '${bad}'`);
  return errs;
}

/** kube's ValidatePathSegmentName (a generateName prefix may be '.' or '..', which a suffix changes). */
export function validatePathSegmentName(name: string, prefix: boolean): string[] {
  if (!prefix) return isValidPathSegmentName(name);
  return ['/', '%'].filter((bad) => name.includes(bad)).map((bad) => `may not contain '${bad}'`);
}
