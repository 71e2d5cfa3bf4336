// IPAddress validation, kube 1.33's ValidateIPAddress and ValidateIPAddressUpdate: the name is an
// IP address in canonical form (IsValidIP); spec.parentRef is required, with a resource and a
// name that are path segments, an optional group that is a DNS subdomain and an optional
// namespace that is a path segment; parentRef never changes. An update is checked as a create
// too (kube's strategy runs both).

import { FieldPath, fieldErrors, type FieldError } from '../../apimachinery/field-error.js';
import { isDNS1123Subdomain, type NameValidator } from '../../apimachinery/validation/names.js';
import { validateObjectMeta, validateObjectMetaUpdate } from '../../apimachinery/validation/object-meta-validation.js';
import { isValidPathSegmentName } from '../path-segment.js';
import { ipProblems } from './ip.js';
import type { IPAddress, ParentReference } from './types.js';

const metaPath = FieldPath.root('metadata');
const parentRefPath = FieldPath.root('spec').child('parentRef');

/** kube's ValidateIPAddressName: IPAddress names are never generated, so the prefix form is the same. */
const ipAddressName: NameValidator = (name) => ipProblems(name);

function validateParentReference(ref: ParentReference | null | undefined): FieldError[] {
  if (!ref) return [fieldErrors.required(parentRefPath, '')];
  const errs: FieldError[] = [];
  // The core group (a Service's) is empty, so a group cannot be required.
  if (ref.group) for (const msg of isDNS1123Subdomain(ref.group)) errs.push(fieldErrors.invalid(parentRefPath.child('group'), ref.group, msg));
  if (!ref.resource) errs.push(fieldErrors.required(parentRefPath.child('resource'), ''));
  else for (const msg of isValidPathSegmentName(ref.resource)) errs.push(fieldErrors.invalid(parentRefPath.child('resource'), ref.resource, msg));
  if (!ref.name) errs.push(fieldErrors.required(parentRefPath.child('name'), ''));
  else for (const msg of isValidPathSegmentName(ref.name)) errs.push(fieldErrors.invalid(parentRefPath.child('name'), ref.name, msg));
  if (ref.namespace) for (const msg of isValidPathSegmentName(ref.namespace)) errs.push(fieldErrors.invalid(parentRefPath.child('namespace'), ref.namespace, msg));
  return errs;
}

export function validateIPAddress(obj: IPAddress): FieldError[] {
  return [...validateObjectMeta(obj.metadata, false, ipAddressName, metaPath), ...validateParentReference(obj.spec?.parentRef)];
}

/**
 * The internal ParentReference as kube's field errors render a struct value (its Go field names,
 * every field present; `null` for none).
 */
function internalParentRef(ref: ParentReference | null | undefined): unknown {
  if (!ref) return null;
  return { Group: ref.group ?? '', Resource: ref.resource ?? '', Namespace: ref.namespace ?? '', Name: ref.name ?? '' };
}

const sameParentRef = (a: ParentReference | null | undefined, b: ParentReference | null | undefined): boolean =>
  JSON.stringify(internalParentRef(a)) === JSON.stringify(internalParentRef(b));

export function validateIPAddressUpdate(next: IPAddress, old: IPAddress): FieldError[] {
  const errs = [...validateIPAddress(next), ...validateObjectMetaUpdate(next.metadata, old.metadata, metaPath)];
  if (!sameParentRef(next.spec?.parentRef, old.spec?.parentRef)) errs.push(fieldErrors.invalid(parentRefPath, internalParentRef(next.spec?.parentRef), 'field is immutable'));
  return errs;
}
