// OpenAPI v3 documents, one per group-version: the operations of operations.ts rendered in v3
// form (what kubectl explain / create / apply read: operation-level query parameters and GVKs)
// and the component schemas reachable from the kinds. Hashes are content hashes.

import { createHash } from 'node:crypto';
import { commonSchemas, DELETE_OPTIONS, PATCH, STATUS } from '../../../apimachinery/common-schemas.js';
import { refTo, type Schema, type SchemaRegistry } from '../../../apimachinery/schema.js';
import type { ResourceDefinition } from '../../../registry/resource-definition.js';
import { resourcePaths, rootOf, type Operation, type Param } from './operations.js';

export interface OpenAPIDocument {
  body: Buffer;
  hash: string;
}

const v3Param = (p: Param): object => ({
  name: p.name,
  in: p.in,
  description: p.description,
  ...(p.required ? { required: true } : {}),
  schema: { type: p.type, uniqueItems: true },
});
const json = (ref: string) => ({ 'application/json': { schema: refTo(ref) }, 'application/yaml': { schema: refTo(ref) } });
export const codeText = (c: string): string => ({ '200': 'OK', '201': 'Created', '202': 'Accepted' })[c] ?? c;

function v3Operation(o: Operation): object {
  const body = o.body && {
    requestBody: {
      ...(o.body.required ? { required: true } : {}),
      content: Object.fromEntries((o.consumes ?? ['*/*']).map((t) => [t, { schema: refTo(o.body!.schema) }])),
    },
  };
  return {
    description: o.description,
    operationId: o.operationId,
    tags: [o.tag],
    parameters: o.params.map(v3Param),
    ...body,
    responses: {
      ...Object.fromEntries(Object.entries(o.responses).map(([c, ref]) => [c, { description: codeText(c), content: json(ref) }])),
      '401': { description: 'Unauthorized' },
    },
    ...(o.action ? { 'x-kubernetes-action': o.action } : {}),
    ...(o.gvk ? { 'x-kubernetes-group-version-kind': o.gvk } : {}),
  };
}

function operations(d: ResourceDefinition): Record<string, object> {
  return Object.fromEntries(
    resourcePaths(d).map((item) => [
      item.path,
      { ...(item.params.length ? { parameters: item.params.map(v3Param) } : {}), ...Object.fromEntries(item.operations.map((o) => [o.method, v3Operation(o)])) },
    ]),
  );
}

/** Every schema reachable by $ref from the roots, with OpenAPI v3 ref paths. */
export function reachableSchemas(roots: string[], registry: SchemaRegistry): Record<string, Schema> {
  const out: Record<string, Schema> = {};
  const visit = (name: string): void => {
    if (out[name] || !registry[name]) return;
    out[name] = registry[name]!;
    JSON.stringify(registry[name], (k, v: unknown) => {
      if (k === '$ref' && typeof v === 'string') visit(v.replace('#/components/schemas/', ''));
      return v;
    });
  };
  roots.forEach(visit);
  return Object.fromEntries(Object.keys(out).sort().map((k) => [k, out[k]!]));
}

export const contentHash = (body: Buffer): string => createHash('sha512').update(body).digest('hex').toUpperCase();

export function buildOpenAPIV3(defs: readonly ResourceDefinition[]): { index: object; groupVersions: Map<string, OpenAPIDocument> } {
  const byGV = new Map<string, ResourceDefinition[]>();
  // `api/v1` for the core group, `apis/<group>/<version>` for the others (kube's v3 paths).
  for (const d of defs) {
    const gv = rootOf(d).slice(1);
    byGV.set(gv, [...(byGV.get(gv) ?? []), d]);
  }
  const groupVersions = new Map<string, OpenAPIDocument>();
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const [gv, ds] of byGV) {
    const registry: SchemaRegistry = Object.assign({}, commonSchemas, ...ds.map((d) => d.schemas));
    const roots = [...ds.flatMap((d) => [d.schemaName, d.listSchemaName]), STATUS, DELETE_OPTIONS, PATCH];
    const doc = {
      openapi: '3.0.0',
      info: { title: 'platform-apiserver', version: 'v1.33.0' },
      paths: Object.assign({}, ...ds.map(operations)),
      components: { schemas: reachableSchemas(roots, registry) },
    };
    const body = Buffer.from(JSON.stringify(doc));
    const hash = contentHash(body);
    groupVersions.set(gv, { body, hash });
    paths[gv] = { serverRelativeURL: `/openapi/v3/${gv}?hash=${hash}` };
  }
  return { index: { paths }, groupVersions };
}
