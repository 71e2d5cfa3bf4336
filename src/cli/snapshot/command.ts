// `platform-apiserver snapshot save|status|restore|ls|delete|prune`: snapshots of the embedded
// SQLite store, as `etcdctl snapshot save`, `etcdutl snapshot status|restore` and
// `k3s etcd-snapshot ls|delete|prune` do for etcd. Every failure is one line on stderr and a
// non-zero exit (1; 2 for a usage mistake); the work itself is in src/storage/sqlite/snapshot-*.ts.

import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { listSnapshots, pruneSnapshots } from '../../storage/sqlite/snapshot-files.js';
import { SnapshotError, SQLITE_FILE_NAME } from '../../storage/sqlite/snapshot-format.js';
import { DEFAULT_BUMP_REVISION, restoreSnapshot } from '../../storage/sqlite/snapshot-restore.js';
import { removeStalePartials, saveSnapshot, yieldToServer } from '../../storage/sqlite/snapshot-save.js';
import { inspectSnapshot } from '../../storage/sqlite/snapshot-status.js';
import { humanSize, renderList, renderStatus, type OutputFormat } from './render.js';

export interface SnapshotIO {
  stdout(text: string): void;
  stderr(text: string): void;
}

const processIO: SnapshotIO = { stdout: (t) => void process.stdout.write(t), stderr: (t) => void process.stderr.write(t) };

/** A usage mistake found after parsing (commander reports its own as it parses). */
class UsageError extends Error {}

const nonNegative = (v: string): number => {
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 0) throw new InvalidArgumentError('must be a non-negative integer');
  return n;
};

const outputOption = (): Option => new Option('-o, --output <format>', 'table or json').choices(['table', 'json']).default('table');

/** --snapshot-dir, or DATA_DIR/snapshots (where the server's schedule saves). */
function snapshotDir(o: { snapshotDir?: string; dataDir?: string }): string {
  if (o.snapshotDir && o.dataDir) throw new UsageError('give --snapshot-dir or --data-dir, not both');
  return o.snapshotDir ? resolve(o.snapshotDir) : resolve(o.dataDir ?? './data', 'snapshots');
}

function dirOptions(cmd: Command): Command {
  return cmd.option('--snapshot-dir <dir>', 'the snapshot directory').option('--data-dir <dir>', "the server's data dir: its snapshots are in DATA_DIR/snapshots (default: ./data)");
}

/** The `snapshot` command line (runSnapshot parses with it; scripts/gen-flags-doc.ts documents it). */
export function snapshotCommand(io: SnapshotIO = processIO, done: (code: number) => void = () => undefined): Command {
  const program = new Command('platform-apiserver snapshot')
    .description('Snapshots of the embedded SQLite store: save one while the server runs, check it, restore it into a new data dir')
    .exitOverride()
    .configureOutput({ writeOut: (t) => io.stdout(t), writeErr: (t) => io.stderr(t) });

  program
    .command('save')
    .description('save a consistent snapshot of the store while its server runs (one file, written atomically)')
    .argument('<file>', 'where the snapshot goes (replaced atomically if it exists)')
    .option('--data-dir <dir>', "the server's data dir (its store is DATA_DIR/state.db)", './data')
    .action(async (file: string, o: { dataDir: string }) => {
      yieldToServer();
      const saved = await saveSnapshot({ dbPath: join(resolve(o.dataDir), SQLITE_FILE_NAME), file });
      io.stdout(`Snapshot saved at ${saved.file} (revision ${saved.revision}, ${humanSize(saved.sizeBytes)}, sha256 ${saved.sha256})\n`);
      done(0);
    });

  program
    .command('status')
    .description('check a snapshot (its SHA-256, format, integrity) and show its revision, objects per resource, size and free pages')
    .argument('<file>', 'the snapshot')
    .addOption(outputOption())
    .action((file: string, o: { output: OutputFormat }) => {
      const status = inspectSnapshot(file);
      if (status.checksum === 'none') io.stderr(`platform-apiserver snapshot status: warning: ${status.file} is a format-${status.formatVersion} snapshot, which carries no checksum: an edit to its contents cannot be detected\n`);
      io.stdout(renderStatus(status, o.output));
      done(0);
    });

  program
    .command('restore')
    .description('check a snapshot, then make a new store of it in an empty data dir for a server to start on')
    .argument('<file>', 'the snapshot')
    .requiredOption('--data-dir <dir>', 'the new data dir (must not exist, or be empty)')
    .option('--bump-revision <n>', "how far past the snapshot's revision the restored store's revision starts; everything at or below it is compacted (clients from before re-list)", nonNegative, DEFAULT_BUMP_REVISION)
    .option('--skip-hash-check', "restore without checking the snapshot's SHA-256 (a format-1 snapshot has none; SQLite's integrity check still runs)", false)
    .action((file: string, o: { dataDir: string; bumpRevision: number; skipHashCheck: boolean }) => {
      if (o.skipHashCheck) io.stderr(`platform-apiserver snapshot restore: warning: --skip-hash-check: the snapshot's checksum is not checked; an edited file is restored as it is\n`);
      const r = restoreSnapshot({ file, dataDir: o.dataDir, bumpRevision: o.bumpRevision, skipHashCheck: o.skipHashCheck });
      if (r.cleaned) io.stderr(`platform-apiserver snapshot restore: removed what an interrupted \`${r.cleaned.command}\` (pid ${r.cleaned.pid}, started ${r.cleaned.startedAt}) left in ${resolve(o.dataDir)}\n`);
      io.stdout(
        `Restored ${r.snapshot.totalObjects} objects at revision ${r.snapshot.revision} into ${r.dbPath}; the store starts at revision ${r.revision}, compacted up to it; ` +
          `its objects verified against the snapshot (content sha256 ${r.contentSha256}).\n` +
          `Start the server with --data-dir ${resolve(o.dataDir)}\n`,
      );
      done(0);
    });

  dirOptions(program.command('ls').description('list the snapshots in the snapshot directory, newest first'))
    .addOption(outputOption())
    .action((o: { snapshotDir?: string; dataDir?: string; output: OutputFormat }) => {
      io.stdout(renderList(listSnapshots(snapshotDir(o)), o.output));
      done(0);
    });

  dirOptions(program.command('delete').description('delete snapshots by name from the snapshot directory'))
    .argument('<name...>', 'snapshot names, as ls shows them')
    .action((names: string[], o: { snapshotDir?: string; dataDir?: string }) => {
      const dir = snapshotDir(o);
      const listed = new Map(listSnapshots(dir).map((s) => [s.name, s]));
      const missing = names.filter((n) => !listed.has(n));
      if (missing.length) throw new SnapshotError(`no snapshot named ${missing.join(', ')} in ${dir}`);
      for (const n of names) {
        rmSync(listed.get(n)!.file, { force: true });
        io.stdout(`Deleted ${n}\n`);
      }
      done(0);
    });

  dirOptions(program.command('prune').description('delete scheduled snapshots past the retention (oldest first), and what interrupted saves left'))
    .option('--snapshot-retention <n>', 'scheduled snapshots to keep', nonNegative, 5)
    .action((o: { snapshotDir?: string; dataDir?: string; snapshotRetention: number }) => {
      const dir = snapshotDir(o);
      removeStalePartials(dir);
      for (const s of pruneSnapshots(dir, o.snapshotRetention)) io.stdout(`Deleted ${s.name}\n`);
      done(0);
    });
  return program;
}

/** Runs the command; resolves with the process exit code. */
export async function runSnapshot(argv: readonly string[], io: SnapshotIO = processIO): Promise<number> {
  let code = 0;
  const program = snapshotCommand(io, (c) => (code = c));
  try {
    await program.parseAsync(argv as string[], { from: 'user' });
    return code;
  } catch (err) {
    const sub = argv.find((a) => !a.startsWith('-'));
    const who = `platform-apiserver snapshot${sub && program.commands.some((c) => c.name() === sub) ? ` ${sub}` : ''}`;
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return 0;
      // 'commander.help': no command named (the help was printed to stderr).
      return 2;
    }
    if (err instanceof UsageError) {
      io.stderr(`${who}: ${err.message}\n`);
      return 2;
    }
    // A SnapshotError says what went wrong in one line; anything else is reported by its message alone.
    io.stderr(`${who}: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}\n`);
    return 1;
  }
}
