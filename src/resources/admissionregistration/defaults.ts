// Defaulting of admissionregistration.k8s.io/v1 (pkg/apis/admissionregistration/v1/defaults.go),
// applied before validation of every write, as decoding applies it in kube-apiserver:
// failurePolicy Fail, matchPolicy Equivalent, empty selectors, timeoutSeconds 10,
// reinvocationPolicy Never, rule scope "*", service port 443.

import type { MatchResources, MutatingWebhook, Rule, ValidatingAdmissionPolicySpec, ValidatingAdmissionPolicyBindingSpec, ValidatingWebhook } from './types.js';

function defaultRule(r: Rule): void {
  r.scope ??= '*';
}

export function defaultMatchResources(m: MatchResources): void {
  m.matchPolicy ??= 'Equivalent';
  m.namespaceSelector ??= {};
  m.objectSelector ??= {};
  for (const r of m.resourceRules ?? []) defaultRule(r);
  for (const r of m.excludeResourceRules ?? []) defaultRule(r);
}

export function defaultPolicySpec(spec: ValidatingAdmissionPolicySpec | undefined): void {
  if (!spec) return;
  spec.failurePolicy ??= 'Fail';
  if (spec.matchConstraints) defaultMatchResources(spec.matchConstraints);
}

export function defaultBindingSpec(spec: ValidatingAdmissionPolicyBindingSpec | undefined): void {
  if (spec?.matchResources) defaultMatchResources(spec.matchResources);
}

export function defaultWebhook(w: ValidatingWebhook | MutatingWebhook, mutating: boolean): void {
  w.failurePolicy ??= 'Fail';
  w.matchPolicy ??= 'Equivalent';
  w.namespaceSelector ??= {};
  w.objectSelector ??= {};
  w.timeoutSeconds ??= 10;
  if (mutating) (w as MutatingWebhook).reinvocationPolicy ??= 'Never';
  for (const r of w.rules ?? []) defaultRule(r);
  const service = w.clientConfig?.service;
  if (service) service.port ??= 443;
}
