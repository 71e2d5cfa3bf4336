// ObjectMeta rules of apimachinery's api/validation (objectmeta.go) and meta/v1/validation,
// in upstream order and wording. Maps are walked in sorted key order so messages are stable.

import { fieldErrors, type FieldError, type FieldPath } from '../field-error.js';
import type { ManagedFieldsEntry, ObjectMeta, OwnerReference } from '../object-meta.js';
import { isQualifiedName, isValidLabelValue, type NameValidator } from './names.js';

export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;
const MAX_FIELD_MANAGER_LENGTH = 128;
const MAX_SUBRESOURCE_NAME_LENGTH = 256;
const FINALIZER_ORPHAN = 'orphan';
const FINALIZER_FOREGROUND = 'foregroundDeletion';

const sortedKeys = (m: Record<string, string> | undefined): string[] => Object.keys(m ?? {}).sort();

export function validateLabels(labels: Record<string, string> | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const k of sortedKeys(labels)) {
    for (const msg of isQualifiedName(k)) errs.push(fieldErrors.invalid(path, k, msg));
    for (const msg of isValidLabelValue(labels![k]!)) errs.push(fieldErrors.invalid(path, labels![k], msg));
  }
  return errs;
}

export function validateAnnotations(annotations: Record<string, string> | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  let size = 0;
  for (const k of sortedKeys(annotations)) {
    // Annotation keys are qualified names in any case.
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(fieldErrors.invalid(path, k, msg));
    size += Buffer.byteLength(k) + Buffer.byteLength(annotations![k]!);
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) errs.push(fieldErrors.tooLong(path, '', TOTAL_ANNOTATION_SIZE_LIMIT));
  return errs;
}

function validateOwnerReference(ref: OwnerReference, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion = ref.apiVersion ?? '';
  const version = apiVersion.includes('/') ? apiVersion.split('/').slice(1).join('/') : apiVersion;
  if (!version) errs.push(fieldErrors.invalid(path.child('apiVersion'), apiVersion, 'version must not be empty'));
  if (!ref.kind) errs.push(fieldErrors.invalid(path.child('kind'), ref.kind ?? '', 'must not be empty'));
  if (!ref.name) errs.push(fieldErrors.invalid(path.child('name'), ref.name ?? '', 'must not be empty'));
  if (!ref.uid) errs.push(fieldErrors.invalid(path.child('uid'), ref.uid ?? '', 'must not be empty'));
  return errs;
}

/**
 * kube's rules and wording, in linear time and space. Upstream appends one error per extra
 * controller, each carrying the whole list as its value: n controllers make n-1 copies of the
 * list (quadratic; 2,500 of them made a 1.5 GB answer). We report the first pair exactly as
 * upstream words it, once, and count the rest in the same message.
 */
export function validateOwnerReferences(refs: OwnerReference[] | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  let firstController = '';
  let secondController = '';
  let controllers = 0;
  // Where upstream puts its first controller error: right after the second controller's own errors.
  let at = -1;
  for (const ref of refs ?? []) {
    errs.push(...validateOwnerReference(ref, path));
    if (ref.controller !== true) continue;
    controllers++;
    if (controllers === 1) firstController = `${ref.kind}/${ref.name}`;
    if (controllers === 2) {
      secondController = `${ref.kind}/${ref.name}`;
      at = errs.length;
    }
  }
  if (controllers > 1) {
    const more = controllers > 2 ? ` (and ${controllers - 2} more)` : '';
    errs.splice(at, 0, fieldErrors.invalid(path, refs, `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${secondController}${more}`));
  }
  return errs;
}

export function validateFinalizers(finalizers: string[] | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of finalizers ?? []) for (const msg of isQualifiedName(f)) errs.push(fieldErrors.invalid(path, f, msg));
  if (finalizers?.includes(FINALIZER_ORPHAN) && finalizers.includes(FINALIZER_FOREGROUND)) {
    errs.push(fieldErrors.invalid(path, finalizers, `finalizer ${FINALIZER_ORPHAN} and ${FINALIZER_FOREGROUND} cannot be both set`));
  }
  return errs;
}

export function validateFieldManager(manager: string | undefined, path: FieldPath): FieldError[] {
  const m = manager ?? '';
  if (m.length > MAX_FIELD_MANAGER_LENGTH) return [fieldErrors.tooLong(path, m, MAX_FIELD_MANAGER_LENGTH)];
  return [];
}

export function validateManagedFields(entries: ManagedFieldsEntry[] | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  (entries ?? []).forEach((e, i) => {
    const p = path.index(i);
    if (e.operation !== 'Apply' && e.operation !== 'Update') errs.push(fieldErrors.invalid(p.child('operation'), e.operation ?? '', 'must be `Apply` or `Update`'));
    if (e.fieldsType && e.fieldsType !== 'FieldsV1') errs.push(fieldErrors.invalid(p.child('fieldsType'), e.fieldsType, 'must be `FieldsV1`'));
    errs.push(...validateFieldManager(e.manager, p.child('manager')));
    if ((e.subresource ?? '').length > MAX_SUBRESOURCE_NAME_LENGTH) errs.push(fieldErrors.tooLong(p.child('subresource'), e.subresource, MAX_SUBRESOURCE_NAME_LENGTH));
  });
  return errs;
}

/** Create-time rules (ValidateObjectMetaAccessor). */
export function validateObjectMeta(meta: ObjectMeta, namespaced: boolean, nameFn: NameValidator, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (meta.generateName) {
    for (const msg of nameFn(meta.generateName, true)) errs.push(fieldErrors.invalid(path.child('generateName'), meta.generateName, msg));
  }
  if (!meta.name) errs.push(fieldErrors.required(path.child('name'), 'name or generateName is required'));
  else for (const msg of nameFn(meta.name, false)) errs.push(fieldErrors.invalid(path.child('name'), meta.name, msg));
  if (namespaced) {
    if (!meta.namespace) errs.push(fieldErrors.required(path.child('namespace'), ''));
  } else if (meta.namespace) {
    errs.push(fieldErrors.forbidden(path.child('namespace'), 'not allowed on this type'));
  }
  if ((meta.generation ?? 0) < 0) errs.push(fieldErrors.invalid(path.child('generation'), meta.generation, 'must be greater than or equal to 0'));
  errs.push(...validateLabels(meta.labels, path.child('labels')));
  errs.push(...validateAnnotations(meta.annotations, path.child('annotations')));
  errs.push(...validateOwnerReferences(meta.ownerReferences, path.child('ownerReferences')));
  errs.push(...validateFinalizers(meta.finalizers, path.child('finalizers')));
  errs.push(...validateManagedFields(meta.managedFields, path.child('managedFields')));
  return errs;
}

/** Seconds since the epoch of an RFC 3339 time, so `…:51Z` and `…:51.000Z` compare equal. */
function instant(ts: string | undefined): number | undefined {
  if (!ts) return undefined;
  const ms = Date.parse(ts);
  return Number.isNaN(ms) ? Number.NaN : Math.floor(ms / 1000);
}

const sameInstant = (a: string | undefined, b: string | undefined): boolean => a === b || instant(a) === instant(b);

function immutable(newValue: unknown, oldValue: unknown, path: FieldPath, equal = newValue === oldValue): FieldError[] {
  return equal ? [] : [fieldErrors.invalid(path, newValue ?? '', 'field is immutable')];
}

/**
 * Update-time rules (ValidateObjectMetaAccessorUpdate). The "resourceVersion must be specified"
 * rule is the generic store's, which checks it before any validation.
 */
export function validateObjectMetaUpdate(next: ObjectMeta, old: ObjectMeta, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (old.deletionTimestamp) {
    const oldFinalizers = new Set(old.finalizers ?? []);
    const added = (next.finalizers ?? []).filter((f) => !oldFinalizers.has(f));
    if (added.length) {
      const list = [...new Set(added)].sort().map((f) => JSON.stringify(f)).join(', ');
      errs.push(fieldErrors.forbidden(path.child('finalizers'), `no new finalizers can be added if the object is being deleted, found new finalizers []string{${list}}`));
    }
  }
  if ((next.generation ?? 0) < (old.generation ?? 0)) errs.push(fieldErrors.invalid(path.child('generation'), next.generation ?? 0, 'must not be decremented'));
  errs.push(...immutable(next.name ?? '', old.name ?? '', path.child('name')));
  errs.push(...immutable(next.namespace ?? '', old.namespace ?? '', path.child('namespace')));
  errs.push(...immutable(next.uid ?? '', old.uid ?? '', path.child('uid')));
  errs.push(...immutable(next.creationTimestamp, old.creationTimestamp, path.child('creationTimestamp'), sameInstant(next.creationTimestamp, old.creationTimestamp)));
  errs.push(...immutable(next.deletionTimestamp, old.deletionTimestamp, path.child('deletionTimestamp'), sameInstant(next.deletionTimestamp, old.deletionTimestamp)));
  errs.push(...immutable(next.deletionGracePeriodSeconds, old.deletionGracePeriodSeconds, path.child('deletionGracePeriodSeconds')));
  errs.push(...validateLabels(next.labels, path.child('labels')));
  errs.push(...validateAnnotations(next.annotations, path.child('annotations')));
  errs.push(...validateOwnerReferences(next.ownerReferences, path.child('ownerReferences')));
  errs.push(...validateManagedFields(next.managedFields, path.child('managedFields')));
  return errs;
}
