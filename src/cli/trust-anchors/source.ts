// Reads ClusterTrustBundles from the server named by a kubeconfig, with @kubernetes/client-node
// (HTTPS, the kubeconfig's CA and credentials): one list, or a list-and-watch cache that
// re-lists on 410 and is restarted with backoff when its watch fails.

import * as k8s from '@kubernetes/client-node';
import type { TrustBundleLike } from './merge.js';

const GROUP = 'certificates.platform.io';
const VERSION = 'v1beta1';
const PLURAL = 'clustertrustbundles';
const PATH = `/apis/${GROUP}/${VERSION}/${PLURAL}`;

type Bundle = TrustBundleLike & k8s.KubernetesObject;

export interface Filters {
  fieldSelector: string;
  labelSelector?: string;
}

/** The message of a failed request: the server's Status message when there is one. */
export function errorMessage(err: unknown): string {
  if (err instanceof k8s.ApiException) {
    try {
      const body = typeof err.body === 'string' ? JSON.parse(err.body) : err.body;
      if (body && typeof body.message === 'string') return body.message;
    } catch {
      // not JSON: fall through
    }
    return `HTTP ${err.code}`;
  }
  return err instanceof Error ? err.message : String(err);
}

function lister(kc: k8s.KubeConfig, f: Filters): () => Promise<k8s.KubernetesListObject<Bundle>> {
  const api = kc.makeApiClient(k8s.CustomObjectsApi);
  return async () =>
    (await api.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, fieldSelector: f.fieldSelector, labelSelector: f.labelSelector })) as k8s.KubernetesListObject<Bundle>;
}

export async function listBundles(kc: k8s.KubeConfig, f: Filters): Promise<Bundle[]> {
  return (await lister(kc, f)()).items;
}

export interface BundleWatch {
  stop(): Promise<void>;
}

/**
 * Calls `onChange` with every matching bundle after the first list and after each change.
 * Errors are reported to `onError` and the watch is restarted (1 s doubling to 30 s).
 */
export async function watchBundles(kc: k8s.KubeConfig, f: Filters, onChange: (bundles: Bundle[]) => void, onError: (message: string) => void): Promise<BundleWatch> {
  const informer = new k8s.ListWatch<Bundle>(PATH, new k8s.Watch(kc), lister(kc, f), false, f.labelSelector, f.fieldSelector);
  let stopped = false;
  let delay = 1000;
  let timer: NodeJS.Timeout | undefined;
  let ready = false;
  let pending: NodeJS.Immediate | undefined;
  // A (re-)list arrives as one event per object: report once it is all in, never a partial set.
  const emit = (): void => {
    if (!ready || pending) return;
    pending = setImmediate(() => {
      pending = undefined;
      delay = 1000;
      if (!stopped) onChange([...informer.list()]);
    });
  };
  informer.on('add', emit);
  informer.on('update', emit);
  informer.on('delete', emit);
  const restart = (): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      informer.start().then(emit, (err: unknown) => {
        onError(errorMessage(err));
        restart();
      });
    }, delay);
    delay = Math.min(30_000, delay * 2);
  };
  informer.on('error', (err: unknown) => {
    if (stopped) return;
    onError(errorMessage(err));
    restart();
  });
  await informer.start();
  ready = true;
  emit();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      if (pending) clearImmediate(pending);
      await informer.stop();
    },
  };
}
