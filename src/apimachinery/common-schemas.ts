// OpenAPI component schemas shared by every kind (meta/v1 types), under their upstream names,
// with the patch and list extensions that strategic merge patch and apply read.

import { refTo, type Schema, type SchemaRegistry } from './schema.js';

export const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
export const OBJECT_META = `${META}.ObjectMeta`;
export const LIST_META = `${META}.ListMeta`;
export const CONDITION = `${META}.Condition`;
export const TIME = `${META}.Time`;
export const STATUS = `${META}.Status`;
export const DELETE_OPTIONS = `${META}.DeleteOptions`;
export const PATCH = `${META}.Patch`;
export const WATCH_EVENT = `${META}.WatchEvent`;

/** The apiVersion and kind properties of a kind's schema. */
export function typeMetaProperties(apiVersion: string, kind: string): Record<string, Schema> {
  return {
    apiVersion: { type: 'string', description: `The versioned schema of this object: ${apiVersion}.` },
    kind: { type: 'string', description: `The kind of this object: ${kind}.` },
  };
}

const str = (description: string): Schema => ({ type: 'string', description, default: '' });
const int = (description: string, format = 'int64'): Schema => ({ type: 'integer', format, description });
const described = (ref: string, description: string): Schema => ({ allOf: [refTo(ref)], description });
const stringMap = (description: string): Schema => ({ type: 'object', description, additionalProperties: { type: 'string', default: '' } });

export const commonSchemas: SchemaRegistry = {
  [TIME]: { type: 'string', format: 'date-time', description: 'A timestamp in RFC 3339 form, serialized with second precision.' },
  [`${META}.FieldsV1`]: {
    type: 'object',
    description: 'The set of fields a manager owns, in the FieldsV1 trie format.',
    'x-kubernetes-preserve-unknown-fields': true,
  },
  [`${META}.ManagedFieldsEntry`]: {
    type: 'object',
    description: 'A workflow (manager) and the set of fields it manages, with the operation that last wrote them.',
    properties: {
      apiVersion: str('The version of the resource this entry applies to.'),
      fieldsType: str('The format of fieldsV1; only "FieldsV1" is defined.'),
      fieldsV1: described(`${META}.FieldsV1`, 'The fields this manager owns.'),
      manager: str('The name of the workflow managing these fields.'),
      operation: str('The kind of operation that produced this entry: Apply or Update.'),
      subresource: str('The subresource written to, empty for the main resource.'),
      time: described(TIME, 'When these fields were last set by this manager.'),
    },
  },
  [`${META}.OwnerReference`]: {
    type: 'object',
    description: 'Information that identifies an owning object; an owner must be in the same scope.',
    required: ['apiVersion', 'kind', 'name', 'uid'],
    properties: {
      apiVersion: str('API version of the referent.'),
      blockOwnerDeletion: { type: 'boolean', description: 'If true, the owner cannot be deleted from storage before this reference is removed (foreground deletion).' },
      controller: { type: 'boolean', description: 'If true, this reference points to the managing controller.' },
      kind: str('Kind of the referent.'),
      name: str('Name of the referent.'),
      uid: str('UID of the referent.'),
    },
    'x-kubernetes-map-type': 'atomic',
  },
  [OBJECT_META]: {
    type: 'object',
    description: 'Standard object metadata that every persisted resource carries.',
    properties: {
      annotations: stringMap('Unstructured key-value data stored with the object, for tools and libraries. Not queryable.'),
      creationTimestamp: described(TIME, 'When this object was created; set by the server and read-only.'),
      deletionGracePeriodSeconds: int('Seconds the object is allowed to terminate gracefully before removal; read-only.'),
      deletionTimestamp: described(TIME, 'When this object will be deleted; set by the server when deletion is requested and finalizers remain; read-only.'),
      finalizers: {
        type: 'array',
        description: 'Entries that must be removed before the object is deleted from storage. Each names the component responsible for removing it.',
        items: { type: 'string', default: '' },
        'x-kubernetes-list-type': 'set',
        'x-kubernetes-patch-strategy': 'merge',
      },
      generateName: str('A prefix from which the server generates a unique name when name is not given.'),
      generation: int('A sequence number for a specific generation of the desired state; set by the server and read-only.'),
      labels: stringMap('Key-value pairs used to organize and select objects.'),
      managedFields: {
        type: 'array',
        description: 'Which workflows own which fields, as tracked by server-side apply.',
        items: described(`${META}.ManagedFieldsEntry`, ''),
        'x-kubernetes-list-type': 'atomic',
      },
      name: str('Name of the object, unique within its kind for cluster-scoped objects. Cannot be updated.'),
      namespace: str('Namespace of the object; empty for cluster-scoped kinds.'),
      ownerReferences: {
        type: 'array',
        description: 'Objects this object depends on. When all owners are deleted, the object is garbage collected.',
        items: described(`${META}.OwnerReference`, ''),
        'x-kubernetes-list-map-keys': ['uid'],
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-patch-merge-key': 'uid',
        'x-kubernetes-patch-strategy': 'merge',
      },
      resourceVersion: str('An opaque value identifying the internal version of this object, for optimistic concurrency and watch.'),
      selfLink: str('Deprecated; not set by the server.'),
      uid: str('Unique identifier of this object over time, generated by the server on creation; read-only.'),
    },
  },
  [LIST_META]: {
    type: 'object',
    description: 'Metadata of synthetic list responses.',
    properties: {
      continue: str('Set when more results are available; pass it back to get the next page.'),
      remainingItemCount: int('How many items remain after this page, when known.'),
      resourceVersion: str('The resource version of the list snapshot.'),
      selfLink: str('Deprecated; not set by the server.'),
    },
  },
  [CONDITION]: {
    type: 'object',
    description: 'Details of one aspect of the current state of the object.',
    required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
    properties: {
      lastTransitionTime: described(TIME, 'When the condition last changed from one status to another.'),
      message: str('Human-readable details about the transition; may be empty.'),
      observedGeneration: int('The metadata.generation the condition was set for.'),
      reason: str('A CamelCase identifier of the reason for the last transition.'),
      status: str('Status of the condition: True, False or Unknown.'),
      type: str('Type of the condition, in CamelCase or <domain>/CamelCase.'),
    },
  },
  [`${META}.StatusCause`]: {
    type: 'object',
    description: 'More information about a failure, for one field or aspect.',
    properties: { field: str('The field that caused the error, as a path.'), message: str('Human-readable description of the cause.'), reason: str('Machine-readable cause.') },
  },
  [`${META}.StatusDetails`]: {
    type: 'object',
    description: 'Extended data about a response.',
    properties: {
      causes: { type: 'array', items: described(`${META}.StatusCause`, ''), 'x-kubernetes-list-type': 'atomic', description: 'The causes of the failure.' },
      group: str('Group of the resource.'),
      kind: str('Kind (resource) of the object.'),
      name: str('Name of the object.'),
      retryAfterSeconds: int('Seconds to wait before retrying.', 'int32'),
      uid: str('UID of the object.'),
    },
  },
  [STATUS]: {
    type: 'object',
    description: 'The result of an operation that does not return an object.',
    properties: {
      apiVersion: str('Versioned schema of this representation.'),
      code: int('HTTP status code.', 'int32'),
      details: described(`${META}.StatusDetails`, 'Extended data about the failure.'),
      kind: str('Always Status.'),
      message: str('Human-readable description.'),
      metadata: described(LIST_META, 'Standard list metadata.'),
      reason: str('Machine-readable reason.'),
      status: str('Success or Failure.'),
    },
  },
  [`${META}.Preconditions`]: {
    type: 'object',
    description: 'Conditions that must hold before a delete is carried out.',
    properties: { resourceVersion: str('The expected resourceVersion.'), uid: str('The expected UID.') },
  },
  [DELETE_OPTIONS]: {
    type: 'object',
    description: 'Options for a delete.',
    properties: {
      apiVersion: str('Versioned schema of this representation.'),
      dryRun: { type: 'array', items: { type: 'string', default: '' }, description: 'All: process fully, persist nothing.', 'x-kubernetes-list-type': 'atomic' },
      gracePeriodSeconds: int('Seconds before the object is deleted.'),
      kind: str('Always DeleteOptions.'),
      orphanDependents: { type: 'boolean', description: 'Deprecated: use propagationPolicy.' },
      preconditions: described(`${META}.Preconditions`, 'Must be fulfilled before deletion is carried out.'),
      propagationPolicy: str('Orphan, Background or Foreground garbage collection of dependents.'),
    },
  },
  [PATCH]: { type: 'object', description: 'A patch document; its format is given by the Content-Type.' },
  [WATCH_EVENT]: {
    type: 'object',
    description: 'One event of a watch stream.',
    required: ['type', 'object'],
    properties: { object: { type: 'object', description: 'The object, or a Status for ERROR events.' }, type: str('ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.') },
  },
};
