// The webhooks in force (kube's webhook configuration managers): every webhook of every
// Validating- or MutatingWebhookConfiguration, configurations in name order and webhooks in
// their order, each with its selectors parsed and matchConditions compiled once per
// resourceVersion. Recomputed on the first request after a configuration changed.

import type { KubeObject } from '../../apimachinery/object-meta.js';
import { admissionDeclarations } from '../../cel/admission-env.js';
import type { Informer } from '../../controllers/informer.js';
import type { RestStorage } from '../../registry/rest-storage.js';
import type { ValidatingWebhook } from '../../resources/admissionregistration/types.js';
import { startInformer, type AdmissionSources } from '../informers.js';
import { compileConditions, type CompiledConditions } from '../match-conditions.js';
import { compileSelector, type CompiledSelector } from '../matching/selectors.js';

interface WebhookConfiguration<W> extends KubeObject {
  webhooks?: W[];
}

export interface WebhookHook<W extends ValidatingWebhook> {
  /** kube's webhook UID: `<configuration>/<webhook>/<index>`. */
  readonly uid: string;
  readonly configurationName: string;
  readonly webhook: W;
  readonly namespaceSelector: CompiledSelector;
  readonly objectSelector: CompiledSelector;
  readonly conditions: CompiledConditions;
}

/** Webhook matchConditions see object, oldObject, request and authorizer; no params or variables. */
const WEBHOOK_DECLARATIONS = admissionDeclarations({ params: false, authorizer: true });

export class WebhookSource<W extends ValidatingWebhook> {
  private readonly informer: Informer<WebhookConfiguration<W>>;
  private readonly compiled = new Map<string, { rv: string; hooks: WebhookHook<W>[] }>();
  private dirty = true;
  private current: readonly WebhookHook<W>[] = [];
  readonly synced: Promise<void>;
  isSynced = false;

  constructor(sources: AdmissionSources, kind: 'ValidatingWebhookConfiguration' | 'MutatingWebhookConfiguration') {
    const storage = sources.find('admissionregistration.k8s.io', 'v1', kind) as RestStorage<WebhookConfiguration<W>>;
    this.informer = startInformer(storage, sources.logger, () => {
      this.dirty = true;
    });
    this.synced = this.informer.synced.then(() => {
      this.isSynced = true;
    });
  }

  hooks(): readonly WebhookHook<W>[] {
    if (!this.dirty) return this.current;
    this.dirty = false;
    const configs = this.informer.list().sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
    const seen = new Set<string>();
    const hooks: WebhookHook<W>[] = [];
    for (const c of configs) {
      const name = c.metadata.name ?? '';
      seen.add(name);
      const rv = c.metadata.resourceVersion ?? '';
      let entry = this.compiled.get(name);
      if (!entry || entry.rv !== rv) {
        entry = {
          rv,
          hooks: (c.webhooks ?? []).map((w, i) => ({
            uid: `${name}/${w.name ?? ''}/${i}`,
            configurationName: name,
            webhook: w,
            namespaceSelector: compileSelector(w.namespaceSelector ?? {}),
            objectSelector: compileSelector(w.objectSelector ?? {}),
            conditions: compileConditions(w.matchConditions, WEBHOOK_DECLARATIONS),
          })),
        };
        this.compiled.set(name, entry);
      }
      hooks.push(...entry.hooks);
    }
    for (const name of this.compiled.keys()) if (!seen.has(name)) this.compiled.delete(name);
    this.current = hooks;
    return hooks;
  }

  async stop(): Promise<void> {
    await this.informer.stop();
  }
}
