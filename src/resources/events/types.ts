// Events as on the wire: the core v1 Event (`/api/v1`, what is stored) and events.k8s.io/v1's
// shape of the same objects. Field names are kube's JSON names.

import type { KubeObject } from '../../apimachinery/object-meta.js';
import type { ObjectReference } from '../../apimachinery/object-reference.js';

export type { ObjectReference };
export const CORE_VERSION = 'v1';
export const EVENTS_GROUP = 'events.k8s.io';
export const EVENTS_VERSION = 'v1';
export const KIND = 'Event';
export interface EventSource {
  component?: string;
  host?: string;
}

export interface EventSeries {
  count?: number;
  /** A MicroTime (RFC 3339, six fractional digits). */
  lastObservedTime?: string | null;
}

/** core v1 Event. Times are RFC 3339 (MicroTime for eventTime), null when unset. */
export interface CoreEvent extends KubeObject {
  involvedObject?: ObjectReference;
  reason?: string;
  message?: string;
  source?: EventSource;
  firstTimestamp?: string | null;
  lastTimestamp?: string | null;
  count?: number;
  type?: string;
  eventTime?: string | null;
  series?: EventSeries | null;
  action?: string;
  related?: ObjectReference | null;
  reportingComponent?: string;
  reportingInstance?: string;
}

/** events.k8s.io/v1 Event: the same object, its fields renamed and regrouped. */
export interface EventsV1Event extends KubeObject {
  eventTime?: string | null;
  series?: EventSeries | null;
  reportingController?: string;
  reportingInstance?: string;
  action?: string;
  reason?: string;
  regarding?: ObjectReference;
  related?: ObjectReference | null;
  note?: string;
  type?: string;
  deprecatedSource?: EventSource;
  deprecatedFirstTimestamp?: string | null;
  deprecatedLastTimestamp?: string | null;
  deprecatedCount?: number;
}
