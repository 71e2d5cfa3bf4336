// The core v1 Event shape the recorder writes and the TTL reaper reads. The controllers layer
// reads kinds through the registry like any client, so it declares the fields it touches instead
// of importing the resource package (docs/architecture.md, layers).

import type { KubeObject } from '../../apimachinery/object-meta.js';
import { internalContext, type Logger, type RequestContext, type UserInfo } from '../../apimachinery/request-context.js';
import type { ObjectReference } from '../../apimachinery/object-reference.js';

export type { ObjectReference };

export interface EventObject extends KubeObject {
  involvedObject?: ObjectReference;
  reason?: string;
  message?: string;
  source?: { component?: string; host?: string };
  firstTimestamp?: string | null;
  lastTimestamp?: string | null;
  count?: number;
  type?: string;
  reportingComponent?: string;
  reportingInstance?: string;
}

export const EVENT_TYPE_NORMAL = 'Normal';
export const EVENT_TYPE_WARNING = 'Warning';

/**
 * A request context for the core v1 Events API in `namespace` ('' for every namespace): kube
 * validates an event by the group-version it was written in, and its controllers write core v1.
 */
export function coreEventsContext(user: UserInfo, logger: Logger, namespace: string, verb = ''): RequestContext {
  return internalContext(user, logger, { apiPrefix: 'api', apiGroup: '', apiVersion: 'v1', resource: 'events', namespace, verb });
}

/** client-go's reference.GetReference for an object we hold: its type, identity and version. */
export function referenceTo(obj: KubeObject): ObjectReference {
  const m = obj.metadata ?? {};
  const ref: ObjectReference = { kind: obj.kind, namespace: m.namespace, name: m.name, uid: m.uid, apiVersion: obj.apiVersion, resourceVersion: m.resourceVersion };
  for (const k of Object.keys(ref) as (keyof ObjectReference)[]) if (!ref[k]) delete ref[k];
  return ref;
}
