// Tests that need an outside tool (kubectl, etcd) call requireTool(): when the tool is missing
// they are skipped with a loud SKIPPED line, unless PLATFORM_APISERVER_REQUIRE_TOOLS=1 (set by CI),
// which turns the skip into a failure.

import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export function findExecutable(name: string): string | undefined {
  if (name.includes('/')) return isExecutable(name) ? name : undefined;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export const toolsRequired = (): boolean => process.env.PLATFORM_APISERVER_REQUIRE_TOOLS === '1';

/**
 * Returns the tool's path, or undefined after printing a loud SKIPPED notice.
 * Throws instead when CI requires every tool.
 */
export function requireTool(name: string, why: string): string | undefined {
  const found = findExecutable(name);
  if (found) return found;
  const message = `${name} not found on PATH (${why})`;
  if (toolsRequired()) throw new Error(`${message}; PLATFORM_APISERVER_REQUIRE_TOOLS=1 forbids skipping`);
  process.stderr.write(`\n*** SKIPPED: ${message} ***\n\n`);
  return undefined;
}
