// A kind's OpenAPI schema seen the way server-side apply sees it (structured-merge-diff's model):
// scalars; maps that are structs (named fields) or string-keyed maps, merged key by key unless
// atomic; lists that are atomic (replaced whole) or associative (sets of scalars, or maps keyed
// by their list-map-keys). Lists without a list-type follow their patch strategy, as kube's
// schema conversion does; anything else is atomic.

import { resolveSchema, type Schema, type SchemaRegistry } from '../schema.js';

export type TypeNode = ScalarType | MapType | ListType | UntypedType;

export interface ScalarType {
  kind: 'scalar';
}

export interface MapType {
  kind: 'map';
  atomic: boolean;
  /** The type of a named field, or of any key when the map has additionalProperties. */
  field(name: string): TypeNode | undefined;
  /** True for declared struct fields (false for keys of a string-keyed map). */
  isNamedField(name: string): boolean;
}

export interface ListType {
  kind: 'list';
  atomic: boolean;
  /** Map keys for associative lists of maps; empty for sets of scalars. */
  keys: readonly string[];
  element: TypeNode;
}

/** Free-form JSON (preserve-unknown-fields): maps merge, lists are atomic, everything is allowed. */
export interface UntypedType {
  kind: 'untyped';
}

const SCALAR: ScalarType = { kind: 'scalar' };
const UNTYPED: UntypedType = { kind: 'untyped' };

export const untypedMap: MapType = { kind: 'map', atomic: false, field: () => UNTYPED, isNamedField: () => false };

/** Builds (and caches per schema object) the apply view of `schema`. */
export class TypedSchema {
  private readonly cache = new Map<Schema, TypeNode>();

  constructor(private readonly registry: SchemaRegistry) {}

  typeOf(schema: Schema | undefined): TypeNode {
    const s = resolveSchema(schema, this.registry);
    if (!s) return UNTYPED;
    let t = this.cache.get(s);
    if (!t) {
      t = this.build(s);
      this.cache.set(s, t);
    }
    return t;
  }

  private build(s: Schema): TypeNode {
    if (s['x-kubernetes-preserve-unknown-fields']) return UNTYPED;
    if (s.type === 'array') return this.list(s);
    if (s.type === 'object' || s.properties) return this.map(s);
    return SCALAR;
  }

  private list(s: Schema): ListType {
    const element = this.typeOf(s.items);
    const listType = s['x-kubernetes-list-type'];
    if (listType === 'map') return { kind: 'list', atomic: false, keys: s['x-kubernetes-list-map-keys'] ?? [], element };
    if (listType === 'set') return { kind: 'list', atomic: false, keys: [], element };
    if (listType === 'atomic') return { kind: 'list', atomic: true, keys: [], element };
    if (s['x-kubernetes-patch-strategy']?.split(',').includes('merge')) {
      const key = s['x-kubernetes-patch-merge-key'];
      return { kind: 'list', atomic: false, keys: key ? [key] : [], element };
    }
    return { kind: 'list', atomic: true, keys: [], element };
  }

  private map(s: Schema): MapType {
    const props = s.properties ?? {};
    const extra = s.additionalProperties;
    // Resolved once per field name: every write walks these maps for each of its fields.
    const named = new Map<string, TypeNode>();
    // Undefined until resolved (and for a map without additionalProperties, cheap to resolve again).
    let extraType: TypeNode | undefined;
    return {
      kind: 'map',
      atomic: s['x-kubernetes-map-type'] === 'atomic',
      field: (name) => {
        if (!Object.hasOwn(props, name)) return (extraType ??= typeof extra === 'object' ? this.typeOf(extra) : extra === true ? UNTYPED : undefined);
        let t = named.get(name);
        // Stryker disable next-line ConditionalExpression: equivalent, typeOf caches per schema: resolving again gives the same type
        if (!t) named.set(name, (t = this.typeOf(props[name])));
        return t;
      },
      isNamedField: (name) => Object.hasOwn(props, name),
    };
  }
}
