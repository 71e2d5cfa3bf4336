// The MutatingAdmissionWebhook plugin (webhook/mutating/dispatcher.go and kube's reinvocation):
// webhooks are called one after the other, each seeing the object as the previous ones left it.
// When a webhook changes the object, the webhooks with reinvocationPolicy IfNeeded called before
// it are called once more in a second round (kube's reinvoker runs the mutating chain twice at
// most). Every call is recorded in the mutation audit annotation.

import { noopAdmissionObserver, type AdmissionAttributes, type AdmissionObserver, type AdmissionPlugin } from '../../apimachinery/admission.js';
import { internal, StatusError, timeout } from '../../apimachinery/status-error.js';
import type { Authorizer } from '../../auth/authorizer.js';
import type { AuthorizationCache } from '../../cel/program.js';
import type { MutatingWebhook } from '../../resources/admissionregistration/types.js';
import { authorizationCache } from '../authorization.js';
import { admissionForbidden } from '../errors.js';
import { goJson } from '../go-json.js';
import { definitionOf, readyWithin, type AdmissionSources } from '../informers.js';
import { isWebhookExempt } from '../matching/rules.js';
import { applyWebhookPatch } from './apply-patch.js';
import { callHook, callingErrorText } from './call-hook.js';
import { shouldCallHook } from './should-call.js';
import type { WebhookClient } from './webhook-client.js';
import type { WebhookHook, WebhookSource } from './webhook-source.js';

const READY_WAIT_MS = 10_000;
export const MUTATION_ANNOTATION_PREFIX = 'mutation.webhook.admission.k8s.io/';
export const MUTATION_FAILED_OPEN_PREFIX = `failed-open.${MUTATION_ANNOTATION_PREFIX}`;

/** kube's webhookReinvokeContext: which IfNeeded webhooks ran, and which must run again. */
class Reinvocation {
  private invoked = new Set<string>();
  readonly again = new Set<string>();
  shouldReinvoke = false;

  changed(): void {
    for (const uid of this.invoked) this.again.add(uid);
    this.invoked = new Set();
    this.shouldReinvoke = true;
  }

  ran(uid: string): void {
    this.invoked.add(uid);
  }
}

export class MutatingWebhookPlugin implements AdmissionPlugin {
  readonly name = 'MutatingAdmissionWebhook';

  constructor(
    private readonly sources: AdmissionSources,
    private readonly source: WebhookSource<MutatingWebhook>,
    private readonly client: WebhookClient,
    private readonly authorizer: Authorizer,
    private readonly observer: AdmissionObserver = noopAdmissionObserver,
  ) {}

  async admit(a: AdmissionAttributes): Promise<void> {
    if (isWebhookExempt(a)) return;
    if (!(await readyWithin(this.source, READY_WAIT_MS))) throw admissionForbidden(a, 'not yet ready to handle request');
    let authz: AuthorizationCache | undefined;
    const authzCache = (): AuthorizationCache => (authz ??= authorizationCache(this.authorizer));
    const state = new Reinvocation();
    await this.round(0, a, state, authzCache);
    if (state.shouldReinvoke) await this.round(1, a, state, authzCache);
  }

  private async round(round: 0 | 1, a: AdmissionAttributes, state: Reinvocation, authz: () => AuthorizationCache): Promise<void> {
    const hooks = this.source.hooks();
    for (let i = 0; i < hooks.length; i++) {
      const hook = hooks[i]!;
      if (!(await shouldCallHook(hook, a, authz, this.observer, 'admit'))) continue;
      if (round === 1 && !state.again.has(hook.uid)) continue;
      const err = await this.call(hook, round, i, a, state);
      if (err) throw err;
    }
  }

  /** Calls one webhook and applies its patch; answers the error that ends the request, if any. */
  private async call(hook: WebhookHook<MutatingWebhook>, round: number, idx: number, a: AdmissionAttributes, state: Reinvocation): Promise<StatusError | undefined> {
    const w = hook.webhook;
    const name = w.name ?? '';
    const ignore = w.failurePolicy === 'Ignore';
    const start = performance.now();
    const seconds = (): number => (performance.now() - start) / 1000;
    let changed = false;
    let failure: { kind: 'calling-error'; reason: string; code: number; canceled: boolean } | { kind: 'rejected'; status: StatusError['status'] } | { kind: 'error'; error: StatusError } | undefined;
    try {
      const outcome = await callHook(this.client, w, a, true);
      if (outcome.kind !== 'allowed') failure = outcome;
      else if (outcome.response.patch?.length) {
        const storage = this.sources.find(a.group, a.version, a.kind);
        if (!storage) throw new Error(`no definition for ${a.group}/${a.version}, Kind=${a.kind}`);
        const result = applyWebhookPatch(name, a, definitionOf(storage), outcome.response.patch, outcome.response.patchType ?? '');
        if (result.kind === 'calling-error') failure = { kind: 'calling-error', reason: result.reason, code: 503, canceled: false };
        else if (result.kind === 'error') failure = result;
        else if (result.kind === 'patched') {
          changed = result.changed;
          a.object = result.object;
        }
      }
    } finally {
      a.annotate(`${MUTATION_ANNOTATION_PREFIX}round_${round}_index_${idx}`, goJson({ configuration: hook.configurationName, webhook: name, mutated: changed }));
    }
    if (changed) state.changed();
    if (w.reinvocationPolicy === 'IfNeeded') state.ran(hook.uid);
    if (!failure) {
      this.observer.webhook(name, 'admit', a.operation, false, 200, seconds());
      return undefined;
    }
    switch (failure.kind) {
      case 'calling-error':
        if (!ignore && !failure.canceled) this.observer.webhookRejection(name, 'admit', a.operation, 'calling_webhook_error', failure.code);
        this.observer.webhook(name, 'admit', a.operation, !ignore, failure.code, seconds());
        if (!ignore) return internal(callingErrorText(name, failure.reason));
        if (!failure.canceled) {
          this.observer.webhookFailOpen(name, 'admit');
          a.annotate(`${MUTATION_FAILED_OPEN_PREFIX}round_${round}_index_${idx}`, name);
        }
        return a.signal?.aborted ? timeout('request did not complete within requested timeout', 0) : undefined;
      case 'rejected':
        this.observer.webhookRejection(name, 'admit', a.operation, 'no_error', failure.status.code);
        this.observer.webhook(name, 'admit', a.operation, true, failure.status.code, seconds());
        return new StatusError(failure.status);
      case 'error':
        this.observer.webhookRejection(name, 'admit', a.operation, 'apiserver_internal_error', 0);
        this.observer.webhook(name, 'admit', a.operation, true, 0, seconds());
        return failure.error;
    }
  }
}
