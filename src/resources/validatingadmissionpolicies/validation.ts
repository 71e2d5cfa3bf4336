// ValidatingAdmissionPolicy validation (kube's ValidateValidatingAdmissionPolicy and its update
// and status forms), every expression compiled as the policy will run it.

import { deepEqual } from '../../apimachinery/json-value.js';
import { FieldPath, fieldErrors, type FieldError } from '../../apimachinery/field-error.js';
import { nameIsDNSSubdomain, isDNS1123Subdomain } from '../../apimachinery/validation/names.js';
import { validateObjectMeta, validateObjectMetaUpdate } from '../../apimachinery/validation/object-meta-validation.js';
import { PolicyExpressionValidator, validateMatchConditions } from '../admissionregistration/cel-validation.js';
import type { ParamKind, ValidatingAdmissionPolicy } from '../admissionregistration/types.js';
import { isDNS1035Label, supportedFailurePolicies, validateMatchResources } from '../admissionregistration/validation-common.js';

const MAX_AUDIT_ANNOTATIONS = 20;
const metaPath = FieldPath.root('metadata');
const specPath = FieldPath.root('spec');

function parseGroupVersion(gv: string): { group: string; version: string } | string {
  if (gv === '' || gv === '/') return { group: '', version: '' };
  const slashes = gv.split('/').length - 1;
  if (slashes === 0) return { group: '', version: gv };
  if (slashes === 1) return { group: gv.slice(0, gv.indexOf('/')), version: gv.slice(gv.indexOf('/') + 1) };
  return `unexpected GroupVersion string: ${gv}`;
}

function validateParamKind(pk: ParamKind, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion = pk.apiVersion ?? '';
  if (apiVersion === '') errs.push(fieldErrors.required(path.child('apiVersion'), ''));
  else {
    const gv = parseGroupVersion(apiVersion);
    if (typeof gv === 'string') errs.push(fieldErrors.invalid(path.child('apiVersion'), apiVersion, gv));
    else {
      if (gv.group) {
        const e = isDNS1123Subdomain(gv.group);
        if (e.length) errs.push(fieldErrors.invalid(path.child('apiVersion'), gv.group, e.join(',')));
      }
      if (gv.version === '') errs.push(fieldErrors.invalid(path.child('apiVersion'), apiVersion, 'version must be specified'));
      else {
        const e = isDNS1035Label(gv.version);
        if (e.length) errs.push(fieldErrors.invalid(path.child('apiVersion'), gv.version, e.join(',')));
      }
    }
  }
  const kind = pk.kind ?? '';
  if (kind === '') errs.push(fieldErrors.required(path.child('kind'), ''));
  else {
    const e = isDNS1035Label(kind.toLowerCase());
    if (e.length) errs.push(fieldErrors.invalid(path.child('kind'), kind, `may have mixed case, but should otherwise match: ${e.join(',')}`));
  }
  return errs;
}

/** `ignoreMatchConditions`: an update that keeps paramKind and matchConditions does not re-check them. */
function validateSpec(p: ValidatingAdmissionPolicy, ignoreMatchConditions: boolean): FieldError[] {
  const spec = p.spec ?? {};
  const errs: FieldError[] = [];
  if (spec.failurePolicy === undefined) errs.push(fieldErrors.required(specPath.child('failurePolicy'), ''));
  else if (!supportedFailurePolicies.includes(spec.failurePolicy)) errs.push(fieldErrors.notSupported(specPath.child('failurePolicy'), spec.failurePolicy, supportedFailurePolicies));
  const params = spec.paramKind !== undefined;
  if (spec.paramKind) errs.push(...validateParamKind(spec.paramKind, specPath.child('paramKind')));
  if (spec.matchConstraints === undefined) errs.push(fieldErrors.required(specPath.child('matchConstraints'), ''));
  else {
    errs.push(...validateMatchResources(spec.matchConstraints, specPath.child('matchConstraints')));
    if (!spec.matchConstraints.resourceRules?.length) errs.push(fieldErrors.required(specPath.child('matchConstraints', 'resourceRules'), ''));
  }
  if (!ignoreMatchConditions) errs.push(...validateMatchConditions(spec.matchConditions, params, specPath.child('matchConditions')));
  const exprs = new PolicyExpressionValidator(params);
  (spec.variables ?? []).forEach((v, i) => errs.push(...exprs.variable(v, specPath.child('variables').index(i))));
  const validations = spec.validations ?? [];
  const annotations = spec.auditAnnotations ?? [];
  if (validations.length === 0 && annotations.length === 0) {
    errs.push(fieldErrors.required(specPath.child('validations'), 'validations or auditAnnotations must contain at least one item'));
    errs.push(fieldErrors.required(specPath.child('auditAnnotations'), 'validations or auditAnnotations must contain at least one item'));
    return errs;
  }
  validations.forEach((v, i) => errs.push(...exprs.validation(v, specPath.child('validations').index(i))));
  if (spec.auditAnnotations) {
    if (annotations.length > MAX_AUDIT_ANNOTATIONS) errs.push(fieldErrors.invalid(specPath.child('auditAnnotations'), annotations, `must not have more than ${MAX_AUDIT_ANNOTATIONS} auditAnnotations`));
    const keys = new Set<string>();
    annotations.forEach((a, i) => {
      const path = specPath.child('auditAnnotations').index(i);
      errs.push(...exprs.auditAnnotation(a, p.metadata.name ?? '', path));
      const key = a.key ?? '';
      if (keys.has(key)) errs.push(fieldErrors.duplicate(path.child('key'), key));
      keys.add(key);
    });
  }
  return errs;
}

export function validatePolicy(p: ValidatingAdmissionPolicy): FieldError[] {
  return [...validateObjectMeta(p.metadata, false, nameIsDNSSubdomain, metaPath), ...validateSpec(p, false)];
}

export function validatePolicyUpdate(next: ValidatingAdmissionPolicy, old: ValidatingAdmissionPolicy): FieldError[] {
  const unchanged = deepEqual(next.spec?.paramKind ?? null, old.spec?.paramKind ?? null) && deepEqual(next.spec?.matchConditions ?? null, old.spec?.matchConditions ?? null);
  return [...validateObjectMetaUpdate(next.metadata, old.metadata, metaPath), ...validateObjectMeta(next.metadata, false, nameIsDNSSubdomain, metaPath), ...validateSpec(next, unchanged)];
}

/** Status writes: each expression warning needs a warning and a field reference. */
export function validatePolicyStatusUpdate(next: ValidatingAdmissionPolicy, old: ValidatingAdmissionPolicy): FieldError[] {
  const errs = validateObjectMetaUpdate(next.metadata, old.metadata, metaPath);
  const path = FieldPath.root('status').child('typeChecking', 'expressionWarnings');
  (next.status?.typeChecking?.expressionWarnings ?? []).forEach((w, i) => {
    if (!w.warning) errs.push(fieldErrors.required(path.index(i).child('warning'), ''));
    if (!(w.fieldRef ?? '').trim()) errs.push(fieldErrors.required(path.index(i).child('fieldRef'), ''));
  });
  return errs;
}
