// OpenAPI component schemas of the core v1 Event and events.k8s.io/v1 Event, under kube's
// component names (these kinds keep their Kubernetes groups); descriptions in our words.

import { LIST_META, META, OBJECT_META, TIME, typeMetaProperties } from '../../apimachinery/common-schemas.js';
import { refTo, type Schema, type SchemaRegistry } from '../../apimachinery/schema.js';
import { EVENTS_GROUP, EVENTS_VERSION, KIND } from './types.js';

const CORE = 'io.k8s.api.core.v1';
const EVENTS = 'io.k8s.api.events.v1';
export const CORE_EVENT_SCHEMA = `${CORE}.Event`;
export const CORE_EVENT_LIST_SCHEMA = `${CORE}.EventList`;
const CORE_SERIES = `${CORE}.EventSeries`;
const EVENT_SOURCE = `${CORE}.EventSource`;
const OBJECT_REFERENCE = `${CORE}.ObjectReference`;
export const EVENTS_V1_SCHEMA = `${EVENTS}.Event`;
export const EVENTS_V1_LIST_SCHEMA = `${EVENTS}.EventList`;
const EVENTS_V1_SERIES = `${EVENTS}.EventSeries`;
const MICRO_TIME = `${META}.MicroTime`;

const str = (description: string, extra: Schema = {}): Schema => ({ type: 'string', description, ...extra });
const int32 = (description: string): Schema => ({ type: 'integer', format: 'int32', description });
const ref = (name: string, description: string, extra: Schema = {}): Schema => ({ allOf: [refTo(name)], description, ...extra });

const shared: SchemaRegistry = {
  [MICRO_TIME]: { type: 'string', format: 'date-time', description: 'A timestamp in RFC 3339 form with microseconds (six fractional digits).' },
  [OBJECT_REFERENCE]: {
    type: 'object',
    description: 'A reference to an object (or to a part of it, by field path).',
    properties: {
      apiVersion: str('API version of the referent.'),
      fieldPath: str('The part of the referent meant, when not the whole object (e.g. spec.containers{name}).'),
      kind: str('Kind of the referent.'),
      name: str('Name of the referent.'),
      namespace: str('Namespace of the referent.'),
      resourceVersion: str('The resourceVersion of the referent the reference was made for.'),
      uid: str('UID of the referent.'),
    },
    'x-kubernetes-map-type': 'atomic',
  },
  [EVENT_SOURCE]: {
    type: 'object',
    description: 'The component an event came from.',
    properties: { component: str('The component that reported the event.'), host: str('The node it ran on.') },
  },
};

export const coreEventSchemas: SchemaRegistry = {
  ...shared,
  [CORE_EVENT_SCHEMA]: {
    type: 'object',
    description: 'Event is a report of something that happened to an object in the cluster.',
    required: ['metadata', 'involvedObject'],
    properties: {
      action: str('What was done, or failed, about the object.'),
      apiVersion: typeMetaProperties('v1', KIND).apiVersion!,
      count: int32('The number of times this event has occurred.'),
      eventTime: ref(MICRO_TIME, 'When this event was first observed (events of the events.k8s.io API).'),
      firstTimestamp: ref(TIME, 'When this event was first recorded.'),
      involvedObject: ref(OBJECT_REFERENCE, 'The object this event is about.', { default: {} }),
      kind: typeMetaProperties('v1', KIND).kind!,
      lastTimestamp: ref(TIME, 'When the most recent occurrence of this event was recorded.'),
      message: str('A human-readable description of what happened.'),
      metadata: ref(OBJECT_META, 'Standard object metadata.', { default: {} }),
      reason: str('A short, machine-readable reason for the event, in UpperCamelCase.'),
      related: ref(OBJECT_REFERENCE, 'A second object the event involves, if any.'),
      reportingComponent: str('The controller that reported the event (e.g. service-cidr-controller).', { default: '' }),
      reportingInstance: str('The instance of that controller (e.g. a host name).', { default: '' }),
      series: ref(CORE_SERIES, 'The series this event belongs to, when it happened repeatedly.'),
      source: ref(EVENT_SOURCE, 'The component that reported the event.', { default: {} }),
      type: str('The type of the event: Normal or Warning.'),
    },
    'x-kubernetes-group-version-kind': [{ group: '', version: 'v1', kind: KIND }],
  },
  [CORE_SERIES]: {
    type: 'object',
    description: 'A series of events that keep happening.',
    properties: { count: int32('How many times it happened so far.'), lastObservedTime: ref(MICRO_TIME, 'When it last happened.') },
  },
  [CORE_EVENT_LIST_SCHEMA]: {
    type: 'object',
    description: 'A list of Events.',
    required: ['items'],
    properties: {
      apiVersion: typeMetaProperties('v1', `${KIND}List`).apiVersion!,
      items: { type: 'array', description: 'The events.', items: { allOf: [refTo(CORE_EVENT_SCHEMA)], default: {} } },
      kind: typeMetaProperties('v1', `${KIND}List`).kind!,
      metadata: ref(LIST_META, 'Standard list metadata.', { default: {} }),
    },
    'x-kubernetes-group-version-kind': [{ group: '', version: 'v1', kind: `${KIND}List` }],
  },
};

const gv = `${EVENTS_GROUP}/${EVENTS_VERSION}`;

export const eventsV1Schemas: SchemaRegistry = {
  ...shared,
  [EVENTS_V1_SCHEMA]: {
    type: 'object',
    description: 'Event is a report of something that happened to an object in the cluster.',
    required: ['eventTime'],
    properties: {
      action: str('What was done, or failed, about the object.'),
      apiVersion: typeMetaProperties(gv, KIND).apiVersion!,
      deprecatedCount: int32('The number of times this event occurred (from the core API).'),
      deprecatedFirstTimestamp: ref(TIME, 'When this event was first recorded (from the core API).'),
      deprecatedLastTimestamp: ref(TIME, 'When it was last recorded (from the core API).'),
      deprecatedSource: ref(EVENT_SOURCE, 'The reporting component (from the core API).', { default: {} }),
      eventTime: ref(MICRO_TIME, 'When this event was first observed. Required.'),
      kind: typeMetaProperties(gv, KIND).kind!,
      metadata: ref(OBJECT_META, 'Standard object metadata.', { default: {} }),
      note: str('A human-readable description of what happened, at most 1 kB.'),
      reason: str('Why the action was taken, in UpperCamelCase.'),
      regarding: ref(OBJECT_REFERENCE, 'The object this event is about.', { default: {} }),
      related: ref(OBJECT_REFERENCE, 'A second object the event involves, if any.'),
      reportingController: str('The controller that reported the event (e.g. service-cidr-controller).'),
      reportingInstance: str('The instance of that controller.'),
      series: ref(EVENTS_V1_SERIES, 'The series this event belongs to, when it happened repeatedly.'),
      type: str('The type of the event: Normal or Warning.'),
    },
    'x-kubernetes-group-version-kind': [{ group: EVENTS_GROUP, version: EVENTS_VERSION, kind: KIND }],
  },
  [EVENTS_V1_SERIES]: {
    type: 'object',
    description: 'A series of events that keep happening.',
    required: ['count', 'lastObservedTime'],
    properties: { count: { ...int32('How many times it happened so far.'), default: 0 }, lastObservedTime: ref(MICRO_TIME, 'When it last happened.') },
  },
  [EVENTS_V1_LIST_SCHEMA]: {
    type: 'object',
    description: 'A list of Events.',
    required: ['items'],
    properties: {
      apiVersion: typeMetaProperties(gv, `${KIND}List`).apiVersion!,
      items: { type: 'array', description: 'The events.', items: { allOf: [refTo(EVENTS_V1_SCHEMA)], default: {} } },
      kind: typeMetaProperties(gv, `${KIND}List`).kind!,
      metadata: ref(LIST_META, 'Standard list metadata.', { default: {} }),
    },
    'x-kubernetes-group-version-kind': [{ group: EVENTS_GROUP, version: EVENTS_VERSION, kind: `${KIND}List` }],
  },
};
