// Everything the server needs to know about one kind, declared in one value
// (src/resources/<plural>/index.ts builds it). http/ derives routes, discovery and OpenAPI from it;
// the generic store derives behaviour from it.

import type { FieldOrder } from '../apimachinery/field-order.js';
import type { KubeObject } from '../apimachinery/object-meta.js';
import type { SchemaRegistry } from '../apimachinery/schema.js';
import type { Strategy } from './strategy.js';

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/** One column of the server-side Table (meta.k8s.io/v1 TableColumnDefinition). */
export interface TableColumn<T extends KubeObject> {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format: string;
  description: string;
  /** 0: always shown; 1: only with `-o wide`. */
  priority: number;
  /** The cell for one object; `now` lets Age be rendered against one clock per response. */
  cell(obj: T, now: Date): string | number | boolean | null;
}

export interface SubresourceDefinition<T extends KubeObject> {
  name: 'status';
  verbs: readonly Verb[];
  strategy: Strategy<T>;
}

export interface ResourceDefinition<T extends KubeObject = KubeObject> {
  group: string;
  version: string;
  kind: string;
  listKind: string;
  /** Lower-case plural, the path segment. */
  plural: string;
  singular: string;
  scope: 'Cluster';
  shortNames: readonly string[];
  categories: readonly string[];
  verbs: readonly Verb[];
  strategy: Strategy<T>;
  subresources: readonly SubresourceDefinition<T>[];
  table: readonly TableColumn<T>[];
  /** Component schemas of this group-version's types (the kind, its list, spec, status …). */
  schemas: SchemaRegistry;
  /** Component name of the kind's schema in `schemas` (e.g. `io.platform.certificates.v1beta1.ClusterTrustBundle`). */
  schemaName: string;
  /** Component name of the list kind's schema. */
  listSchemaName: string;
  /** The kind's fields in kube's (Go struct) order: objects are stored and served in it. */
  fieldOrder: FieldOrder;
  /**
   * The kind's zero value as kube-apiserver serializes an empty Go object (fields without
   * omitempty present): what field ownership compares a create against.
   */
  zeroValue(): Record<string, unknown>;
  /**
   * Field-selector attributes of an object, `metadata.name` included (kube's GetAttrs).
   * Keys are the selectable field labels.
   */
  selectableFields(obj: T): Record<string, string>;
  /**
   * The 400 message for an unsupported field label. Kinds with a field-label conversion (CTB) say
   * `field label not supported: <label>`; the default says `"<label>" is not a known field selector: only "metadata.name", "metadata.namespace"`.
   */
  unknownFieldLabelMessage(label: string): string;
}

export const apiVersionOf = (def: Pick<ResourceDefinition, 'group' | 'version'>): string =>
  def.group ? `${def.group}/${def.version}` : def.version;

export const groupResourceOf = (def: Pick<ResourceDefinition, 'group' | 'plural'>) => ({ group: def.group, resource: def.plural });
export const groupKindOf = (def: Pick<ResourceDefinition, 'group' | 'kind'>) => ({ group: def.group, kind: def.kind });
