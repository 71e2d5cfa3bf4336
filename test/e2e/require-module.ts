// requireTool for a tool that needs a library too (python3 with its kubernetes package, ruby with
// kubeclient): the tool must run a probe command successfully. Missing: a loud SKIPPED line
// locally, a failure under PLATFORM_APISERVER_REQUIRE_TOOLS=1 (CI).

import { spawnSync } from 'node:child_process';
import { requireTool, toolsRequired } from './require-tool.js';

/** The tool's path when `tool probeArgs…` exits 0; else undefined after a SKIPPED notice (throws in CI). */
export function requireModule(tool: string, probeArgs: string[], why: string): string | undefined {
  const found = requireTool(tool, why);
  if (!found) return undefined;
  const probe = spawnSync(found, probeArgs, { encoding: 'utf8', timeout: 30_000 });
  if (probe.status === 0) return found;
  const message = `${tool} ${probeArgs.join(' ')} failed (${why}): ${(probe.stderr || probe.error?.message || '').trim().split('\n').pop()}`;
  if (toolsRequired()) throw new Error(`${message}; PLATFORM_APISERVER_REQUIRE_TOOLS=1 forbids skipping`);
  process.stderr.write(`\n*** SKIPPED: ${message} ***\n\n`);
  return undefined;
}
