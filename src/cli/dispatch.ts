// The bin's client-side commands (`platform-apiserver <command> …`), dispatched by commander:
// each command is a name, a summary and a module loaded only when that command runs (the server's
// start never loads them). A command parses the rest of the arguments itself, with commander, and
// resolves with the exit code. A new command is one more entry in COMMANDS.

import { Command } from 'commander';

export interface CliCommand {
  name: string;
  summary: string;
  run(argv: readonly string[]): Promise<number>;
}

export const COMMANDS: readonly CliCommand[] = [
  {
    name: 'trust-anchors',
    summary: 'print (or --watch --out FILE) the merged trust anchors of ClusterTrustBundles',
    run: async (argv) => (await import('./trust-anchors/command.js')).runTrustAnchors(argv),
  },
  {
    name: 'snapshot',
    summary: 'save, status, restore, ls, delete, prune: snapshots of the SQLite store',
    run: async (argv) => (await import('./snapshot/command.js')).runSnapshot(argv),
  },
  {
    name: 'migrate',
    summary: 'copy every object between the SQLite store and etcd, either way (docs/migration.md)',
    run: async (argv) => (await import('./migrate/command.js')).runMigrate(argv),
  },
  {
    name: 'defrag',
    summary: "give the SQLite store's free pages back to the file system, offline or beside a running server (docs/operations.md)",
    run: async (argv) => (await import('./defrag/command.js')).runDefrag(argv),
  },
];

/** Runs the command `argv` names and resolves with its exit code; undefined when argv names none (the server runs). */
export async function runCommand(argv: readonly string[], commands: readonly CliCommand[] = COMMANDS): Promise<number | undefined> {
  if (!commands.some((c) => c.name === argv[0])) return undefined;
  let code = 0;
  const program = new Command('platform-apiserver').exitOverride();
  for (const c of commands) {
    // The command's own parser sees every argument after its name, --help included.
    program
      .command(c.name)
      .description(c.summary)
      .helpOption(false)
      .allowUnknownOption()
      .allowExcessArguments()
      .action(async (_options: unknown, cmd: Command) => {
        code = await c.run(cmd.args);
      });
  }
  await program.parseAsync(argv as string[], { from: 'user' });
  return code;
}
