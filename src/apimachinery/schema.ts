// The structural schema of a kind: an OpenAPI v3 subset with Kubernetes' extensions.
// One source for OpenAPI documents, unknown-field detection, strategic merge and apply.

export interface Schema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  description?: string;
  /** `#/components/schemas/<name>`; resolved through a SchemaRegistry. */
  $ref?: string;
  /** OpenAPI v3 idiom for a described reference: `allOf: [{$ref}]`. */
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  required?: string[];
  enum?: (string | number)[];
  default?: unknown;
  nullable?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-patch-merge-key'?: string;
  'x-kubernetes-group-version-kind'?: { group: string; version: string; kind: string }[];
  /** Accepts any JSON (metav1.FieldsV1, RawExtension). */
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  /** int-or-string. */
  'x-kubernetes-int-or-string'?: boolean;
}

/** Named schemas by component name (e.g. `io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta`). */
export type SchemaRegistry = Readonly<Record<string, Schema>>;

export const refTo = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

/** Follows `$ref` and single-element `allOf` until a concrete schema is reached. */
export function resolveSchema(schema: Schema | undefined, registry: SchemaRegistry): Schema | undefined {
  let s = schema;
  for (let depth = 0; s && depth < 16; depth++) {
    if (s.$ref) {
      s = registry[s.$ref.replace('#/components/schemas/', '')];
    } else if (s.allOf && s.allOf.length === 1 && !s.properties && !s.type) {
      s = s.allOf[0];
    } else {
      return s;
    }
  }
  return s;
}
