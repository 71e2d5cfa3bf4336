// `platform-apiserver trust-anchors`: the merged trust anchors of ClusterTrustBundles, computed
// as the kubelet computes a clusterTrustBundle projected volume, for programs outside a cluster
// (load balancers, proxies, curl). Prints the PEM, or writes it to --out; with --watch keeps
// --out up to date, rewriting it atomically whenever the merged set changes. The kubeconfig is
// found as kubectl finds it (kubeconfig-files.ts). Every error is one line.

import { Command, CommanderError } from 'commander';
import { countCertificates, mergeTrustAnchors } from './merge.js';
import { emptySelectionError, listFilters, type Selection } from './selection.js';
import { errorMessage, listBundles, watchBundles } from './source.js';
import { writeFileAtomic } from './atomic-file.js';
import { loadKubeconfig } from './kubeconfig-files.js';
import { usageMessage } from '../usage-message.js';

/** A usage mistake found after parsing (commander reports its own as it parses). */
class UsageError extends Error {}

export interface TrustAnchorsOptions {
  /** --kubeconfig; unset: $KUBECONFIG, then ~/.kube/config, as kubectl. */
  kubeconfig?: string;
  context?: string;
  selection: Selection;
  optional: boolean;
  out?: string;
  watch: boolean;
}

/** Where the command writes, and what ends --watch (SIGTERM or SIGINT for the real process). */
export interface CommandIO {
  stdout(text: string): void;
  stderr(text: string): void;
  stopped: Promise<void>;
}

function processIO(): CommandIO {
  return {
    ...processOutput,
    stopped: new Promise<void>((resolve) => {
      process.once('SIGTERM', resolve);
      process.once('SIGINT', resolve);
    }),
  };
}

const processOutput: Pick<CommandIO, 'stdout' | 'stderr'> = { stdout: (t) => void process.stdout.write(t), stderr: (t) => void process.stderr.write(t) };

/** The command's flags (docs/flags.md is generated from them by scripts/gen-flags-doc.ts). */
export function trustAnchorsCommand(io: Pick<CommandIO, 'stdout' | 'stderr'> = processOutput): Command {
  return new Command('platform-apiserver trust-anchors')
    .description('Print the merged trust anchors of ClusterTrustBundles, as a clusterTrustBundle projected volume holds them')
    .option('--kubeconfig <file>', 'kubeconfig of the server to read from (default: as kubectl, the files in $KUBECONFIG merged, else ~/.kube/config)')
    .option('--context <name>', 'the kubeconfig context to use (default: its current-context)')
    .option('--name <name>', 'one ClusterTrustBundle, by name')
    .option('--signer <signerName>', 'every ClusterTrustBundle of this signer that matches --selector')
    .option('--selector <labels>', "label selector with --signer ('' matches every bundle of the signer; unset matches none, as in a projection)")
    .option('--optional', 'an empty selection gives empty output instead of an error', false)
    .option('--out <file>', 'write the PEM to this file (atomically) instead of standard output')
    .option('--watch', 'keep --out up to date until interrupted', false)
    .exitOverride()
    // Errors are printed once, on one line, by runTrustAnchors.
    .configureOutput({ writeOut: (t) => io.stdout(t), writeErr: (t) => io.stderr(t), outputError: () => undefined });
}

export function parseTrustAnchorsArgs(argv: readonly string[], io: Pick<CommandIO, 'stdout' | 'stderr'> = processOutput): TrustAnchorsOptions {
  const cmd = trustAnchorsCommand(io);
  cmd.parse(argv as string[], { from: 'user' });
  const o = cmd.opts<{ kubeconfig?: string; context?: string; name?: string; signer?: string; selector?: string; optional: boolean; out?: string; watch: boolean }>();
  if ((o.name === undefined) === (o.signer === undefined)) throw new UsageError('exactly one of --name and --signer is required');
  if (o.name !== undefined && o.selector !== undefined) throw new UsageError('--selector goes with --signer, not --name');
  if (o.watch && !o.out) throw new UsageError('--watch needs --out');
  const selection: Selection = o.name !== undefined ? { kind: 'name', name: o.name } : { kind: 'signer', signerName: o.signer!, labelSelector: o.selector };
  return { kubeconfig: o.kubeconfig, context: o.context, selection, optional: o.optional, out: o.out, watch: o.watch };
}

/** The PEM for the selected bundles, or the error of an empty selection. */
function render(bundles: readonly object[], o: TrustAnchorsOptions): { pem: string } | { error: string } {
  if (bundles.length === 0) {
    const error = emptySelectionError(o.selection, o.optional);
    if (error) return { error };
  }
  return { pem: mergeTrustAnchors(bundles) };
}

async function once(o: TrustAnchorsOptions, io: CommandIO): Promise<number> {
  const filters = listFilters(o.selection);
  const bundles = filters ? await listBundles(loadKubeconfig(o), filters) : [];
  const r = render(bundles, o);
  if ('error' in r) {
    io.stderr(`platform-apiserver trust-anchors: ${r.error}\n`);
    return 1;
  }
  if (o.out) writeFileAtomic(o.out, r.pem);
  else io.stdout(r.pem);
  return 0;
}

/** Rewrites --out whenever the merged set changes; an empty selection keeps the last good file. */
async function watch(o: TrustAnchorsOptions, io: CommandIO): Promise<number> {
  const filters = listFilters(o.selection);
  if (!filters) {
    // An unset selector matches nothing, now and later.
    return once(o, io);
  }
  let written: string | undefined;
  const w = await watchBundles(
    loadKubeconfig(o),
    filters,
    (bundles) => {
      const r = render(bundles, o);
      if ('error' in r) return io.stderr(`platform-apiserver trust-anchors: ${r.error}; keeping ${o.out} as it is\n`);
      if (r.pem === written) return;
      writeFileAtomic(o.out!, r.pem);
      written = r.pem;
      io.stderr(`platform-apiserver trust-anchors: wrote ${o.out} (${countCertificates(r.pem)} certificates)\n`);
    },
    (message) => io.stderr(`platform-apiserver trust-anchors: watch failed: ${message}; retrying\n`),
  );
  await io.stopped;
  await w.stop();
  return 0;
}

/** Runs the command; resolves with the process exit code. */
export async function runTrustAnchors(argv: readonly string[], io: CommandIO = processIO()): Promise<number> {
  let o: TrustAnchorsOptions;
  try {
    o = parseTrustAnchorsArgs(argv, io);
  } catch (err) {
    if (err instanceof CommanderError && (err.code === 'commander.helpDisplayed' || err.code === 'commander.version')) return 0;
    if (err instanceof UsageError || err instanceof CommanderError) io.stderr(`platform-apiserver trust-anchors: ${usageMessage(err)}\n`);
    else throw err;
    return 2;
  }
  try {
    return await (o.watch ? watch(o, io) : once(o, io));
  } catch (err) {
    io.stderr(`platform-apiserver trust-anchors: ${errorMessage(err)}\n`);
    return 1;
  }
}
