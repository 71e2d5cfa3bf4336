// The ValidatingAdmissionWebhook plugin (webhook/validating/dispatcher.go): every webhook that
// applies is called at once; the first failure to arrive answers the request. A webhook that
// cannot be called fails open under failurePolicy Ignore (with the failed-open audit annotation)
// and closed otherwise (500 `failed calling webhook …`); a rejection is the webhook's Status.

import { noopAdmissionObserver, type AdmissionAttributes, type AdmissionObserver, type AdmissionPlugin } from '../../apimachinery/admission.js';
import { internal, StatusError, timeout } from '../../apimachinery/status-error.js';
import type { Authorizer } from '../../auth/authorizer.js';
import type { AuthorizationCache } from '../../cel/program.js';
import type { ValidatingWebhook } from '../../resources/admissionregistration/types.js';
import { authorizationCache } from '../authorization.js';
import { admissionForbidden } from '../errors.js';
import { readyWithin } from '../informers.js';
import { isWebhookExempt } from '../matching/rules.js';
import { callHook, callingErrorText } from './call-hook.js';
import { shouldCallHook } from './should-call.js';
import type { WebhookClient } from './webhook-client.js';
import type { WebhookHook, WebhookSource } from './webhook-source.js';

const READY_WAIT_MS = 10_000;
export const VALIDATING_FAILED_OPEN_PREFIX = 'failed-open.validating.webhook.admission.k8s.io/';

export class ValidatingWebhookPlugin implements AdmissionPlugin {
  readonly name = 'ValidatingAdmissionWebhook';

  constructor(
    private readonly source: WebhookSource<ValidatingWebhook>,
    private readonly client: WebhookClient,
    private readonly authorizer: Authorizer,
    private readonly observer: AdmissionObserver = noopAdmissionObserver,
  ) {}

  async validate(a: AdmissionAttributes): Promise<void> {
    if (isWebhookExempt(a)) return;
    if (!(await readyWithin(this.source, READY_WAIT_MS))) throw admissionForbidden(a, 'not yet ready to handle request');
    let authz: AuthorizationCache | undefined;
    const authzCache = (): AuthorizationCache => (authz ??= authorizationCache(this.authorizer));
    const relevant: WebhookHook<ValidatingWebhook>[] = [];
    for (const hook of this.source.hooks()) if (await shouldCallHook(hook, a, authzCache, this.observer, 'validating')) relevant.push(hook);
    if (relevant.length === 0) return;
    if (a.signal?.aborted) throw timeout('request did not complete within requested timeout', 0);
    // Every call settles (none throws); the first error to arrive is the answer, as kube's channel.
    let first: StatusError | undefined;
    await Promise.all(
      relevant.map(async (hook, idx) => {
        const err = await this.call(hook, idx, a);
        first ??= err;
      }),
    );
    if (first) throw first;
  }

  /** One webhook's verdict: undefined to allow, else the error it answers with. */
  private async call(hook: WebhookHook<ValidatingWebhook>, idx: number, a: AdmissionAttributes): Promise<StatusError | undefined> {
    const w = hook.webhook;
    const name = w.name ?? '';
    const ignore = w.failurePolicy === 'Ignore';
    const start = performance.now();
    const seconds = (): number => (performance.now() - start) / 1000;
    let outcome;
    try {
      outcome = await callHook(this.client, w, a, false);
    } catch (err) {
      // A fault of ours (kube's recovered panic): fails open under Ignore, closed otherwise.
      if (ignore) return this.failOpen(name, idx, a);
      return internal(`ValidatingAdmissionWebhook/${name} has panicked: ${(err as Error).message}`);
    }
    switch (outcome.kind) {
      case 'allowed':
        this.observer.webhook(name, 'validating', a.operation, false, 200, seconds());
        return undefined;
      case 'calling-error':
        if (!ignore && !outcome.canceled) this.observer.webhookRejection(name, 'validating', a.operation, 'calling_webhook_error', outcome.code);
        this.observer.webhook(name, 'validating', a.operation, !ignore, outcome.code, seconds());
        if (ignore) return outcome.canceled ? undefined : this.failOpen(name, idx, a);
        return internal(callingErrorText(name, outcome.reason));
      case 'rejected':
        this.observer.webhookRejection(name, 'validating', a.operation, 'no_error', outcome.status.code);
        this.observer.webhook(name, 'validating', a.operation, true, outcome.status.code, seconds());
        return new StatusError(outcome.status);
      case 'error':
        this.observer.webhookRejection(name, 'validating', a.operation, 'apiserver_internal_error', 0);
        this.observer.webhook(name, 'validating', a.operation, true, 0, seconds());
        return outcome.error;
    }
  }

  private failOpen(name: string, idx: number, a: AdmissionAttributes): undefined {
    this.observer.webhookFailOpen(name, 'validating');
    a.annotate(`${VALIDATING_FAILED_OPEN_PREFIX}round_0_index_${idx}`, name);
    return undefined;
  }
}
