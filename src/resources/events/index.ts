// The two Event resource definitions: the core v1 Event (`/api/v1`, stored) and the
// events.k8s.io/v1 Event, the same objects in the other shape (stored as core Events, as kube
// stores both in one place). Both namespaced, short name `ev`.

import type { KubeObject } from '../../apimachinery/object-meta.js';
import type { ResourceDefinition } from '../../registry/resource-definition.js';
import { CORE_EVENT_LIST_SCHEMA, CORE_EVENT_SCHEMA, coreEventSchemas, EVENTS_V1_LIST_SCHEMA, EVENTS_V1_SCHEMA, eventsV1Schemas } from './openapi.js';
import { coreEventFields, eventsV1Fields, fieldLabelNotSupported } from './selectable-fields.js';
import { CORE_EVENT_ORDER, EVENTS_V1_ORDER, coreShape, toCore, toEventsV1 } from './shape.js';
import { coreEventStrategy, eventsV1Strategy } from './strategy.js';
import { CORE_TIME_FIELDS, EVENTS_V1_TIME_FIELDS, normalizeTimes } from './times.js';
import { coreEventColumns, eventsV1Columns } from './table.js';
import { CORE_VERSION, EVENTS_GROUP, EVENTS_VERSION, KIND, type CoreEvent, type EventsV1Event } from './types.js';

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'] as const;

export const coreEvents: ResourceDefinition<CoreEvent> = {
  group: '',
  version: CORE_VERSION,
  kind: KIND,
  listKind: `${KIND}List`,
  plural: 'events',
  singular: 'event',
  scope: 'Namespaced',
  shortNames: ['ev'],
  categories: [],
  verbs: VERBS,
  strategy: coreEventStrategy,
  subresources: [],
  table: coreEventColumns,
  schemas: coreEventSchemas,
  schemaName: CORE_EVENT_SCHEMA,
  listSchemaName: CORE_EVENT_LIST_SCHEMA,
  fieldOrder: CORE_EVENT_ORDER,
  zeroValue: () => ({ metadata: { creationTimestamp: null }, involvedObject: {}, source: {}, firstTimestamp: null, lastTimestamp: null, eventTime: null, reportingComponent: '', reportingInstance: '' }),
  selectableFields: coreEventFields,
  unknownFieldLabelMessage: fieldLabelNotSupported,
  normalizeDecoded: (obj) => normalizeTimes(obj, CORE_TIME_FIELDS, CORE_VERSION),
};

export const eventsV1Events: ResourceDefinition<EventsV1Event> = {
  group: EVENTS_GROUP,
  version: EVENTS_VERSION,
  kind: KIND,
  listKind: `${KIND}List`,
  plural: 'events',
  singular: 'event',
  scope: 'Namespaced',
  shortNames: ['ev'],
  categories: [],
  verbs: VERBS,
  strategy: eventsV1Strategy,
  subresources: [],
  table: eventsV1Columns,
  schemas: eventsV1Schemas,
  schemaName: EVENTS_V1_SCHEMA,
  listSchemaName: EVENTS_V1_LIST_SCHEMA,
  fieldOrder: EVENTS_V1_ORDER,
  zeroValue: () => ({ metadata: { creationTimestamp: null }, eventTime: null, regarding: {}, deprecatedSource: {}, deprecatedFirstTimestamp: null, deprecatedLastTimestamp: null }),
  selectableFields: eventsV1Fields,
  unknownFieldLabelMessage: fieldLabelNotSupported,
  normalizeDecoded: (obj) => normalizeTimes(obj, EVENTS_V1_TIME_FIELDS, EVENTS_VERSION),
  storedAs: {
    definition: coreEvents as unknown as ResourceDefinition,
    fromStored: (stored: KubeObject) => toEventsV1(stored as CoreEvent),
    toStored: (obj: EventsV1Event) => coreShape(toCore(obj)),
  },
};
