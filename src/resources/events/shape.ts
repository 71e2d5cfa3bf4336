// The two Event shapes as kube's encoder writes them (every field of the Go struct that has no
// omitempty is present: times as null, structs as {}, reportingComponent and reportingInstance
// as ""), and the conversions between them (kube's Convert_v1_Event_To_core_Event and back:
// regarding ↔ involvedObject, note ↔ message, deprecated* ↔ source, firstTimestamp,
// lastTimestamp, count; everything else by name).

import { canonicalOrder, kindOrder, type FieldOrder } from '../../apimachinery/field-order.js';
import { CORE_VERSION, EVENTS_GROUP, EVENTS_VERSION, KIND, type CoreEvent, type EventSeries, type EventsV1Event, type ObjectReference } from './types.js';

const OBJECT_REFERENCE: FieldOrder = ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'];
const SERIES: FieldOrder = ['count', 'lastObservedTime'];

export const CORE_EVENT_ORDER: FieldOrder = kindOrder(
  ['involvedObject', OBJECT_REFERENCE],
  'reason',
  'message',
  ['source', ['component', 'host']],
  'firstTimestamp',
  'lastTimestamp',
  'count',
  'type',
  'eventTime',
  ['series', SERIES],
  'action',
  ['related', OBJECT_REFERENCE],
  'reportingComponent',
  'reportingInstance',
);

export const EVENTS_V1_ORDER: FieldOrder = kindOrder(
  'eventTime',
  ['series', SERIES],
  'reportingController',
  'reportingInstance',
  'action',
  'reason',
  ['regarding', OBJECT_REFERENCE],
  ['related', OBJECT_REFERENCE],
  'note',
  'type',
  ['deprecatedSource', ['component', 'host']],
  'deprecatedFirstTimestamp',
  'deprecatedLastTimestamp',
  'deprecatedCount',
);

/** A string member that Go writes only when non-empty (omitempty). */
const nonEmpty = (v: string | undefined): string | undefined => (v ? v : undefined);
/** An int32 member with omitempty. */
const nonZero = (v: number | undefined): number | undefined => (v ? v : undefined);
/** An ObjectReference's members, each omitempty. */
const reference = (r: ObjectReference | null | undefined): ObjectReference =>
  r ? { kind: nonEmpty(r.kind), namespace: nonEmpty(r.namespace), name: nonEmpty(r.name), uid: nonEmpty(r.uid), apiVersion: nonEmpty(r.apiVersion), resourceVersion: nonEmpty(r.resourceVersion), fieldPath: nonEmpty(r.fieldPath) } : {};

/** core EventSeries: both members omitempty (the time is a struct, so written as null when zero). */
const coreSeries = (s: EventSeries | null | undefined): EventSeries | undefined => (s ? { count: nonZero(s.count), lastObservedTime: s.lastObservedTime ?? null } : undefined);
/** events.k8s.io EventSeries: neither member omitempty. */
const v1Series = (s: EventSeries | null | undefined): EventSeries | undefined => (s ? { count: s.count ?? 0, lastObservedTime: s.lastObservedTime ?? null } : undefined);

/** A core Event in the shape kube writes it (a new object in canonical field order). */
export function coreShape(e: CoreEvent): CoreEvent {
  return canonicalOrder(
    {
      apiVersion: CORE_VERSION,
      kind: KIND,
      metadata: e.metadata,
      involvedObject: reference(e.involvedObject),
      reason: nonEmpty(e.reason),
      message: nonEmpty(e.message),
      source: { component: nonEmpty(e.source?.component), host: nonEmpty(e.source?.host) },
      firstTimestamp: e.firstTimestamp ?? null,
      lastTimestamp: e.lastTimestamp ?? null,
      count: nonZero(e.count),
      type: nonEmpty(e.type),
      eventTime: e.eventTime ?? null,
      series: coreSeries(e.series),
      action: nonEmpty(e.action),
      related: e.related ? reference(e.related) : undefined,
      reportingComponent: e.reportingComponent ?? '',
      reportingInstance: e.reportingInstance ?? '',
    } satisfies CoreEvent,
    CORE_EVENT_ORDER,
  );
}

/** An events.k8s.io/v1 Event in the shape kube writes it. */
export function eventsV1Shape(e: EventsV1Event): EventsV1Event {
  return canonicalOrder(
    {
      apiVersion: `${EVENTS_GROUP}/${EVENTS_VERSION}`,
      kind: KIND,
      metadata: e.metadata,
      eventTime: e.eventTime ?? null,
      series: v1Series(e.series),
      reportingController: nonEmpty(e.reportingController),
      reportingInstance: nonEmpty(e.reportingInstance),
      action: nonEmpty(e.action),
      reason: nonEmpty(e.reason),
      regarding: reference(e.regarding),
      related: e.related ? reference(e.related) : undefined,
      note: nonEmpty(e.note),
      type: nonEmpty(e.type),
      deprecatedSource: { component: nonEmpty(e.deprecatedSource?.component), host: nonEmpty(e.deprecatedSource?.host) },
      deprecatedFirstTimestamp: e.deprecatedFirstTimestamp ?? null,
      deprecatedLastTimestamp: e.deprecatedLastTimestamp ?? null,
      deprecatedCount: nonZero(e.deprecatedCount),
    } satisfies EventsV1Event,
    EVENTS_V1_ORDER,
  );
}

/** A core Event as events.k8s.io/v1 serves it (metadata shared: read-only callers copy first). */
export function toEventsV1(e: CoreEvent): EventsV1Event {
  return eventsV1Shape({
    apiVersion: `${EVENTS_GROUP}/${EVENTS_VERSION}`,
    kind: KIND,
    metadata: { ...e.metadata },
    eventTime: e.eventTime,
    series: e.series,
    reportingController: e.reportingComponent,
    reportingInstance: e.reportingInstance,
    action: e.action,
    reason: e.reason,
    regarding: e.involvedObject,
    related: e.related,
    note: e.message,
    type: e.type,
    deprecatedSource: e.source,
    deprecatedFirstTimestamp: e.firstTimestamp,
    deprecatedLastTimestamp: e.lastTimestamp,
    deprecatedCount: e.count,
  });
}

/** An events.k8s.io/v1 Event as the core Event stored and served under /api/v1. */
export function toCore(e: EventsV1Event): CoreEvent {
  return coreShape({
    apiVersion: CORE_VERSION,
    kind: KIND,
    metadata: { ...e.metadata },
    involvedObject: e.regarding,
    reason: e.reason,
    message: e.note,
    source: e.deprecatedSource,
    firstTimestamp: e.deprecatedFirstTimestamp,
    lastTimestamp: e.deprecatedLastTimestamp,
    count: e.deprecatedCount,
    type: e.type,
    eventTime: e.eventTime,
    series: e.series,
    action: e.action,
    related: e.related,
    reportingComponent: e.reportingController,
    reportingInstance: e.reportingInstance,
  });
}
