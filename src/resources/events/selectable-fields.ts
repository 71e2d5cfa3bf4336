// Events' field selectors. kube matches every version's selectors against one field set of the
// stored event (its ToSelectableFields); each version names those fields in its own words
// (events.k8s.io/v1 says `regarding.kind` for the core `involvedObject.kind`, and
// `reportingController` for `reportingComponent`). `source` is the source component, or the
// reporting controller when there is none.

import type { CoreEvent, EventsV1Event, ObjectReference } from './types.js';

/** kube's field label conversion error for Events (both versions). */
export const fieldLabelNotSupported = (label: string): string => `field label not supported: ${label}`;

function fieldsOf(ref: ObjectReference | undefined, prefix: string): Record<string, string> {
  return {
    [`${prefix}.kind`]: ref?.kind ?? '',
    [`${prefix}.namespace`]: ref?.namespace ?? '',
    [`${prefix}.name`]: ref?.name ?? '',
    [`${prefix}.uid`]: ref?.uid ?? '',
    [`${prefix}.apiVersion`]: ref?.apiVersion ?? '',
    [`${prefix}.resourceVersion`]: ref?.resourceVersion ?? '',
    [`${prefix}.fieldPath`]: ref?.fieldPath ?? '',
  };
}

export function coreEventFields(e: CoreEvent): Record<string, string> {
  return {
    ...fieldsOf(e.involvedObject, 'involvedObject'),
    reason: e.reason ?? '',
    reportingComponent: e.reportingComponent ?? '',
    source: e.source?.component || e.reportingComponent || '',
    type: e.type ?? '',
    'metadata.name': e.metadata.name ?? '',
    'metadata.namespace': e.metadata.namespace ?? '',
  };
}

export function eventsV1Fields(e: EventsV1Event): Record<string, string> {
  return {
    reason: e.reason ?? '',
    ...fieldsOf(e.regarding, 'regarding'),
    reportingController: e.reportingController ?? '',
    source: e.deprecatedSource?.component || e.reportingController || '',
    type: e.type ?? '',
    'metadata.namespace': e.metadata.namespace ?? '',
    'metadata.name': e.metadata.name ?? '',
  };
}
