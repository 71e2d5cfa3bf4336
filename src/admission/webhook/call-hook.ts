// One call of one webhook (kube's callHook / callAttrMutatingHook up to the response): the
// dry-run check against sideEffects, the AdmissionReview sent, the answer verified; the
// response's audit annotations (`<webhook>/<key>`) and warnings recorded on the request.

import type { AdmissionAttributes } from '../../apimachinery/admission.js';
import { badRequest, type Status, type StatusError } from '../../apimachinery/status-error.js';
import { goQuote } from '../../apimachinery/go-quote.js';
import type { ValidatingWebhook } from '../../resources/admissionregistration/types.js';
import { admissionReview, isCallError, readResponse, rejection, reviewVersion, type AdmissionResponse } from './admission-review.js';
import { CallFailure, type WebhookClient } from './webhook-client.js';

/** Kube's default webhook timeout (defaulting sets it; kept here for objects stored without). */
const DEFAULT_TIMEOUT_SECONDS = 10;

export type HookOutcome =
  | { readonly kind: 'allowed'; readonly response: AdmissionResponse }
  /** kube's ErrCallingWebhook: the failure policy decides. */
  | { readonly kind: 'calling-error'; readonly reason: string; readonly code: number; readonly canceled: boolean }
  /** The webhook said no (ErrWebhookRejection). */
  | { readonly kind: 'rejected'; readonly status: Status }
  /** Refused before calling, whatever the failure policy (dry run on a webhook with side effects). */
  | { readonly kind: 'error'; readonly error: StatusError };

/** `failed calling webhook "<name>": <reason>`, the text kube wraps in an InternalError. */
export const callingErrorText = (name: string, reason: string): string => `failed calling webhook ${goQuote(name)}: ${reason}`;

export async function callHook(client: WebhookClient, w: ValidatingWebhook, a: AdmissionAttributes, mutating: boolean): Promise<HookOutcome> {
  const name = w.name ?? '';
  if (a.dryRun) {
    if (w.sideEffects === undefined) return { kind: 'calling-error', reason: 'Webhook SideEffects is nil', code: 400, canceled: false };
    if (w.sideEffects !== 'None' && w.sideEffects !== 'NoneOnDryRun') return { kind: 'error', error: badRequest(`admission webhook ${goQuote(name)} does not support dry run`) };
  }
  const version = reviewVersion(w.admissionReviewVersions);
  if (!version) return { kind: 'calling-error', reason: 'could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)', code: 400, canceled: false };
  const { uid, body } = admissionReview(a, version);
  let http;
  try {
    http = await client.post(w.clientConfig ?? {}, body, w.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS, a.signal);
  } catch (err) {
    if (!(err instanceof CallFailure)) throw err;
    return { kind: 'calling-error', reason: `failed to call webhook: ${err.message}`, code: 503, canceled: err.canceled };
  }
  const response = readResponse(http, version, uid, mutating);
  if (isCallError(response)) return { kind: 'calling-error', reason: response.reason, code: response.code, canceled: false };
  for (const [k, v] of Object.entries(response.auditAnnotations)) a.annotate(`${name}/${k}`, v);
  a.warnings.push(...response.warnings);
  if (!response.allowed) return { kind: 'rejected', status: rejection(name, response.result) };
  return { kind: 'allowed', response };
}
