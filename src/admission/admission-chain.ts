// The admission chain in kube-apiserver's order, as one plugin the registry calls:
// mutating — MutatingAdmissionWebhook (with its reinvocation); then, after the kind's own
// defaulting and validation, validating — who may reference params (kube checks it in the
// policy kinds' validation), the built-in checks (ClusterTrustBundleAttest), every
// ValidatingAdmissionPolicy, every ValidatingAdmissionWebhook. Each step and plugin is timed for
// kube's admission metrics. Starting it starts the informers the plugins read and the policy
// status controller; stopping it stops them.

import type { AdmissionAttributes, AdmissionObserver, AdmissionPlugin } from '../apimachinery/admission.js';
import type { Authorizer } from '../auth/authorizer.js';
import { realClock } from '../controllers/clock.js';
import type { RestStorage } from '../registry/rest-storage.js';
import type { MutatingWebhook, ValidatingAdmissionPolicy, ValidatingWebhook } from '../resources/admissionregistration/types.js';
import { definitionOf, type AdmissionSources } from './informers.js';
import { ParamAuthorization } from './policy/param-authorization.js';
import { ValidatingAdmissionPolicyPlugin } from './policy/policy-plugin.js';
import { PolicySource } from './policy/policy-source.js';
import { PolicyStatusController } from './policy/status-controller.js';
import { MutatingWebhookPlugin } from './webhook/mutating-plugin.js';
import { ValidatingWebhookPlugin } from './webhook/validating-plugin.js';
import { WebhookClient } from './webhook/webhook-client.js';
import { WebhookSource } from './webhook/webhook-source.js';

export interface AdmissionChainOptions {
  /** The served kinds, read without admission (policies, bindings, webhooks, params). */
  readonly sources: AdmissionSources;
  readonly authorizer: Authorizer;
  readonly observer: AdmissionObserver;
  /** Built-in validating plugins, run before the policies (ClusterTrustBundleAttest, tests' own). */
  readonly builtIn: readonly AdmissionPlugin[];
  /** Where the policy status controller writes; without it no controller runs. */
  readonly policyStatus?: RestStorage<ValidatingAdmissionPolicy>;
}

export interface RunningAdmission {
  readonly plugin: AdmissionPlugin;
  stop(): Promise<void>;
}

/** Plugins that are part of a kind's validation in kube, not admission plugins: not timed as such. */
const NOT_ADMISSION_PLUGINS = new Set(['ValidatingAdmissionPolicyParamAuthorization']);

class AdmissionChain implements AdmissionPlugin {
  readonly name = 'AdmissionChain';

  constructor(
    private readonly plugins: readonly AdmissionPlugin[],
    private readonly observer: AdmissionObserver,
  ) {}

  async admit(a: AdmissionAttributes): Promise<void> {
    await this.step('admit', a, (p) => p.admit?.bind(p));
  }

  async validate(a: AdmissionAttributes): Promise<void> {
    await this.step('validate', a, (p) => p.validate?.bind(p));
  }

  private async step(type: 'admit' | 'validate', a: AdmissionAttributes, phase: (p: AdmissionPlugin) => ((a: AdmissionAttributes) => Promise<void>) | undefined): Promise<void> {
    const start = performance.now();
    let rejected = true;
    try {
      for (const p of this.plugins) {
        const run = phase(p);
        if (!run) continue;
        if (NOT_ADMISSION_PLUGINS.has(p.name)) {
          await run(a);
          continue;
        }
        const began = performance.now();
        let failed = true;
        try {
          await run(a);
          failed = false;
        } finally {
          this.observer.controller(p.name, type, a.operation, failed, (performance.now() - began) / 1000);
        }
      }
      rejected = false;
    } finally {
      this.observer.step(type, a.operation, rejected, (performance.now() - start) / 1000);
    }
  }
}

export function startAdmission(o: AdmissionChainOptions): RunningAdmission {
  const client = new WebhookClient();
  const policies = new PolicySource(o.sources);
  const validatingHooks = new WebhookSource<ValidatingWebhook>(o.sources, 'ValidatingWebhookConfiguration');
  const mutatingHooks = new WebhookSource<MutatingWebhook>(o.sources, 'MutatingWebhookConfiguration');
  const plugins: AdmissionPlugin[] = [
    new MutatingWebhookPlugin(o.sources, mutatingHooks, client, o.authorizer, o.observer),
    new ParamAuthorization(o.sources, o.authorizer),
    ...o.builtIn,
    new ValidatingAdmissionPolicyPlugin(policies, o.authorizer, o.observer),
    new ValidatingWebhookPlugin(validatingHooks, client, o.authorizer, o.observer),
  ];
  const main = o.sources.find('admissionregistration.k8s.io', 'v1', 'ValidatingAdmissionPolicy') as RestStorage<ValidatingAdmissionPolicy> | undefined;
  let controller: PolicyStatusController | undefined;
  if (o.policyStatus && main) {
    const find = (s: RestStorage | undefined) => (s ? definitionOf(s) : undefined);
    controller = new PolicyStatusController({
      main,
      status: o.policyStatus,
      definitions: { byResource: (g, v, r) => find(o.sources.findResource(g, v, r)), byKind: (g, v, k) => find(o.sources.find(g, v, k)) },
      clock: realClock,
      logger: o.sources.logger.child({ controller: 'validatingadmissionpolicy-status-controller' }),
    });
    void controller.start().catch((err: unknown) => o.sources.logger.error({ err }, 'policy status controller failed to start'));
  }
  return {
    plugin: new AdmissionChain(plugins, o.observer),
    async stop() {
      await Promise.all([policies.stop(), validatingHooks.stop(), mutatingHooks.stop(), controller?.stop()]);
      client.close();
    },
  };
}
