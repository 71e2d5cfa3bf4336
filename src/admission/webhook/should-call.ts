// Whether a webhook applies to a request (kube's generic Webhook.ShouldCallHook): namespace and
// object selectors, the rules, then matchConditions; a selector that does not parse is an
// internal error once the rules match, a matchCondition error under failurePolicy Fail a 403.

import type { AdmissionAttributes, AdmissionObserver } from '../../apimachinery/admission.js';
import { forbidden, internal } from '../../apimachinery/status-error.js';
import type { AuthorizationCache } from '../../cel/program.js';
import type { ValidatingWebhook } from '../../resources/admissionregistration/types.js';
import { requestValues } from '../cel-runtime.js';
import { matchConditions } from '../match-conditions.js';
import { ruleMatches } from '../matching/rules.js';
import { namespaceSelectorMatches, objectSelectorMatches } from '../matching/selectors.js';
import type { WebhookHook } from './webhook-source.js';

export async function shouldCallHook<W extends ValidatingWebhook>(
  hook: WebhookHook<W>,
  a: AdmissionAttributes,
  authz: () => AuthorizationCache,
  observer: AdmissionObserver,
  type: 'admit' | 'validating',
): Promise<boolean> {
  const ns = namespaceSelectorMatches(hook.namespaceSelector, a);
  if (ns === false) return false;
  const obj = objectSelectorMatches(hook.objectSelector, a);
  if (obj === false) return false;
  if (!(hook.webhook.rules ?? []).some((r) => ruleMatches(r, a))) return false;
  if (typeof ns === 'object') throw internal(ns.error);
  if (typeof obj === 'object') throw internal(obj.error);
  if (hook.conditions.slots.length === 0) return true;
  const name = hook.webhook.name ?? '';
  const result = await matchConditions(hook.conditions, { values: requestValues(a), authorizer: true, authz: authz() }, hook.webhook.failurePolicy ?? 'Fail', (outcome, seconds) =>
    observer.matchCondition(name, 'webhook', type, a.operation, outcome, seconds),
  );
  if ('error' in result) throw forbidden({ group: a.group, resource: a.resource }, a.name, result.error);
  if (!result.matches) {
    observer.matchCondition(name, 'webhook', type, a.operation, 'excluded', 0);
    return false;
  }
  return true;
}
