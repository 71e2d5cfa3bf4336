// ValidatingAdmissionPolicyBinding validation (kube's ValidateValidatingAdmissionPolicyBinding;
// the field path "spec.matchResouces" keeps kube's spelling).

import { FieldPath, fieldErrors, type FieldError } from '../../apimachinery/field-error.js';
import { nameIsDNSSubdomain } from '../../apimachinery/validation/names.js';
import { validateObjectMeta, validateObjectMetaUpdate } from '../../apimachinery/validation/object-meta-validation.js';
import type { ParamRef, ValidatingAdmissionPolicyBinding } from '../admissionregistration/types.js';
import { pathSegmentProblems, validateLabelSelector, validateMatchResources } from '../admissionregistration/validation-common.js';

const metaPath = FieldPath.root('metadata');
const specPath = FieldPath.root('spec');
const validActions = ['Audit', 'Deny', 'Warn'];

function validateParamRef(pr: ParamRef | undefined, path: FieldPath): FieldError[] {
  if (!pr) return [];
  const errs: FieldError[] = [];
  if (pr.name) {
    for (const msg of pathSegmentProblems(pr.name)) errs.push(fieldErrors.invalid(path.child('name'), pr.name, msg));
    if (pr.selector) errs.push(fieldErrors.forbidden(path.child('name'), 'name and selector are mutually exclusive'));
  }
  if (pr.selector) {
    errs.push(...validateLabelSelector(pr.selector, path.child('selector')));
    if (pr.name) errs.push(fieldErrors.forbidden(path.child('selector'), 'name and selector are mutually exclusive'));
  }
  if (!pr.name && !pr.selector) errs.push(fieldErrors.required(path, 'one of name or selector must be specified'));
  const action = pr.parameterNotFoundAction;
  if (!action) errs.push(fieldErrors.required(path.child('parameterNotFoundAction'), ''));
  else if (action !== 'Deny' && action !== 'Allow') errs.push(fieldErrors.notSupported(path.child('parameterNotFoundAction'), action, ['Deny', 'Allow'], true));
  return errs;
}

function validateActions(actions: readonly string[], path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  actions.forEach((a, i) => {
    if (!validActions.includes(a)) errs.push(fieldErrors.notSupported(path.index(i), a, validActions));
    if (seen.has(a)) errs.push(fieldErrors.duplicate(path.index(i), a));
    seen.add(a);
  });
  if (seen.has('Deny') && seen.has('Warn')) {
    errs.push(fieldErrors.invalid(path, actions, 'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)'));
  }
  if (seen.size === 0) errs.push(fieldErrors.required(path, 'at least one validation action is required'));
  return errs;
}

function validateSpec(b: ValidatingAdmissionPolicyBinding): FieldError[] {
  const spec = b.spec ?? {};
  const errs: FieldError[] = [];
  if (!spec.policyName) errs.push(fieldErrors.required(specPath.child('policyName'), ''));
  else for (const msg of nameIsDNSSubdomain(spec.policyName, false)) errs.push(fieldErrors.invalid(specPath.child('policyName'), spec.policyName, msg));
  errs.push(...validateParamRef(spec.paramRef, specPath.child('paramRef')));
  errs.push(...validateMatchResources(spec.matchResources, specPath.child('matchResouces')));
  errs.push(...validateActions(spec.validationActions ?? [], specPath.child('validationActions')));
  return errs;
}

export function validateBinding(b: ValidatingAdmissionPolicyBinding): FieldError[] {
  return [...validateObjectMeta(b.metadata, false, nameIsDNSSubdomain, metaPath), ...validateSpec(b)];
}

export function validateBindingUpdate(next: ValidatingAdmissionPolicyBinding, old: ValidatingAdmissionPolicyBinding): FieldError[] {
  return [...validateObjectMetaUpdate(next.metadata, old.metadata, metaPath), ...validateBinding(next)];
}
