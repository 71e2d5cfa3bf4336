// Validation of Validating/MutatingWebhookConfigurations (kube's validateValidatingWebhook,
// validateMutatingWebhook and the configuration-level checks). On update, kube keeps accepting
// what the stored object already had: side effects, unrecognized review versions, duplicate
// names and lax selectors remain allowed when the old object had them.

import { deepEqual } from '../../apimachinery/json-value.js';
import { FieldPath, fieldErrors, type FieldError } from '../../apimachinery/field-error.js';
import { nameIsDNSSubdomain } from '../../apimachinery/validation/names.js';
import { validateObjectMeta, validateObjectMetaUpdate } from '../../apimachinery/validation/object-meta-validation.js';
import { validateMatchConditions } from './cel-validation.js';
import type { MutatingWebhook, ValidatingWebhook, ValidatingWebhookConfiguration } from './types.js';
import {
  hasInvalidLabelValue,
  isDNS1035Label,
  supportedFailurePolicies,
  supportedMatchPolicies,
  validateFullyQualifiedName,
  validateLabelSelector,
  validateRuleWithOperations,
  validateWebhookService,
  validateWebhookURL,
} from './validation-common.js';

const ACCEPTED_REVIEW_VERSIONS = ['v1', 'v1beta1'];
const ALL_SIDE_EFFECTS = ['None', 'NoneOnDryRun', 'Some', 'Unknown'];
const NO_SIDE_EFFECTS = ['None', 'NoneOnDryRun'];
const REINVOCATION_POLICIES = ['IfNeeded', 'Never'];

interface Options {
  ignoreMatchConditions: boolean;
  requireNoSideEffects: boolean;
  requireRecognizedAdmissionReviewVersion: boolean;
  requireUniqueWebhookNames: boolean;
  allowInvalidLabelValueInSelector: boolean;
}

const STRICT: Options = { ignoreMatchConditions: false, requireNoSideEffects: true, requireRecognizedAdmissionReviewVersion: true, requireUniqueWebhookNames: true, allowInvalidLabelValueInSelector: false };

function validateWebhook(h: MutatingWebhook, mutating: boolean, o: Options, path: FieldPath): FieldError[] {
  const errs = validateFullyQualifiedName(h.name, path.child('name'));
  (h.rules ?? []).forEach((r, i) => errs.push(...validateRuleWithOperations(r, path.child('rules').index(i))));
  if (h.failurePolicy !== undefined && !supportedFailurePolicies.includes(h.failurePolicy)) errs.push(fieldErrors.notSupported(path.child('failurePolicy'), h.failurePolicy, supportedFailurePolicies));
  if (h.matchPolicy !== undefined && !supportedMatchPolicies.includes(h.matchPolicy)) errs.push(fieldErrors.notSupported(path.child('matchPolicy'), h.matchPolicy, supportedMatchPolicies));
  const allowed = o.requireNoSideEffects ? NO_SIDE_EFFECTS : ALL_SIDE_EFFECTS;
  if (h.sideEffects === undefined) errs.push(fieldErrors.required(path.child('sideEffects'), `must specify one of ${allowed.join(', ')}`));
  else if (!allowed.includes(h.sideEffects)) errs.push(fieldErrors.notSupported(path.child('sideEffects'), h.sideEffects, allowed));
  if (h.timeoutSeconds !== undefined && (h.timeoutSeconds > 30 || h.timeoutSeconds < 1)) errs.push(fieldErrors.invalid(path.child('timeoutSeconds'), h.timeoutSeconds, 'the timeout value must be between 1 and 30 seconds'));
  if (h.namespaceSelector) errs.push(...validateLabelSelector(h.namespaceSelector, path.child('namespaceSelector'), o.allowInvalidLabelValueInSelector));
  if (h.objectSelector) errs.push(...validateLabelSelector(h.objectSelector, path.child('objectSelector'), o.allowInvalidLabelValueInSelector));
  if (mutating && h.reinvocationPolicy !== undefined && !REINVOCATION_POLICIES.includes(h.reinvocationPolicy)) {
    errs.push(fieldErrors.notSupported(path.child('reinvocationPolicy'), h.reinvocationPolicy, REINVOCATION_POLICIES));
  }
  const cc = h.clientConfig ?? {};
  if ((cc.url === undefined) === (cc.service === undefined)) errs.push(fieldErrors.required(path.child('clientConfig'), 'exactly one of url or service is required'));
  else if (cc.url !== undefined) errs.push(...validateWebhookURL(cc.url, path.child('clientConfig', 'url')));
  else errs.push(...validateWebhookService(cc.service!, path.child('clientConfig', 'service')));
  if (!o.ignoreMatchConditions) errs.push(...validateMatchConditions(h.matchConditions, false, path.child('matchConditions')));
  return errs;
}

function validateReviewVersions(versions: readonly string[], require: boolean, path: FieldPath): FieldError[] {
  if (versions.length < 1) return [fieldErrors.required(path, `must specify one of ${ACCEPTED_REVIEW_VERSIONS.join(', ')}`)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let accepted = false;
  versions.forEach((v, i) => {
    if (seen.has(v)) return void errs.push(fieldErrors.invalid(path.index(i), v, 'duplicate version'));
    seen.add(v);
    for (const msg of isDNS1035Label(v)) errs.push(fieldErrors.invalid(path.index(i), v, msg));
    if (ACCEPTED_REVIEW_VERSIONS.includes(v)) accepted = true;
  });
  if (require && !accepted) errs.push(fieldErrors.invalid(path, versions, `must include at least one of ${ACCEPTED_REVIEW_VERSIONS.join(', ')}`));
  return errs;
}

function validateConfiguration(c: ValidatingWebhookConfiguration, mutating: boolean, o: Options): FieldError[] {
  const errs = validateObjectMeta(c.metadata, false, nameIsDNSSubdomain, FieldPath.root('metadata'));
  const names = new Set<string>();
  (c.webhooks ?? []).forEach((h, i) => {
    const path = FieldPath.root('webhooks').index(i);
    errs.push(...validateWebhook(h, mutating, o, path));
    errs.push(...validateReviewVersions(h.admissionReviewVersions ?? [], o.requireRecognizedAdmissionReviewVersion, path.child('admissionReviewVersions')));
    if (o.requireUniqueWebhookNames && h.name) {
      if (names.has(h.name)) errs.push(fieldErrors.duplicate(path.child('name'), h.name));
      else names.add(h.name);
    }
  });
  return errs;
}

export function validateWebhookConfiguration(c: ValidatingWebhookConfiguration, mutating: boolean): FieldError[] {
  return validateConfiguration(c, mutating, STRICT);
}

export function validateWebhookConfigurationUpdate(next: ValidatingWebhookConfiguration, old: ValidatingWebhookConfiguration, mutating: boolean): FieldError[] {
  const oldHooks: ValidatingWebhook[] = old.webhooks ?? [];
  const newHooks: ValidatingWebhook[] = next.webhooks ?? [];
  const o: Options = {
    ignoreMatchConditions: newHooks.length === oldHooks.length && oldHooks.every((h, i) => deepEqual(newHooks[i]!.matchConditions ?? null, h.matchConditions ?? null)),
    requireNoSideEffects: oldHooks.every((h) => h.sideEffects !== undefined && NO_SIDE_EFFECTS.includes(h.sideEffects)),
    requireRecognizedAdmissionReviewVersion: oldHooks.every((h) => !h.admissionReviewVersions?.length || h.admissionReviewVersions.some((v) => ACCEPTED_REVIEW_VERSIONS.includes(v))),
    requireUniqueWebhookNames: new Set(oldHooks.map((h) => h.name)).size === oldHooks.length,
    allowInvalidLabelValueInSelector: oldHooks.some((h) => hasInvalidLabelValue(h.namespaceSelector) || hasInvalidLabelValue(h.objectSelector)),
  };
  return [...validateObjectMetaUpdate(next.metadata, old.metadata, FieldPath.root('metadata')), ...validateConfiguration(next, mutating, o)];
}
