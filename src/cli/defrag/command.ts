// `platform-apiserver defrag [--data-dir DIR]`: gives the SQLite store's free pages back to the
// file system (src/storage/sqlite/store-defrag.ts), as `etcdctl defrag` does for an etcd member:
// offline (the file rewritten whole) when no server holds the data dir, online (in small steps
// beside the server's writes) when one does. One line on success; a failure is one line on
// stderr and exit 1 (2 for a usage mistake).

import { Command, CommanderError } from 'commander';
import { resolve } from 'node:path';
import { defragStore } from '../../storage/sqlite/store-defrag.js';

export interface DefragIO {
  stdout(text: string): void;
  stderr(text: string): void;
}

const processIO: DefragIO = { stdout: (t) => void process.stdout.write(t), stderr: (t) => void process.stderr.write(t) };

const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** The `defrag` command line (runDefrag parses with it; scripts/gen-flags-doc.ts may document it). */
export function defragCommand(io: DefragIO = processIO): Command {
  return new Command('platform-apiserver defrag')
    .description(
      "Give the SQLite store's free pages back to the file system. With no server on the data dir, the file is rewritten whole (no free pages, the current format); " +
        'with a server running, free pages are released in small steps beside its writes.',
    )
    .option('--data-dir <dir>', "the server's data dir (its store is DATA_DIR/state.db)", './data')
    .exitOverride()
    .configureOutput({ writeOut: (t) => io.stdout(t), writeErr: (t) => io.stderr(t) });
}

/** Runs `platform-apiserver defrag <argv>`; the exit code. */
export async function runDefrag(argv: readonly string[], io: DefragIO = processIO): Promise<number> {
  const cmd = defragCommand(io);
  try {
    cmd.parse(argv as string[], { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) return err.code === 'commander.helpDisplayed' || err.code === 'commander.version' ? 0 : 2;
    throw err;
  }
  const o = cmd.opts<{ dataDir: string }>();
  try {
    const r = await defragStore({ dataDir: resolve(o.dataDir) });
    const upgraded = r.fromSchema !== undefined && r.fromSchema < 2 ? `, upgraded from store schema ${r.fromSchema}` : '';
    io.stdout(
      `Defragmented ${r.dbPath} ${r.mode === 'offline' ? 'offline (rewritten whole)' : 'online (beside the running server)'} in ${(r.durationMs / 1000).toFixed(1)} s: ` +
        `${mib(r.beforeBytes)} → ${mib(r.afterBytes)}, free pages ${r.freePagesBefore} → ${r.freePagesAfter}${upgraded}\n`,
    );
    return 0;
  } catch (err) {
    io.stderr(`platform-apiserver defrag: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}\n`);
    return 1;
  }
}
