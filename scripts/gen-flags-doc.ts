// `npm run docs:flags`: writes docs/flags.md from the CLI's own commander definitions (the
// Command objects src/config/flags.ts and each subcommand build), so the page lists exactly the
// flags `--help` lists, with their descriptions and defaults. test/docs/flags-doc.test.ts fails
// when the checked-in page is not what this script makes. Run with --check to compare only.

import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command, Option } from 'commander';
import { serverCommand } from '../src/config/flags.js';
import { trustAnchorsCommand } from '../src/cli/trust-anchors/command.js';
import { snapshotCommand } from '../src/cli/snapshot/command.js';
import { migrateCommand } from '../src/cli/migrate/command.js';
import { defragCommand } from '../src/cli/defrag/command.js';
import { versionCommand } from '../src/cli/version/command.js';

export const FLAGS_DOC_PATH = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'flags.md');

/**
 * Client-side commands built outside the server's Command; each is documented unless the server's
 * Command already has a subcommand of the same (last) name.
 */
const STANDALONE_COMMANDS: (() => Command)[] = [() => trustAnchorsCommand(), () => snapshotCommand(), () => migrateCommand(), () => defragCommand(), () => versionCommand()];

/** Where a server flag's behaviour is explained at length (a flag not listed, nor under a prefix below, has no link). */
const SEE_ALSO: Record<string, string> = {
  '--data-dir': 'operations.md',
  '--storage-backend': 'etcd.md',
  '--etcd-servers': 'etcd.md',
  '--etcd-prefix': 'etcd.md',
  '--etcd-cafile': 'etcd.md',
  '--etcd-certfile': 'etcd.md',
  '--etcd-keyfile': 'etcd.md',
  '--etcd-compaction-interval': 'etcd.md',
  '--token-auth-file': 'authentication.md',
  '--client-ca-file': 'authentication.md',
  '--api-audiences': 'authentication.md',
  '--authentication-config': 'authentication.md#structured-configuration---authentication-config',
  '--shutdown-delay-duration': 'operations.md#stopping',
  '--shutdown-timeout': 'operations.md#stopping',
  '--service-cluster-ip-range': 'controllers.md',
  '--controllers': 'controllers.md',
  '--max-requests-inflight': 'operations.md#overload-limits',
  '--max-mutating-requests-inflight': 'operations.md#overload-limits',
  '--max-event-loop-delay': 'operations.md#overload-limits',
  '--request-timeout': 'operations.md#overload-limits',
  '--read-header-timeout': 'limits.md',
  '--storage-durability': 'operations.md#running',
  '--log-level': 'operations.md#running',
  '--max-request-body-bytes': 'limits.md',
};

/** Flag families explained on one page, by name prefix (an exact SEE_ALSO entry wins). */
const SEE_ALSO_PREFIXES: [prefix: string, page: string][] = [
  ['--oidc-', 'authentication.md#oidc-with-flags'],
  ['--authentication-token-webhook-', 'authentication.md#token-webhook'],
  ['--service-account-', 'authentication.md'],
  ['--authorization-', 'authorization-and-tls.md'],
  ['--tls-', 'authorization-and-tls.md#tls'],
  ['--snapshot-', 'backup-and-restore.md#scheduled-snapshots'],
];

function seeAlso(flag: string): string | undefined {
  return SEE_ALSO[flag] ?? SEE_ALSO_PREFIXES.find(([prefix]) => flag.startsWith(prefix))?.[1];
}

/** The page that explains a subcommand (its flags' link column points there). */
const COMMAND_PAGES: Record<string, string> = {
  'trust-anchors': 'trust-anchors.md',
  snapshot: 'backup-and-restore.md',
  migrate: 'migration.md',
};

const lastWord = (name: string): string => name.split(' ').pop() ?? name;

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function defaultOf(o: Option): string {
  if (o.defaultValueDescription) return o.defaultValueDescription;
  const v: unknown = o.defaultValue;
  if (v === undefined || v === false || v === '' || (Array.isArray(v) && v.length === 0)) return '';
  // A collected key=value flag starts as an empty map: no default to show.
  if (v instanceof Map) return v.size ? `\`${[...v].map(([k, x]) => `${String(k)}=${String(x)}`).join(',')}\`` : '';
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) return Object.keys(v).length ? `\`${JSON.stringify(v)}\`` : '';
  return `\`${Array.isArray(v) ? v.join(',') : String(v)}\``;
}

function optionRow(o: Option, page: string | undefined): string {
  const see = page ?? (o.long ? seeAlso(o.long) : undefined);
  const description = cell(o.description) + (o.mandatory ? ' (required)' : '');
  return `| \`${cell(o.flags)}\` | ${cell(defaultOf(o))} | ${description} | ${see ? `[${see.split('#')[0]}](${see})` : ''} |`;
}

/** A command's flags, then its subcommands'; a subcommand's flags link to its command's page. */
function commandSection(cmd: Command, heading: string, root: boolean, inherited?: string): string[] {
  const help = cmd.createHelp();
  const page = root ? undefined : (COMMAND_PAGES[lastWord(cmd.name())] ?? inherited);
  const lines = [`## ${heading}`, '', cell(cmd.description()), '', '| flag | default | what | more |', '|---|---|---|---|'];
  for (const o of help.visibleOptions(cmd)) lines.push(optionRow(o, page));
  lines.push('');
  for (const sub of help.visibleCommands(cmd)) {
    if (sub.name() === 'help') continue;
    lines.push(...commandSection(sub, `${heading} ${lastWord(sub.name())}`, false, page));
  }
  return lines;
}


/**
 * The commands the page documents: the server's (its subcommands within it), then each
 * standalone command that is not also one of its subcommands.
 */
export function documentedCommands(): Command[] {
  // The version is not part of the page; the Command needs one for --version.
  const server = serverCommand('0.0.0');
  const subNames = new Set(server.commands.map((c) => lastWord(c.name())));
  return [server, ...STANDALONE_COMMANDS.map((make) => make()).filter((c) => !subNames.has(lastWord(c.name())))];
}

export function renderFlagsDoc(): string {
  const [server, ...standalone] = documentedCommands();
  const lines = [
    '# Flags',
    '',
    '<!-- Generated by scripts/gen-flags-doc.ts from the commander definitions (`npm run docs:flags`); do not edit by hand. -->',
    '',
    'Flags carry kube-apiserver\'s names and meanings. Pass them to `platform-apiserver` (or after `--` to `npm start`, e.g. `npm start -- --secure-port 0`). Durations are Go durations (`250ms`, `1m30s`, `0`). The last column links to the page that explains a flag at length.',
    '',
    ...commandSection(server!, server!.name(), true),
  ];
  for (const cmd of standalone) lines.push(...commandSection(cmd, cmd.name(), false));
  return lines.join('\n').replace(/\n+$/, '\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const text = renderFlagsDoc();
  if (process.argv.includes('--check')) {
    if (readFileSync(FLAGS_DOC_PATH, 'utf8') !== text) {
      process.stderr.write('docs/flags.md is out of date: run npm run docs:flags\n');
      process.exit(1);
    }
  } else writeFileSync(FLAGS_DOC_PATH, text);
}
