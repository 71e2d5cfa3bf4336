// The Swagger 2.0 document at /openapi/v2, as kube-apiserver serves it: every operation of
// operations.ts (with parameters, responses, x-kubernetes-action and the operation's GVK), the
// discovery and version paths, and the same component schemas as v3 under #/definitions (a
// described reference is a sibling `$ref`, not v3's `allOf`). Served as JSON and as protobuf
// (openapi-v2-proto.ts) with one content-hash ETag per encoding.

import { commonSchemas, DELETE_OPTIONS, PATCH, STATUS, WATCH_EVENT } from '../../../apimachinery/common-schemas.js';
import type { Schema, SchemaRegistry } from '../../../apimachinery/schema.js';
import type { ResourceDefinition } from '../../../registry/resource-definition.js';
import { discoverySchemas, nonResourcePaths } from './discovery-paths.js';
import { encodeOpenAPIV2 } from './openapi-v2-proto.js';
import { codeText, contentHash, reachableSchemas, type OpenAPIDocument } from './openapi-v3.js';
import { resourcePaths, watchPaths, type Operation, type Param, type PathItem } from './operations.js';

export type JsonObject = Record<string, unknown>;

export interface OpenAPIV2Documents {
  json: OpenAPIDocument;
  protobuf: OpenAPIDocument;
}

const V3_REF = '#/components/schemas/';
const V2_REF = '#/definitions/';

/** A v3 component schema in v2 form: refs under #/definitions, `allOf: [ref]` as a sibling `$ref`. */
export function toV2Schema(s: Schema): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(s) as [keyof Schema, unknown][]) {
    if (k === 'nullable') continue;
    if (k === '$ref') out.$ref = (v as string).replace(V3_REF, V2_REF);
    else if (k === 'allOf' && Array.isArray(v) && v.length === 1 && (v[0] as Schema).$ref) out.$ref = ((v[0] as Schema).$ref as string).replace(V3_REF, V2_REF);
    else if (k === 'allOf') out.allOf = (v as Schema[]).map(toV2Schema);
    else if (k === 'properties') out.properties = Object.fromEntries(Object.entries(v as Record<string, Schema>).map(([n, p]) => [n, toV2Schema(p)]));
    else if (k === 'items') out.items = toV2Schema(v as Schema);
    else if (k === 'additionalProperties') out.additionalProperties = typeof v === 'boolean' ? v : toV2Schema(v as Schema);
    else out[k] = v;
  }
  // A sibling $ref is listed first, as kube writes it.
  return out.$ref ? { $ref: out.$ref, ...out } : out;
}

const v2Param = (p: Param): JsonObject => ({ description: p.description, in: p.in, name: p.name, ...(p.required ? { required: true } : {}), type: p.type, uniqueItems: true });

const PRODUCES = ['application/json', 'application/yaml'];
const WATCH_PRODUCES = [...PRODUCES, 'application/json;stream=watch'];

function v2Operation(o: Operation): JsonObject {
  const body = o.body ? [{ in: 'body', name: 'body', ...(o.body.required ? { required: true } : {}), schema: { $ref: `${V2_REF}${o.body.schema}` } }] : [];
  return {
    consumes: o.consumes ?? ['*/*'],
    description: o.description,
    operationId: o.operationId,
    parameters: [...body, ...o.params.map(v2Param)],
    produces: o.watch ? WATCH_PRODUCES : PRODUCES,
    responses: {
      ...Object.fromEntries(Object.entries(o.responses).map(([c, ref]) => [c, { description: codeText(c), schema: { $ref: `${V2_REF}${ref}` } }])),
      '401': { description: 'Unauthorized' },
    },
    schemes: ['https'],
    tags: [o.tag],
    ...(o.action ? { 'x-kubernetes-action': o.action } : {}),
    ...(o.gvk ? { 'x-kubernetes-group-version-kind': o.gvk } : {}),
  };
}

export const v2PathItem = (item: PathItem): JsonObject => ({
  ...Object.fromEntries(item.operations.map((o) => [o.method, v2Operation(o)])),
  ...(item.params.length ? { parameters: item.params.map(v2Param) } : {}),
});

/** The v2 document as a plain object (JSON form). */
export function openAPIV2Object(defs: readonly ResourceDefinition[], title: string, version: string): JsonObject {
  const registry: SchemaRegistry = Object.assign({}, commonSchemas, discoverySchemas, ...defs.map((d) => d.schemas));
  const roots = [...defs.flatMap((d) => [d.schemaName, d.listSchemaName]), STATUS, DELETE_OPTIONS, PATCH, WATCH_EVENT, ...Object.keys(discoverySchemas)];
  const items = [...nonResourcePaths(defs), ...defs.flatMap((d) => [...resourcePaths(d), ...watchPaths(d)])];
  const paths = Object.fromEntries(items.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)).map((i) => [i.path, v2PathItem(i)]));
  const definitions = Object.fromEntries(Object.entries(reachableSchemas(roots, registry)).map(([n, s]) => [n, toV2Schema(s)]));
  return {
    swagger: '2.0',
    info: { title, version },
    paths,
    definitions,
    securityDefinitions: { BearerToken: { description: 'Bearer Token authentication', in: 'header', name: 'authorization', type: 'apiKey' } },
    security: [{ BearerToken: [] }],
  };
}

export function buildOpenAPIV2(defs: readonly ResourceDefinition[], version = 'v1.33.0'): OpenAPIV2Documents {
  const doc = openAPIV2Object(defs, 'platform-apiserver', version);
  const json = Buffer.from(JSON.stringify(doc));
  const protobuf = encodeOpenAPIV2(doc);
  return { json: { body: json, hash: contentHash(json) }, protobuf: { body: protobuf, hash: contentHash(protobuf) } };
}
