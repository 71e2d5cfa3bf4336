// `kubectl get events` columns, as kube's printer makes them for the server-side Table (always
// its wide form): Last Seen, Type, Reason, Object, Message, and with -o wide Subobject, Source,
// First Seen, Count and Name. events.k8s.io/v1 prints the same, from the core shape.

import { humanDuration, translateTimestampSince } from '../../apimachinery/duration.js';
import type { TableColumn } from '../../registry/resource-definition.js';
import { toCore } from './shape.js';
import type { CoreEvent, EventsV1Event } from './types.js';

/** translateMicroTimestampSince. */
function microSince(ts: string | null | undefined, now: Date): string {
  if (!ts) return '<unknown>';
  const t = Date.parse(ts);
  return Number.isNaN(t) ? '<unknown>' : humanDuration(now.getTime() - t);
}

const firstSeen = (e: CoreEvent, now: Date): string => (e.firstTimestamp ? translateTimestampSince(e.firstTimestamp, now) : microSince(e.eventTime, now));

function lastSeen(e: CoreEvent, now: Date): string {
  if (e.series) return microSince(e.series.lastObservedTime, now);
  return e.lastTimestamp ? translateTimestampSince(e.lastTimestamp, now) : firstSeen(e, now);
}

/** A singleton event of the new API has no count: 1. */
const count = (e: CoreEvent): number => (e.series ? (e.series.count ?? 0) : e.count || 1);

/** `<kind>/<name>` lower-cased kind, or the kind alone. */
const target = (e: CoreEvent): string => {
  const kind = (e.involvedObject?.kind ?? '').toLowerCase();
  return e.involvedObject?.name ? `${kind}/${e.involvedObject.name}` : kind;
};

/** formatEventSource: component (or reporting controller), then `, host` (or instance) when there is one. */
function source(e: CoreEvent): string {
  const component = e.source?.component || e.reportingComponent || '';
  const instance = e.source?.host || e.reportingInstance || '';
  return instance ? `${component}, ${instance}` : component;
}

const column = (name: string, description: string, priority: number, cell: (e: CoreEvent, now: Date) => string | number, format = ''): TableColumn<CoreEvent> => ({
  name,
  type: 'string',
  format,
  description,
  priority,
  cell,
});

export const coreEventColumns: readonly TableColumn<CoreEvent>[] = [
  column('Last Seen', 'The time at which the most recent occurrence of this event was recorded.', 0, lastSeen),
  column('Type', 'Type of this event (Normal, Warning).', 0, (e) => e.type ?? ''),
  column('Reason', 'A short, machine understandable string for the reason of the transition into the object\'s current status.', 0, (e) => e.reason ?? ''),
  column('Object', 'The object that this event is about.', 0, target),
  column('Subobject', 'The part of the object the event is about, if any (a field path).', 1, (e) => e.involvedObject?.fieldPath ?? ''),
  column('Source', 'The component reporting this event.', 1, source),
  column('Message', 'A human-readable description of the status of this operation.', 0, (e) => (e.message ?? '').trim()),
  column('First Seen', 'The time at which the event was first recorded.', 1, firstSeen),
  column('Count', 'The number of times this event has occurred.', 1, count),
  column('Name', 'Name must be unique within a namespace.', 1, (e) => e.metadata.name ?? '', 'name'),
];

export const eventsV1Columns: readonly TableColumn<EventsV1Event>[] = coreEventColumns.map((c) => ({ ...c, cell: (e: EventsV1Event, now: Date) => c.cell(toCore(e), now) }));
