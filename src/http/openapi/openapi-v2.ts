// A Swagger 2.0 document (JSON) of every kind: the v3 component schemas under #/definitions.
// kubectl only asks v2 as protobuf, which we do not serve (406); JSON clients can read this.

import { commonSchemas, DELETE_OPTIONS, PATCH, STATUS } from '../../apimachinery/common-schemas.js';
import type { SchemaRegistry } from '../../apimachinery/schema.js';
import type { ResourceDefinition } from '../../registry/resource-definition.js';
import { contentHash, reachableSchemas, type OpenAPIDocument } from './openapi-v3.js';

export function buildOpenAPIV2(defs: readonly ResourceDefinition[]): OpenAPIDocument {
  const registry: SchemaRegistry = Object.assign({}, commonSchemas, ...defs.map((d) => d.schemas));
  const roots = [...defs.flatMap((d) => [d.schemaName, d.listSchemaName]), STATUS, DELETE_OPTIONS, PATCH];
  const definitions = JSON.parse(JSON.stringify(reachableSchemas(roots, registry)).replace(/#\/components\/schemas\//g, '#/definitions/')) as unknown;
  const doc = { swagger: '2.0', info: { title: 'platform-apiserver', version: 'v1.33.0' }, paths: {}, definitions };
  const body = Buffer.from(JSON.stringify(doc));
  return { body, hash: contentHash(body) };
}
