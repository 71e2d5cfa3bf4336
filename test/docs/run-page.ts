// Runs one page's shell blocks in order in its session (docs/docs-tests.md): `sh` blocks command
// by command, each to exit 0; `console` blocks command by command, each printing what the page
// shows under it (or, when it shows nothing, exiting 0); a block marked `<!-- output -->` is
// what the run block before it printed. Blocks marked not-run are left out. The first failure
// ends the page: later commands build on earlier ones.

import { consoleCommands, shCommands, type Command, type DocBlock } from './doc-blocks.js';
import { matchesShown, mismatch } from './output-match.js';
import type { ShellSession } from './shell-session.js';

/** How long a command that runs until interrupted runs when the page shows nothing it prints. */
const UNSHOWN_WATCH_MS = 3000;

const ASSIGNMENT = /^(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*/;

/** Whether a command runs until interrupted: kubectl or the bin with `-w` / `--watch`. */
export function runsUntilInterrupted(command: string): boolean {
  const words = command.replace(ASSIGNMENT, '').split(/\s+/);
  return (words[0] === 'kubectl' || words[0] === 'platform-apiserver') && words.some((w) => w === '-w' || w === '--watch');
}

/**
 * The command as the harness runs it: the server's address and the cluster's temp dir are the
 * page's own, and a command that runs until interrupted is stopped once it printed enough.
 */
export function rewrite(command: string): string {
  const text = command
    .replace(/\b(127\.0\.0\.1|localhost):6443\b/g, '$1:${__DOCS_PORT}')
    .replace(/\/tmp\/platform-cluster-XXXX/g, '${__DOCS_CLUSTER_DIR:?npm run cluster has not run on this page}');
  if (!runsUntilInterrupted(command)) return text;
  if (/[|;&<>]/.test(command.replace(/#.*$/, ''))) throw new Error(`a command run until interrupted must be one simple command: ${command}`);
  return `__docs_for_a_while ${text}`;
}

const where = (block: DocBlock, c: Command): string => `${block.page}:${c.line}`;

export interface PageRun {
  /** Commands run, for the report. */
  commands: number;
}

export async function runPage(session: ShellSession, blocks: DocBlock[]): Promise<PageRun> {
  let commands = 0;
  let lastOutput: string | undefined;
  const fail = (message: string): never => {
    throw new Error(`${message}\n${session.serverLogs()}`);
  };
  const run = async (block: DocBlock, c: Command) => {
    commands++;
    const started = Date.now();
    const watching = runsUntilInterrupted(c.text);
    const enough = watching ? (out: string) => (c.shown !== undefined ? matchesShown(c.shown, out) : Date.now() - started > UNSHOWN_WATCH_MS) : undefined;
    try {
      return await session.run(rewrite(c.text), { enough, timeoutMs: /npm run cluster/.test(c.text) ? 300_000 : 120_000 });
    } catch (err) {
      return fail(`${where(block, c)}: ${c.text}\n${err instanceof Error ? err.message : String(err)}`);
    }
  };
  for (const block of blocks) {
    if (block.marker?.kind === 'not-run') continue;
    if (block.marker?.kind === 'output') {
      if (lastOutput === undefined) fail(`${block.page}:${block.line}: an output block with no run block before it`);
      if (!matchesShown(block.text, lastOutput!)) fail(`${block.page}:${block.line}: the block before does not print what this block shows\n${mismatch(block.text, lastOutput!)}`);
      continue;
    }
    if (block.lang === 'console') {
      for (const c of consoleCommands(block)) {
        const r = await run(block, c);
        if (c.shown !== undefined) {
          if (!matchesShown(c.shown, r.output)) fail(`${where(block, c)}: ${c.text} (exit ${r.status})\n${mismatch(c.shown, r.output)}`);
        } else if (r.status !== 0) fail(`${where(block, c)}: ${c.text}\nexited ${r.status}:\n${r.output}`);
        lastOutput = r.output;
      }
    } else if (block.lang === 'sh' || block.lang === 'bash' || block.lang === 'shell') {
      let output = '';
      for (const c of shCommands(block)) {
        const r = await run(block, c);
        output += r.output;
        if (r.status !== 0) fail(`${where(block, c)}: ${c.text}\nexited ${r.status}:\n${r.output}`);
      }
      lastOutput = output;
    }
  }
  return { commands };
}
