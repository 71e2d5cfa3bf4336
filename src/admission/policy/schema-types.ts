// A kind's OpenAPI schema as the CEL type policies are type-checked against (kube's
// common.SchemaDeclType): objects with their properties as fields, arrays as lists, maps with
// string keys, date-time strings as timestamps, int-or-string and free-form subtrees as dyn.
// Fields whose names are not CEL identifiers are left out (kube escapes them; none of the kinds
// served here has one).

import { resolveSchema, type Schema, type SchemaRegistry } from '../../apimachinery/schema.js';
import { T, type CelType } from '../../cel/types.js';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const RESERVED = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);

export function schemaCelType(schema: Schema | undefined, registry: SchemaRegistry, name: string, depth = 0): CelType {
  const s = resolveSchema(schema, registry);
  if (!s || depth > 32 || s['x-kubernetes-int-or-string']) return T.dyn;
  switch (s.type) {
    case 'string':
      if (s.format === 'byte') return T.bytes;
      if (s.format === 'date-time' || s.format === 'date') return T.timestamp;
      if (s.format === 'duration') return T.duration;
      return T.string;
    case 'integer':
      return T.int;
    case 'number':
      return T.double;
    case 'boolean':
      return T.bool;
    case 'array':
      return T.list(schemaCelType(s.items, registry, `${name}.@idx`, depth + 1));
    case 'object': {
      if (s.additionalProperties && typeof s.additionalProperties === 'object') return T.map(T.string, schemaCelType(s.additionalProperties, registry, `${name}.@elem`, depth + 1));
      if (!s.properties) return s['x-kubernetes-preserve-unknown-fields'] ? T.dyn : T.map(T.string, T.dyn);
      let fields: ReadonlyMap<string, CelType> | undefined;
      const props = s.properties;
      return T.object(name, () => {
        fields ??= new Map(
          Object.entries(props)
            .filter(([k]) => IDENTIFIER.test(k) && !RESERVED.has(k))
            .map(([k, p]) => [k, schemaCelType(p, registry, `${name}.${k}`, depth + 1)] as const),
        );
        return fields;
      });
    }
    default:
      return T.dyn;
  }
}
