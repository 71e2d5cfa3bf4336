// The bin's client-side commands (`platform-apiserver <command> …`), dispatched by commander:
// each command is a name, a summary and a module loaded only when that command runs (the server's
// start never loads them). A command parses the rest of the arguments itself, with commander, and
// resolves with the exit code. A new command is one more entry in COMMANDS. A word where a
// command goes that names none is a usage error with commander's nearest-name suggestion.

import { Command, CommanderError } from 'commander';
import { usageMessage } from './usage-message.js';

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
  {
    name: 'version',
    summary: 'print the version, git commit and build date (-o json: the /version document)',
    run: async (argv) => (await import('./version/command.js')).runVersion(argv),
  },
];

/**
 * The one-line usage error for `word` where a command goes (the server itself takes flags only):
 * commander's "unknown command" with its suggestion of the nearest command, if one is near.
 */
export function unknownCommandMessage(word: string, commands: readonly CliCommand[] = COMMANDS): string {
  const program = new Command('platform-apiserver').exitOverride().configureOutput({ writeErr: () => undefined, outputError: () => undefined });
  for (const c of commands) program.command(c.name);
  let message = `unknown command '${word}'`;
  try {
    program.parse([word], { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError && err.code === 'commander.unknownCommand') message = usageMessage(err);
  }
  if (message.includes('Did you mean')) return message;
  return `${message} (the commands are ${commands.map((c) => c.name).join(', ')}; the server takes flags only, see --help)`;
}

/**
 * Runs the command `argv` names and resolves with its exit code; undefined when argv names none
 * (it starts with a flag, or is empty: the server runs). `help <command>` is `<command> --help`.
 */
export async function runCommand(argv: readonly string[], commands: readonly CliCommand[] = COMMANDS, stderr: (text: string) => void = (t) => void process.stderr.write(t)): Promise<number | undefined> {
  const [first, ...rest] = argv;
  if (first === undefined || first.startsWith('-')) return undefined;
  if (first === 'help' && rest.length === 0) return undefined;
  if (first === 'help' && commands.some((c) => c.name === rest[0])) return runCommand([rest[0]!, '--help'], commands, stderr);
  if (!commands.some((c) => c.name === first)) {
    stderr(`platform-apiserver: ${unknownCommandMessage(first === 'help' ? rest[0]! : first, commands)}\n`);
    return 2;
  }
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
