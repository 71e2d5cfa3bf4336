// API object shapes shared by every kind: TypeMeta, ObjectMeta, ListMeta and their parts.
// Field names mirror the Kubernetes JSON names exactly.

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update';
  apiVersion?: string;
  /** RFC 3339 with second precision. */
  time?: string;
  fieldsType?: 'FieldsV1';
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  selfLink?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: ManagedFieldsEntry[];
}

export interface TypeMeta {
  apiVersion: string;
  kind: string;
}

/** Any stored API object: TypeMeta plus ObjectMeta plus kind-specific fields. */
export interface KubeObject extends TypeMeta {
  metadata: ObjectMeta;
}

export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface KubeList<T extends KubeObject> extends TypeMeta {
  metadata: ListMeta;
  items: T[];
}

/** metav1.Condition (used by ServiceCIDR status). */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown' | string;
  observedGeneration?: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

/** metav1.DeleteOptions as it arrives in a body or the query. */
export interface DeleteOptions {
  kind?: string;
  apiVersion?: string;
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  orphanDependents?: boolean;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  dryRun?: string[];
}

/** RFC 3339 at second precision, the wire form of metav1.Time. */
export function rfc3339Now(now: Date = new Date()): string {
  // Every write stamps a time or two, and they fall in the same second: formatted once a second.
  const second = Math.floor(now.getTime() / 1000);
  if (second === lastSecond) return lastText;
  const iso = now.toISOString();
  const text = iso.length === 24 ? `${iso.slice(0, 19)}Z` : iso.replace(/\.\d{3}Z$/, 'Z');
  lastSecond = second;
  lastText = text;
  return text;
}

let lastSecond = Number.NaN;
let lastText = '';
