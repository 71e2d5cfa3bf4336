// ServiceCIDR validation, newest upstream form (upstream's ValidateServiceCIDR and its update
// and status forms; docs/api-compatibility.md): entries are checked one by one before the
// per-family check; updates keep cidrs immutable except the single- to dual-stack upgrade;
// status updates check metadata only.

import { FieldPath, fieldErrors, type FieldError } from '../../apimachinery/field-error.js';
import { nameIsDNSSubdomain } from '../../apimachinery/validation/names.js';
import { validateObjectMeta, validateObjectMetaUpdate } from '../../apimachinery/validation/object-meta-validation.js';
import { cidrProblem, parseCIDRSloppy } from './cidr.js';
import type { ServiceCIDR } from './types.js';

const cidrsPath = FieldPath.root('spec').child('cidrs');
const metaPath = FieldPath.root('metadata');

function validateSpec(obj: ServiceCIDR): FieldError[] {
  const cidrs = obj.spec?.cidrs ?? [];
  if (cidrs.length === 0) return [fieldErrors.required(cidrsPath, 'at least one CIDR required')];
  // Upstream reports the whole spec here, rendered with its Go field name.
  if (cidrs.length > 2) return [fieldErrors.invalid(cidrsPath, { CIDRs: cidrs }, 'may only hold up to 2 values')];
  const errs: FieldError[] = [];
  cidrs.forEach((cidr, i) => {
    const problem = cidrProblem(cidr);
    if (problem) errs.push(fieldErrors.invalid(cidrsPath.index(i), cidr, problem));
  });
  // Stryker disable next-line ConditionalExpression: equivalent, with one entry the second is undefined and the family check below finds nothing
  if (cidrs.length === 2) {
    const [a, b] = cidrs.map(parseCIDRSloppy);
    if (a && b && a.family === b.family) {
      errs.push(fieldErrors.invalid(cidrsPath, cidrs, 'may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64'));
    }
  }
  return errs;
}

export function validateServiceCIDR(obj: ServiceCIDR): FieldError[] {
  return [...validateObjectMeta(obj.metadata, false, nameIsDNSSubdomain, metaPath), ...validateSpec(obj)];
}

export function validateServiceCIDRUpdate(next: ServiceCIDR, old: ServiceCIDR): FieldError[] {
  const errs = validateObjectMetaUpdate(next.metadata, old.metadata, metaPath);
  const before = old.spec?.cidrs ?? [];
  const after = next.spec?.cidrs ?? [];
  if (before.length === after.length) {
    before.forEach((cidr, i) => {
      if (cidr !== after[i]) errs.push(fieldErrors.invalid(cidrsPath.index(i), after[i], 'field is immutable'));
    });
  } else if (before.length === 1 && after.length === 2) {
    // Single- to dual-stack upgrade: the first CIDR stays, the added one must be valid.
    if (after[0] !== before[0]) errs.push(fieldErrors.invalid(cidrsPath.index(0), after[0], 'field is immutable'));
    errs.push(...validateSpec(next));
  } else {
    errs.push(fieldErrors.invalid(cidrsPath, after, 'field is immutable'));
  }
  return errs;
}

/** Conditions are deliberately not validated upstream (its strategy test sends arbitrary ones). */
export function validateServiceCIDRStatusUpdate(next: ServiceCIDR, old: ServiceCIDR): FieldError[] {
  return validateObjectMetaUpdate(next.metadata, old.metadata, metaPath);
}
