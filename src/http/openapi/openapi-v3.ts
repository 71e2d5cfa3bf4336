// OpenAPI v3 documents, one per group-version, generated from the resource definitions: the
// paths kubectl explain / create / apply read (with operation-level query parameters and GVKs)
// and the component schemas reachable from the kinds. Hashes are content hashes.

import { createHash } from 'node:crypto';
import { commonSchemas, DELETE_OPTIONS, PATCH, STATUS } from '../../apimachinery/common-schemas.js';
import { refTo, type Schema, type SchemaRegistry } from '../../apimachinery/schema.js';
import type { ResourceDefinition } from '../../registry/resource-definition.js';

export interface OpenAPIDocument {
  body: Buffer;
  hash: string;
}

const param = (name: string, description: string, type: 'string' | 'boolean' | 'integer' = 'string', uniqueItems = true): object => ({
  name,
  in: 'query',
  description,
  schema: { type, uniqueItems },
});
const P = {
  pretty: param('pretty', "If 'true', then the output is pretty printed."),
  dryRun: param('dryRun', 'When present, modifications are not persisted. The only valid value is All.'),
  fieldManager: param('fieldManager', 'A name for the actor making these changes, recorded for field ownership.'),
  fieldValidation: param('fieldValidation', 'How to treat unknown or duplicate fields: Ignore, Warn (the default) or Strict.'),
  force: param('force', 'Force apply requests to take ownership of conflicting fields.', 'boolean'),
  allowWatchBookmarks: param('allowWatchBookmarks', 'Request BOOKMARK events on watches.', 'boolean'),
  continue: param('continue', 'The continue token from the previous page of a paged list.'),
  fieldSelector: param('fieldSelector', 'Restrict the list by fields.'),
  labelSelector: param('labelSelector', 'Restrict the list by labels.'),
  limit: param('limit', 'The most items to return in one page.', 'integer'),
  resourceVersion: param('resourceVersion', 'Which version of the data the request may be served from.'),
  resourceVersionMatch: param('resourceVersionMatch', 'How resourceVersion applies to a list: Exact or NotOlderThan.'),
  sendInitialEvents: param('sendInitialEvents', 'Start a watch with the current state as synthetic events.', 'boolean'),
  timeoutSeconds: param('timeoutSeconds', 'Timeout for the list or watch call.', 'integer'),
  watch: param('watch', 'Watch for changes instead of listing.', 'boolean'),
  gracePeriodSeconds: param('gracePeriodSeconds', 'Seconds before the object is deleted.', 'integer'),
  orphanDependents: param('orphanDependents', 'Deprecated: use propagationPolicy.', 'boolean'),
  propagationPolicy: param('propagationPolicy', 'Garbage collection of dependents: Orphan, Background or Foreground.'),
};
const nameParam = { name: 'name', in: 'path', description: 'name of the object', required: true, schema: { type: 'string', uniqueItems: true } };

const camel = (s: string): string => s.split(/[.-]/).map((p) => p.charAt(0).toUpperCase() + p.slice(1)).join('');
const json = (ref: string) => ({ 'application/json': { schema: refTo(ref) }, 'application/yaml': { schema: refTo(ref) } });
const ok = (ref: string, codes: number[]): Record<string, object> => ({
  ...Object.fromEntries(codes.map((c) => [String(c), { description: codeText(c), content: json(ref) }])),
  '401': { description: 'Unauthorized' },
});
const codeText = (c: number): string => ({ 200: 'OK', 201: 'Created', 202: 'Accepted' })[c] ?? String(c);

function operations(d: ResourceDefinition): Record<string, object> {
  const gvk = { group: d.group, version: d.version, kind: d.kind };
  const id = `${camel(d.group)}${camel(d.version)}`;
  const op = (action: string, operationId: string, description: string, parameters: object[], responses: object, extra: object = {}) => ({
    description,
    operationId,
    tags: [`${d.group}_${d.version}`],
    parameters,
    responses,
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': gvk,
    ...extra,
  });
  const listParams = [P.allowWatchBookmarks, P.continue, P.fieldSelector, P.labelSelector, P.limit, P.pretty, P.resourceVersion, P.resourceVersionMatch, P.sendInitialEvents, P.timeoutSeconds, P.watch];
  const writeParams = [P.pretty, P.dryRun, P.fieldManager, P.fieldValidation];
  const patchBody = {
    requestBody: {
      required: true,
      content: Object.fromEntries(
        ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'].map((t) => [t, { schema: refTo(PATCH) }]),
      ),
    },
  };
  const objectBody = { requestBody: { required: true, content: { '*/*': { schema: refTo(d.schemaName) } } } };
  const deleteParams = [P.pretty, P.dryRun, P.gracePeriodSeconds, P.orphanDependents, P.propagationPolicy];
  const deleteBody = { requestBody: { content: { '*/*': { schema: refTo(DELETE_OPTIONS) } } } };
  const base = `/apis/${d.group}/${d.version}/${d.plural}`;
  const paths: Record<string, object> = {
    [base]: {
      get: op('list', `list${id}${d.kind}`, `list or watch objects of kind ${d.kind}`, listParams, ok(d.listSchemaName, [200])),
      post: op('post', `create${id}${d.kind}`, `create a ${d.kind}`, writeParams, ok(d.schemaName, [200, 201, 202]), objectBody),
      delete: op('deletecollection', `delete${id}Collection${d.kind}`, `delete collection of ${d.kind}`, [...deleteParams, ...listParams.filter((p) => p !== P.watch)], ok(STATUS, [200]), deleteBody),
    },
    [`${base}/{name}`]: {
      parameters: [nameParam],
      get: op('get', `read${id}${d.kind}`, `read the specified ${d.kind}`, [P.pretty], ok(d.schemaName, [200])),
      put: op('put', `replace${id}${d.kind}`, `replace the specified ${d.kind}`, writeParams, ok(d.schemaName, [200, 201]), objectBody),
      patch: op('patch', `patch${id}${d.kind}`, `partially update the specified ${d.kind}`, [...writeParams, P.force], ok(d.schemaName, [200, 201]), patchBody),
      delete: op('delete', `delete${id}${d.kind}`, `delete a ${d.kind}`, deleteParams, ok(STATUS, [200, 202]), deleteBody),
    },
  };
  for (const s of d.subresources) {
    const sub = camel(s.name);
    paths[`${base}/{name}/${s.name}`] = {
      parameters: [nameParam],
      get: op('get', `read${id}${d.kind}${sub}`, `read ${s.name} of the specified ${d.kind}`, [P.pretty], ok(d.schemaName, [200])),
      put: op('put', `replace${id}${d.kind}${sub}`, `replace ${s.name} of the specified ${d.kind}`, writeParams, ok(d.schemaName, [200, 201]), objectBody),
      patch: op('patch', `patch${id}${d.kind}${sub}`, `partially update ${s.name} of the specified ${d.kind}`, [...writeParams, P.force], ok(d.schemaName, [200, 201]), patchBody),
    };
  }
  return paths;
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
  for (const d of defs) byGV.set(`apis/${d.group}/${d.version}`, [...(byGV.get(`apis/${d.group}/${d.version}`) ?? []), d]);
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
