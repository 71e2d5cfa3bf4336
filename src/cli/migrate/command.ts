// `platform-apiserver migrate`: moves the whole store between the embedded SQLite database and
// etcd, either way (to-etcd.ts, from-etcd.ts), and reports in one line what it did or why it did
// not. Exit codes: 0 done and verified, 1 refused or failed (the target left as it was found, or
// the message says what is left), 2 a usage mistake.

import { Command, CommanderError } from 'commander';
import { accessSync, constants } from 'node:fs';
import type { EtcdEndpoint } from './etcd-range.js';
import { migrateFromEtcd } from './from-etcd.js';
import { MigrationError, UsageError, errorText } from './migration-error.js';
import { migrateToEtcd } from './to-etcd.js';

export interface MigrateIO {
  stdout(text: string): void;
  stderr(text: string): void;
}

const processIO: MigrateIO = { stdout: (t) => void process.stdout.write(t), stderr: (t) => void process.stderr.write(t) };

export type MigrateOptions =
  | { direction: 'to-etcd'; dataDir: string; etcd: EtcdEndpoint; force: boolean; advanceRevision: boolean }
  | { direction: 'from-etcd'; dataDir: string; etcd: EtcdEndpoint };

interface RawOptions {
  dataDir?: string;
  toEtcdServers?: string;
  fromEtcdServers?: string;
  etcdPrefix: string;
  etcdCafile?: string;
  etcdCertfile?: string;
  etcdKeyfile?: string;
  force: boolean;
  advanceRevision: boolean;
}

/** The `migrate` command line (parseMigrateArgs parses with it; scripts/gen-flags-doc.ts documents it). */
export function migrateCommand(io: MigrateIO = processIO): Command {
  return new Command('platform-apiserver migrate')
    .description(
      'Copy every object between the embedded SQLite store and etcd, at one revision, verified key by key. ' +
        'To etcd: --data-dir DIR --to-etcd-servers URL[,URL] (the prefix must be empty). ' +
        'Back: --from-etcd-servers URL[,URL] --data-dir NEWDIR (the dir must be empty). Stop the servers first.',
    )
    .option('--data-dir <dir>', 'the server data dir: the source with --to-etcd-servers, the (empty) target with --from-etcd-servers')
    .option('--to-etcd-servers <urls>', 'copy the data dir\'s store into etcd at these comma-separated client URLs (http:// or https://)')
    .option('--from-etcd-servers <urls>', 'copy the store under --etcd-prefix in etcd at these client URLs into a new database in --data-dir')
    .option('--etcd-prefix <prefix>', 'where the objects live in etcd: the --etcd-prefix the server runs with', '/registry')
    .option('--etcd-cafile <file>', 'CA bundle (PEM) that etcd\'s serving certificates are verified against')
    .option('--etcd-certfile <file>', 'client certificate (PEM) for TLS to etcd')
    .option('--etcd-keyfile <file>', 'client key (PEM) for TLS to etcd')
    .option(
      '--no-advance-revision',
      "to etcd: skip advancing etcd's revision past the SQLite store's (one write per revision); then a client resuming a watch from an old resourceVersion above etcd's may wait instead of getting 410: restart every client",
    )
    .option('--force', 'copy from a data dir a running server holds (a consistent read at one revision; later writes are not copied)', false)
    .exitOverride()
    .configureOutput({ writeOut: (t) => io.stdout(t), writeErr: (t) => io.stderr(t) });
}

export function parseMigrateArgs(argv: readonly string[], io: MigrateIO = processIO): MigrateOptions {
  const cmd = migrateCommand(io);
  cmd.parse(argv as string[], { from: 'user' });
  const o = cmd.opts<RawOptions>();
  if ((o.toEtcdServers === undefined) === (o.fromEtcdServers === undefined)) throw new UsageError('exactly one of --to-etcd-servers and --from-etcd-servers is required');
  if (!o.dataDir) throw new UsageError('--data-dir is required');
  if (Boolean(o.etcdCertfile) !== Boolean(o.etcdKeyfile)) throw new UsageError('--etcd-certfile and --etcd-keyfile go together');
  if (!o.etcdPrefix.startsWith('/')) throw new UsageError('--etcd-prefix must start with /');
  const flag = o.toEtcdServers !== undefined ? '--to-etcd-servers' : '--from-etcd-servers';
  const servers = String(o.toEtcdServers ?? o.fromEtcdServers)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (servers.length === 0) throw new UsageError(`${flag} needs at least one URL`);
  for (const s of servers) if (!/^https?:\/\/[^/]+\/?$/.test(s)) throw new UsageError(`${flag}: ${JSON.stringify(s)} is not an http:// or https:// URL of a member`);
  const etcd: EtcdEndpoint = {
    servers: servers.map((s) => s.replace(/\/$/, '')),
    // As the server: kube accepts a trailing slash; keys are prefix + '/<group>/...'.
    prefix: o.etcdPrefix.replace(/\/+$/, ''),
    caFile: o.etcdCafile,
    certFile: o.etcdCertfile,
    keyFile: o.etcdKeyfile,
  };
  if (o.fromEtcdServers !== undefined) {
    if (o.force || !o.advanceRevision) throw new UsageError(`${o.force ? '--force' : '--no-advance-revision'} goes with --to-etcd-servers`);
    return { direction: 'from-etcd', dataDir: o.dataDir, etcd };
  }
  return { direction: 'to-etcd', dataDir: o.dataDir, etcd, force: o.force, advanceRevision: o.advanceRevision };
}

/** The TLS files, before anything else is touched: a missing one is named by its flag. */
function checkReadable(etcd: EtcdEndpoint): void {
  for (const [flag, file] of [['--etcd-cafile', etcd.caFile], ['--etcd-certfile', etcd.certFile], ['--etcd-keyfile', etcd.keyFile]] as const) {
    if (file === undefined) continue;
    try {
      accessSync(file, constants.R_OK);
    } catch (err) {
      throw new MigrationError(`${flag} ${file} cannot be read: ${errorText(err)}`);
    }
  }
}

const perSecond = (n: number, s: number): string => `${s > 0 ? Math.round(n / s) : n} objects/s`;
const CLIENTS_NOTE = 'resourceVersions have changed: a watch or exact list from an old one gets 410 Gone and clients re-list; see docs/migration.md';

/** Runs `platform-apiserver migrate <argv>`; the exit code. */
export async function runMigrate(argv: readonly string[], io: MigrateIO = processIO): Promise<number> {
  let o: MigrateOptions;
  try {
    o = parseMigrateArgs(argv, io);
  } catch (err) {
    if (err instanceof CommanderError) return err.code === 'commander.helpDisplayed' || err.code === 'commander.version' ? 0 : 2;
    io.stderr(`platform-apiserver migrate: ${errorText(err)}\n`);
    return 2;
  }
  try {
    checkReadable(o.etcd);
    if (o.direction === 'to-etcd') {
      const r = await migrateToEtcd({ dataDir: o.dataDir, target: o.etcd, force: o.force, advanceRevision: o.advanceRevision });
      if (r.targetRevision <= r.sourceRevision) {
        io.stderr(
          `platform-apiserver migrate: warning: etcd's revision (${r.targetRevision}) is not above the SQLite store's (${r.sourceRevision}): a client resuming a watch from an old resourceVersion above ${r.targetRevision} waits instead of re-listing; restart every client\n`,
        );
      }
      if (r.live) io.stderr(`platform-apiserver migrate: warning: a running server holds ${o.dataDir}; writes after revision ${r.sourceRevision} are not in this copy\n`);
      if (r.cleaned) io.stderr(`platform-apiserver migrate: removed the ${r.cleaned.removed} keys an interrupted \`${r.cleaned.mark.command}\` (pid ${r.cleaned.mark.pid}, started ${r.cleaned.mark.startedAt}) wrote under ${o.etcd.prefix}/\n`);
      io.stdout(
        `migrated ${r.objects} objects from ${o.dataDir} (revision ${r.sourceRevision}) to etcd prefix ${o.etcd.prefix}/ (etcd revision ${r.targetRevision}), verified key by key and by content digest (sha256 ${r.sha256} on both sides), ` +
          `in ${r.seconds.toFixed(1)} s (${perSecond(r.objects, r.seconds)})\n${CLIENTS_NOTE}\n` +
          `start the server with: --storage-backend etcd --etcd-servers ${o.etcd.servers.join(',')} --etcd-prefix ${o.etcd.prefix}\n`,
      );
    } else {
      const r = await migrateFromEtcd({ source: o.etcd, dataDir: o.dataDir });
      if (r.cleaned) io.stderr(`platform-apiserver migrate: removed what an interrupted \`${r.cleaned.command}\` (pid ${r.cleaned.pid}, started ${r.cleaned.startedAt}) left in ${o.dataDir}\n`);
      io.stdout(
        `migrated ${r.objects} objects from etcd prefix ${o.etcd.prefix}/ (etcd revision ${r.sourceRevision}) to ${o.dataDir} (revision ${r.targetRevision}), verified key by key and by content digest (sha256 ${r.sha256} on both sides), ` +
          `in ${r.seconds.toFixed(1)} s (${perSecond(r.objects, r.seconds)})\n${CLIENTS_NOTE}\n` +
          `start the server with: --data-dir ${o.dataDir} (the default SQLite backend)\n`,
      );
    }
    return 0;
  } catch (err) {
    io.stderr(`platform-apiserver migrate: ${err instanceof MigrationError ? err.message : errorText(err)}\n`);
    return 1;
  }
}
