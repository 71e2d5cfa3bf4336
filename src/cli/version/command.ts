// `platform-apiserver version`: our version, the git commit and build date stamped at build, and
// the API level; `-o json` or `-o yaml` prints the document /version serves instead (what a
// client of the server sees). `--version` on the server prints the same text.

import { Command, CommanderError } from 'commander';
import { stringify } from 'yaml';
import { KUBERNETES_VERSION, versionText } from '../../version.js';
import { usageMessage } from '../usage-message.js';

export interface VersionIO {
  stdout(text: string): void;
  stderr(text: string): void;
}

const processIO: VersionIO = { stdout: (t) => void process.stdout.write(t), stderr: (t) => void process.stderr.write(t) };

/** The command's flags (docs/flags.md is generated from them). */
export function versionCommand(io: VersionIO = processIO): Command {
  return new Command('platform-apiserver version')
    .description('Print the version, git commit and build date of this platform-apiserver')
    .option('-o, --output <format>', "'' (text), json or yaml: json and yaml print the /version document", '')
    .exitOverride()
    .configureOutput({ writeOut: (t) => io.stdout(t), writeErr: (t) => io.stderr(t), outputError: () => undefined });
}

/** Runs the command; resolves with the exit code (2 for a usage mistake, printed as one line). */
export async function runVersion(argv: readonly string[], io: VersionIO = processIO): Promise<number> {
  const cmd = versionCommand(io);
  try {
    cmd.parse(argv as string[], { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError && err.code === 'commander.helpDisplayed') return 0;
    io.stderr(`platform-apiserver version: ${usageMessage(err)}\n`);
    return 2;
  }
  const output = String(cmd.opts<{ output: string }>().output);
  if (output === 'json') io.stdout(`${JSON.stringify(KUBERNETES_VERSION, null, 2)}\n`);
  else if (output === 'yaml') io.stdout(stringify(KUBERNETES_VERSION));
  else if (output === '') io.stdout(`${versionText()}\n`);
  else {
    io.stderr(`platform-apiserver version: --output must be '', json or yaml, not ${JSON.stringify(output)}\n`);
    return 2;
  }
  return 0;
}
