// The ServiceCIDR shape and constants the controllers rely on. The controllers layer reads the
// kind through the registry like any client, so it declares the few fields it touches instead
// of importing the resource package (see docs/architecture.md, layers).

import type { Condition, KubeObject } from '../apimachinery/object-meta.js';
import type { UserInfo } from '../apimachinery/request-context.js';

export interface ServiceCIDRObject extends KubeObject {
  spec?: { cidrs?: string[] };
  status?: { conditions?: Condition[] };
}

/** An IPAddress as the ServiceCIDR controller reads it (the name is the address). */
export interface IPAddressObject extends KubeObject {
  spec?: { parentRef?: { group?: string; resource?: string; namespace?: string; name?: string } | null };
}

/** kube's networking/v1 IPAddress labels (kept as kube names them) and its allocator's name. */
export const LABEL_IP_FAMILY = 'ipaddress.kubernetes.io/ip-family';
export const LABEL_MANAGED_BY = 'ipaddress.kubernetes.io/managed-by';
export const IPALLOCATOR_MANAGER = 'ipallocator.k8s.io';

export const SERVICE_CIDR_API_VERSION = 'networking.platform.io/v1';
export const SERVICE_CIDR_KIND = 'ServiceCIDR';
/** kube's `networking.k8s.io/service-cidr-finalizer` in our group (docs/api-compatibility.md, decision 1). */
export const SERVICE_CIDR_FINALIZER = 'networking.platform.io/service-cidr-finalizer';
export const CONDITION_READY = 'Ready';
export const REASON_TERMINATING = 'Terminating';
/** The default ServiceCIDR's name. */
export const DEFAULT_SERVICE_CIDR_NAME = 'kubernetes';

/** The in-process controllers act as kube-apiserver's loopback client does. */
export const CONTROLLER_USER: UserInfo = { username: 'system:apiserver', uid: 'system:apiserver', groups: ['system:masters', 'system:authenticated'] };

export const findCondition = (obj: ServiceCIDRObject, type: string): Condition | undefined => obj.status?.conditions?.find((c) => c.type === type);

/** RFC 3339 at second precision, as metav1.Time serializes. */
export const rfc3339 = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * What the status controller reads of a ServiceCIDR, and so all its informer keeps (client-go's
 * SetTransform, as kube-controller-manager trims its informers' objects): identity and version,
 * deletion and finalizers, the ranges and the Ready condition's status, reason and message. The rest (managedFields,
 * annotations, labels) stays in the watch cache's stored bytes: held whole, 100,000 objects took
 * twice their JSON again beside the cache.
 */
export function statusControllerView(sc: ServiceCIDRObject): ServiceCIDRObject {
  const m = sc.metadata;
  const ready = findCondition(sc, CONDITION_READY);
  const view: ServiceCIDRObject = {
    apiVersion: sc.apiVersion === SERVICE_CIDR_API_VERSION ? SERVICE_CIDR_API_VERSION : sc.apiVersion,
    kind: sc.kind === SERVICE_CIDR_KIND ? SERVICE_CIDR_KIND : sc.kind,
    metadata: { name: m.name, uid: m.uid, resourceVersion: m.resourceVersion },
  };
  if (m.namespace) view.metadata.namespace = m.namespace;
  if (m.deletionTimestamp) view.metadata.deletionTimestamp = m.deletionTimestamp;
  // The usual values are shared, not held once per object (each decode makes its own strings).
  if (m.finalizers) view.metadata.finalizers = m.finalizers.length === 1 && m.finalizers[0] === SERVICE_CIDR_FINALIZER ? ONLY_OUR_FINALIZER : m.finalizers;
  if (sc.spec) view.spec = sc.spec;
  // The controller compares only status, reason and message (a write sets a new
  // lastTransitionTime of its own): the usual Ready=True is one object shared by all.
  if (ready) view.status = ready.status === 'True' && ready.reason === '' && ready.message === READY_CONDITION_MESSAGE ? USUAL_READY_STATUS : { conditions: [ready] };
  return view;
}

/** The Ready=True every synced ServiceCIDR shows, as the status controller's view holds it (no lastTransitionTime). */
const USUAL_READY_STATUS: NonNullable<ServiceCIDRObject['status']> = Object.freeze({
  conditions: Object.freeze([Object.freeze({ type: CONDITION_READY, status: 'True', reason: '', message: 'Kubernetes Service CIDR is ready' })]) as Condition[],
});

const ONLY_OUR_FINALIZER: string[] = Object.freeze([SERVICE_CIDR_FINALIZER]) as string[];
/** The Ready condition's message (kube's, as the status controller writes it). */
export const READY_CONDITION_MESSAGE = 'Kubernetes Service CIDR is ready';
