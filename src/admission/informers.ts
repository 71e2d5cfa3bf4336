// What the admission plugins read their configuration and params from: informers over the
// registry (as kube's plugins read shared informers), one per kind asked for, started on demand.

import type { KubeObject } from '../apimachinery/object-meta.js';
import type { Logger, UserInfo } from '../apimachinery/request-context.js';
import { realClock, sleep } from '../controllers/clock.js';
import { Informer } from '../controllers/informer.js';
import type { ResourceDefinition } from '../registry/resource-definition.js';
import type { RestStorage } from '../registry/rest-storage.js';

/** The served kinds' registry endpoints admission may read (policies, bindings, webhooks, params). */
export interface AdmissionSources {
  /** The endpoint of a served kind, by group, version and kind. */
  find(group: string, version: string, kind: string): RestStorage | undefined;
  /** The endpoint of a served resource, by group, version and plural. */
  findResource(group: string, version: string, resource: string): RestStorage | undefined;
  readonly logger: Logger;
}

/** The loopback identity admission's informers read as. */
export const ADMISSION_USER: UserInfo = { username: 'system:apiserver', uid: 'admission', groups: ['system:masters'] };

export function startInformer<T extends KubeObject>(storage: RestStorage<T>, logger: Logger, onChange: () => void): Informer<T> {
  const informer = new Informer<T>({
    source: storage,
    user: ADMISSION_USER,
    clock: realClock,
    logger,
    handlers: { onAdd: onChange, onUpdate: onChange, onDelete: onChange },
  });
  informer.start();
  return informer;
}

/** A source whose first list may still be under way. */
export interface Syncing {
  readonly synced: Promise<void>;
  /** Set once `synced` resolved: the per-request check costs nothing after start-up. */
  readonly isSynced: boolean;
}

/** Whether `source` has synced, waiting up to `ms` for it (kube's WaitForReady). */
export async function readyWithin(source: Syncing, ms: number): Promise<boolean> {
  return source.isSynced || settledWithin(source.synced, ms);
}

/** Resolves whether `p` settled within `ms` (kube's WaitForCacheSync with a timeout). */
export async function settledWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  const stop = new AbortController();
  let done = false;
  void p.then(() => {
    done = true;
    stop.abort();
  });
  await Promise.race([p, sleep(realClock, ms, stop.signal)]);
  stop.abort();
  return done;
}

export const definitionOf = (s: RestStorage): ResourceDefinition => s.definition as unknown as ResourceDefinition;

/** Admission's sources over the given (admission-free) endpoints of every served kind. */
export function registrySources(endpoints: readonly RestStorage[], logger: Logger): AdmissionSources {
  const byKind = new Map<string, RestStorage>();
  const byResource = new Map<string, RestStorage>();
  for (const e of endpoints) {
    const d = definitionOf(e);
    byKind.set(`${d.group}/${d.version}/${d.kind}`, e);
    byResource.set(`${d.group}/${d.version}/${d.plural}`, e);
  }
  return {
    find: (g, v, k) => byKind.get(`${g}/${v}/${k}`),
    findResource: (g, v, r) => byResource.get(`${g}/${v}/${r}`),
    logger,
  };
}
