// Event validation, kube 1.33's (pkg/apis/core/validation/events.go), on the core shape whatever
// version the request used; the request's group-version decides how strict it is: core v1 (and
// events.k8s.io/v1beta1) get the legacy rules only, for compatibility with old clients;
// events.k8s.io/v1 (and any other) gets the strict rules too. Field paths are kube's (the core
// names: `involvedObject.namespace`, `message`, but `reportingController`).

import { FieldPath, fieldErrors, type FieldError } from '../../apimachinery/field-error.js';
import { isDNS1123Subdomain, isQualifiedName, nameIsDNSSubdomain } from '../../apimachinery/validation/names.js';
import { validateObjectMeta, validateObjectMetaUpdate } from '../../apimachinery/validation/object-meta-validation.js';
import { validatePathSegmentName } from '../path-segment.js';
import type { CoreEvent, EventSource, EventSeries, ObjectReference } from './types.js';

export const REPORTING_INSTANCE_LENGTH_LIMIT = 128;
export const ACTION_LENGTH_LIMIT = 128;
export const REASON_LENGTH_LIMIT = 128;
export const NOTE_LENGTH_LIMIT = 1024;

/** The request's API group-version, as kube's strategy reads it from the request info. */
export interface GroupVersion {
  group: string;
  version: string;
}

const isLegacyRequest = (gv: GroupVersion): boolean => (gv.group === '' && gv.version === 'v1') || (gv.group === 'events.k8s.io' && gv.version === 'v1beta1');

const path = (p: string): FieldPath => FieldPath.root(p);
const bytes = (s: string | undefined): number => Buffer.byteLength(s ?? '');
const metaPath = FieldPath.root('metadata');

/** legacyValidateEvent: what every event must pass, old or new. */
function legacyValidateEvent(e: CoreEvent): FieldError[] {
  const errs: FieldError[] = [];
  const ns = e.metadata.namespace ?? '';
  const involvedNs = e.involvedObject?.namespace ?? '';
  if (!e.eventTime) {
    // An old event: its namespace is its object's, or "default" (or none) for a cluster-scoped object.
    if (!involvedNs) {
      if (ns !== '' && ns !== 'default') errs.push(fieldErrors.invalid(path('involvedObject').child('namespace'), involvedNs, 'does not match event.namespace'));
    } else if (ns !== involvedNs) {
      errs.push(fieldErrors.invalid(path('involvedObject').child('namespace'), involvedNs, 'does not match event.namespace'));
    }
  } else {
    if (!involvedNs && ns !== 'default' && ns !== 'kube-system') errs.push(fieldErrors.invalid(path('involvedObject').child('namespace'), involvedNs, 'does not match event.namespace'));
    const controller = e.reportingComponent ?? '';
    if (!controller) errs.push(fieldErrors.required(path('reportingController'), ''));
    for (const msg of isQualifiedName(controller)) errs.push(fieldErrors.invalid(path('reportingController'), controller, msg));
    if (!e.reportingInstance) errs.push(fieldErrors.required(path('reportingInstance'), ''));
    if (bytes(e.reportingInstance) > REPORTING_INSTANCE_LENGTH_LIMIT) errs.push(fieldErrors.invalid(path('reportingInstance'), '', `can have at most ${REPORTING_INSTANCE_LENGTH_LIMIT} characters`));
    if (!e.action) errs.push(fieldErrors.required(path('action'), ''));
    if (bytes(e.action) > ACTION_LENGTH_LIMIT) errs.push(fieldErrors.invalid(path('action'), '', `can have at most ${ACTION_LENGTH_LIMIT} characters`));
    if (!e.reason) errs.push(fieldErrors.required(path('reason'), ''));
    if (bytes(e.reason) > REASON_LENGTH_LIMIT) errs.push(fieldErrors.invalid(path('reason'), '', `can have at most ${REASON_LENGTH_LIMIT} characters`));
    if (bytes(e.message) > NOTE_LENGTH_LIMIT) errs.push(fieldErrors.invalid(path('message'), '', `can have at most ${NOTE_LENGTH_LIMIT} characters`));
  }
  for (const msg of isDNS1123Subdomain(ns)) errs.push(fieldErrors.invalid(path('namespace'), ns, msg));
  return errs;
}

function validateV1EventSeries(e: CoreEvent): FieldError[] {
  const errs: FieldError[] = [];
  if (e.series) {
    if ((e.series.count ?? 0) < 2) errs.push(fieldErrors.invalid(path('series.count'), '', 'should be at least 2'));
    if (!e.series.lastObservedTime) errs.push(fieldErrors.required(path('series.lastObservedTime'), ''));
  }
  return errs;
}

/** ValidateEventCreate. */
export function validateEventCreate(e: CoreEvent, gv: GroupVersion): FieldError[] {
  const errs = legacyValidateEvent(e);
  if (isLegacyRequest(gv)) return errs;
  errs.push(...validateObjectMeta(e.metadata, true, nameIsDNSSubdomain, metaPath));
  errs.push(...validateV1EventSeries(e));
  if (!e.eventTime) errs.push(fieldErrors.required(path('eventTime'), ''));
  if (e.type !== 'Normal' && e.type !== 'Warning') errs.push(fieldErrors.invalid(path('type'), '', `has invalid value: ${e.type ?? ''}`));
  if (e.firstTimestamp) errs.push(fieldErrors.invalid(path('firstTimestamp'), '', 'needs to be unset'));
  if (e.lastTimestamp) errs.push(fieldErrors.invalid(path('lastTimestamp'), '', 'needs to be unset'));
  if (e.count) errs.push(fieldErrors.invalid(path('count'), '', 'needs to be unset'));
  if (e.source?.component || e.source?.host) errs.push(fieldErrors.invalid(path('source'), '', 'needs to be unset'));
  return errs;
}

// Internal structs as kube's field errors render them (JSON of the Go struct: its field names, every field).
const internalReference = (r: ObjectReference | null | undefined): unknown =>
  r ? { Kind: r.kind ?? '', Namespace: r.namespace ?? '', Name: r.name ?? '', UID: r.uid ?? '', APIVersion: r.apiVersion ?? '', ResourceVersion: r.resourceVersion ?? '', FieldPath: r.fieldPath ?? '' } : null;
const internalSource = (s: EventSource | undefined): unknown => ({ Component: s?.component ?? '', Host: s?.host ?? '' });
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
const internalSeries = (s: EventSeries | null | undefined): unknown => (s ? { Count: s.count ?? 0, LastObservedTime: s.lastObservedTime ?? null } : null);

/** ValidateEventUpdate. */
export function validateEventUpdate(next: CoreEvent, old: CoreEvent, gv: GroupVersion): FieldError[] {
  const errs = legacyValidateEvent(next);
  if (isLegacyRequest(gv)) return errs;
  errs.push(...validateObjectMetaUpdate(next.metadata, old.metadata, metaPath));
  if (!same(internalSeries(next.series), internalSeries(old.series))) errs.push(...validateV1EventSeries(next));
  const immutable = (field: string, a: unknown, b: unknown): void => {
    if (!same(a, b)) errs.push(fieldErrors.invalid(path(field), a, 'field is immutable'));
  };
  immutable('involvedObject', internalReference(next.involvedObject ?? {}), internalReference(old.involvedObject ?? {}));
  immutable('reason', next.reason ?? '', old.reason ?? '');
  immutable('message', next.message ?? '', old.message ?? '');
  immutable('source', internalSource(next.source), internalSource(old.source));
  immutable('firstTimestamp', next.firstTimestamp ?? null, old.firstTimestamp ?? null);
  immutable('lastTimestamp', next.lastTimestamp ?? null, old.lastTimestamp ?? null);
  immutable('count', next.count ?? 0, old.count ?? 0);
  immutable('reason', next.reason ?? '', old.reason ?? '');
  immutable('type', next.type ?? '', old.type ?? '');
  immutable('eventTime', next.eventTime ?? null, old.eventTime ?? null);
  immutable('action', next.action ?? '', old.action ?? '');
  immutable('related', internalReference(next.related), internalReference(old.related));
  immutable('reportingController', next.reportingComponent ?? '', old.reportingComponent ?? '');
  immutable('reportingInstance', next.reportingInstance ?? '', old.reportingInstance ?? '');
  return errs;
}

/**
 * What kube's registry checks of every object's metadata after the kind's own validation
 * (BeforeCreate's ValidateObjectMetaAccessor with path-segment names; on update, with the
 * update rules, before the kind's): namespaced, any name that is a path segment.
 */
export const commonMetaCreate = (e: CoreEvent): FieldError[] => validateObjectMeta(e.metadata, true, validatePathSegmentName, metaPath);
export const commonMetaUpdate = (e: CoreEvent, old: CoreEvent): FieldError[] => [...commonMetaCreate(e), ...validateObjectMetaUpdate(e.metadata, old.metadata, metaPath)];
