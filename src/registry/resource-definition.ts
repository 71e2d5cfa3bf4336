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
  /** A cell kube's printer adds to each row without declaring its column (IPAddress's Age). */
  undeclared?: boolean;
}

/**
 * A kind whose objects are another kind's stored objects in another shape (events.k8s.io/v1 Event
 * over the core v1 Event, as kube serves both from one storage): reads convert what is stored,
 * writes convert back. The conversions are pure and total (every field has a place in the other).
 */
export interface StoredAs<T extends KubeObject> {
  /** The kind whose storage (key prefix, watch cache, stored form) this one shares. */
  definition: ResourceDefinition;
  /** A stored object in this kind's shape (a new object; `stored` is not changed). */
  fromStored(stored: KubeObject): T;
  /** This kind's object in the stored shape, in the stored kind's field order. */
  toStored(obj: T): KubeObject;
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
  /** Namespaced objects live in a namespace (their key, paths and selectors carry it); cluster-scoped ones never. */
  scope: 'Cluster' | 'Namespaced';
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
  /**
   * The name a create with generateName and no name gets (kube's strategy NameGenerator); absent:
   * the prefix and five random characters. IPAddress keeps the prefix as it is.
   */
  generateName?(prefix: string): string;
  /**
   * What decoding a body into the kind's Go type does beyond JSON types: values Go parses (times)
   * are checked and written back as Go writes them; one that does not parse throws kube's 400.
   */
  normalizeDecoded?(obj: Record<string, unknown>): void;
  /** Present when the objects are another kind's stored ones, converted (see StoredAs). */
  storedAs?: StoredAs<T>;
}

export const apiVersionOf = (def: Pick<ResourceDefinition, 'group' | 'version'>): string =>
  def.group ? `${def.group}/${def.version}` : def.version;

export const isNamespaced = (def: Pick<ResourceDefinition, 'scope'>): boolean => def.scope === 'Namespaced';

export const groupResourceOf = (def: Pick<ResourceDefinition, 'group' | 'plural'>) => ({ group: def.group, resource: def.plural });
export const groupKindOf = (def: Pick<ResourceDefinition, 'group' | 'kind'>) => ({ group: def.group, kind: def.kind });
