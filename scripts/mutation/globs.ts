// The small glob dialect the module list uses (`*`, `**/`, `?`, `{a,b}`, and `!glob` in a list to
// exclude), matched against repository-relative paths with forward slashes. Stryker reads the
// same patterns with minimatch; this copy lets the runner pick modules and test files itself.

import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const cache = new Map<string, RegExp>();

function toRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      // `**/` is any number of whole folders; a trailing `**` is anything below.
      if (glob[i + 2] === '/') {
        re += '(?:[^/]+/)*';
        i += 2;
      } else {
        re += '.*';
        i += 1;
      }
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '{') re += '(?:';
    else if (c === '}') re += ')';
    else if (c === ',') re += '|';
    else re += c.replace(/[.+^$()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

export function matchesGlob(path: string, glob: string): boolean {
  let re = cache.get(glob);
  if (!re) cache.set(glob, (re = toRegExp(glob)));
  return re.test(path);
}

/** A path matches a list when a positive glob matches it and no `!glob` after that excludes it. */
export function matchesList(path: string, globs: readonly string[]): boolean {
  let matched = false;
  for (const glob of globs) {
    if (glob.startsWith('!')) {
      if (matched && matchesGlob(path, glob.slice(1))) matched = false;
    } else if (!matched && matchesGlob(path, glob)) matched = true;
  }
  return matched;
}

/** Every file under `dirs` (relative to `root`), as sorted repository-relative paths. */
export function listFiles(root: string, dirs: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const entry of readdirSync(join(root, rel), { withFileTypes: true })) {
      const child = `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile()) out.push(child);
    }
  };
  for (const dir of dirs) walk(dir);
  return out.sort();
}
