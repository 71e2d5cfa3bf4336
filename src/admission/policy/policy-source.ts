// The policies in force (policy/generic/policy_source.go): every ValidatingAdmissionPolicy that
// has bindings, compiled once per resourceVersion, with its bindings and, for a paramKind, an
// informer over the params. Recomputed on the first request after any policy or binding changed
// (kube recomputes within a second; here at once). Policies and bindings are visited in name
// order, so the first denial reported does not depend on timing.

import type { KubeObject } from '../../apimachinery/object-meta.js';
import type { Informer } from '../../controllers/informer.js';
import type { RestStorage } from '../../registry/rest-storage.js';
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from '../../resources/admissionregistration/types.js';
import { startInformer, type AdmissionSources } from '../informers.js';
import { compilePolicy, type CompiledPolicy } from './compiled-policy.js';

export interface ParamSource {
  readonly informer: Informer<KubeObject>;
  readonly storage: RestStorage;
  readonly synced: Promise<void>;
  isSynced: boolean;
}

export interface PolicyHook {
  readonly policy: ValidatingAdmissionPolicy;
  readonly compiled: CompiledPolicy;
  readonly bindings: readonly ValidatingAdmissionPolicyBinding[];
  /** Where params come from, when the policy has a paramKind this server serves. */
  readonly params?: ParamSource;
  /** Why the policy cannot be used as configured (its paramKind is not served). */
  readonly configurationError?: string;
}

const byName = <T extends KubeObject>(a: T, b: T): number => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1);

/** GroupVersionKind's String(): `group/version, Kind=kind`. */
const gvkString = (group: string, version: string, kind: string): string => `${group}/${version}, Kind=${kind}`;

function parseApiVersion(apiVersion: string): { group: string; version: string } | undefined {
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: parts[0]! };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! };
  return undefined;
}

export class PolicySource {
  private readonly policies: Informer<ValidatingAdmissionPolicy>;
  private readonly bindings: Informer<ValidatingAdmissionPolicyBinding>;
  private readonly compiled = new Map<string, { rv: string; compiled: CompiledPolicy }>();
  private readonly params = new Map<string, ParamSource>();
  private dirty = true;
  private current: PolicyHook[] = [];
  readonly synced: Promise<void>;
  isSynced = false;

  constructor(private readonly sources: AdmissionSources) {
    const find = (kind: string) => sources.find('admissionregistration.k8s.io', 'v1', kind)!;
    const changed = (): void => {
      this.dirty = true;
    };
    this.policies = startInformer(find('ValidatingAdmissionPolicy') as RestStorage<ValidatingAdmissionPolicy>, sources.logger, changed);
    this.bindings = startInformer(find('ValidatingAdmissionPolicyBinding') as RestStorage<ValidatingAdmissionPolicyBinding>, sources.logger, changed);
    this.synced = Promise.all([this.policies.synced, this.bindings.synced]).then(() => {
      this.isSynced = true;
    });
  }

  hooks(): readonly PolicyHook[] {
    if (this.dirty) {
      this.dirty = false;
      this.current = this.compute();
    }
    return this.current;
  }

  private compute(): PolicyHook[] {
    const bindingsByPolicy = new Map<string, ValidatingAdmissionPolicyBinding[]>();
    for (const b of this.bindings.list().sort(byName)) {
      const name = b.spec?.policyName ?? '';
      bindingsByPolicy.set(name, [...(bindingsByPolicy.get(name) ?? []), b]);
    }
    const hooks: PolicyHook[] = [];
    const usedParams = new Set<string>();
    for (const name of [...bindingsByPolicy.keys()].sort()) {
      // Bindings of a policy that does not exist (yet) are skipped.
      const policy = this.policies.get(name);
      if (!policy) continue;
      const compiled = this.compile(policy);
      const hook: PolicyHook = { policy, compiled, bindings: bindingsByPolicy.get(name)! };
      const pk = policy.spec?.paramKind;
      if (pk) {
        const gv = parseApiVersion(pk.apiVersion ?? '');
        const key = gv ? gvkString(gv.group, gv.version, pk.kind ?? '') : '';
        const storage = gv ? this.sources.find(gv.group, gv.version, pk.kind ?? '') : undefined;
        if (!storage) {
          hooks.push({ ...hook, configurationError: gv ? `failed to find resource referenced by paramKind: '${key}'` : `failed to parse paramKind APIVersion: unexpected GroupVersion string: ${pk.apiVersion ?? ''}` });
          continue;
        }
        usedParams.add(key);
        let source = this.params.get(key);
        if (!source) {
          const informer = startInformer(storage, this.sources.logger, () => {});
          const created: ParamSource = { storage, informer, synced: informer.synced, isSynced: false };
          void informer.synced.then(() => (created.isSynced = true));
          source = created;
          this.params.set(key, source);
        }
        hooks.push({ ...hook, params: source });
        continue;
      }
      hooks.push(hook);
    }
    for (const [key, source] of this.params) {
      if (usedParams.has(key)) continue;
      void source.informer.stop();
      this.params.delete(key);
    }
    for (const name of this.compiled.keys()) if (!bindingsByPolicy.has(name)) this.compiled.delete(name);
    return hooks;
  }

  private compile(policy: ValidatingAdmissionPolicy): CompiledPolicy {
    const name = policy.metadata.name ?? '';
    const rv = policy.metadata.resourceVersion ?? '';
    const cached = this.compiled.get(name);
    if (cached && cached.rv === rv) return cached.compiled;
    const compiled = compilePolicy(policy);
    this.compiled.set(name, { rv, compiled });
    return compiled;
  }

  async stop(): Promise<void> {
    await Promise.all([this.policies.stop(), this.bindings.stop(), ...[...this.params.values()].map((p) => p.informer.stop())]);
  }
}
