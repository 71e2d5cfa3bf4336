// Which kubeconfig the command reads, found as kubectl finds it (client-go's loading rules):
// --kubeconfig alone when given (it must exist); otherwise every file $KUBECONFIG lists
// (colon-separated, duplicates dropped, missing ones skipped), merged as kubectl merges them: the
// first file to define a cluster, user or context by name wins it, and the first file that sets
// current-context wins that; without $KUBECONFIG, ~/.kube/config. --context picks another context.
// Each file's relative paths are its own (client-node's loadFromFile resolves them).

import * as k8s from '@kubernetes/client-node';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';

/** A kubeconfig that cannot be found or used; the command prints it as its one error line. */
export class KubeconfigError extends Error {}

export interface KubeconfigSource {
  /** --kubeconfig. */
  kubeconfig?: string;
  /** --context. */
  context?: string;
  env?: NodeJS.ProcessEnv;
  home?: string;
}

/** The files to read, in precedence order, and where the list came from (for the error when none exists). */
function candidates(source: KubeconfigSource): { files: string[]; origin: string } {
  if (source.kubeconfig) return { files: [source.kubeconfig], origin: '--kubeconfig' };
  const list = (source.env ?? process.env).KUBECONFIG;
  if (list) return { files: [...new Set(list.split(delimiter).filter(Boolean))], origin: '$KUBECONFIG' };
  return { files: [join(source.home ?? homedir(), '.kube', 'config')], origin: '~/.kube/config' };
}

export function loadKubeconfig(source: KubeconfigSource): k8s.KubeConfig {
  const { files, origin } = candidates(source);
  if (source.kubeconfig && !existsSync(source.kubeconfig)) throw new KubeconfigError(`--kubeconfig ${source.kubeconfig}: no such file`);
  const loaded = files
    .filter((f) => existsSync(f))
    .map((f) => {
      const kc = new k8s.KubeConfig();
      try {
        kc.loadFromFile(resolve(f));
      } catch (err) {
        throw new KubeconfigError(`error loading config file "${f}": ${(err as Error).message}`);
      }
      return kc;
    });
  if (loaded.length === 0) {
    const where = origin === '$KUBECONFIG' ? `$KUBECONFIG (${files.join(delimiter)}) names no file that exists` : `${files[0]} does not exist`;
    throw new KubeconfigError(`no kubeconfig: ${where}; pass --kubeconfig FILE or set KUBECONFIG`);
  }
  const merged = new k8s.KubeConfig();
  merged.loadFromOptions({
    clusters: firstByName(loaded.map((kc) => kc.getClusters())),
    users: firstByName(loaded.map((kc) => kc.getUsers())),
    contexts: firstByName(loaded.map((kc) => kc.getContexts())),
    currentContext: source.context ?? loaded.map((kc) => kc.getCurrentContext()).find(Boolean) ?? '',
  });
  const current = merged.getCurrentContext();
  if (!current) throw new KubeconfigError('no current context in the kubeconfig; pass --context NAME');
  if (!merged.getContextObject(current)) throw new KubeconfigError(`context "${current}" does not exist`);
  if (!merged.getCurrentCluster()) throw new KubeconfigError(`context "${current}": its cluster is not in the kubeconfig`);
  return merged;
}

/** The entries of every file, the first of each name kept. */
function firstByName<T extends { name: string }>(perFile: T[][]): T[] {
  const seen = new Map<string, T>();
  for (const entries of perFile) for (const e of entries) if (!seen.has(e.name)) seen.set(e.name, e);
  return [...seen.values()];
}
