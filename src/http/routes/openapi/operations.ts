// The API's operations as one neutral model (paths, verbs, parameters, bodies, responses, GVKs),
// derived from the resource definitions. openapi-v3.ts and openapi-v2.ts render this same model,
// so both documents always describe the same operations with the same schemas.

import { DELETE_OPTIONS, PATCH, STATUS, WATCH_EVENT } from '../../../apimachinery/common-schemas.js';
import type { ResourceDefinition } from '../../../registry/resource-definition.js';

export interface Param {
  name: string;
  in: 'query' | 'path';
  description: string;
  type: 'string' | 'boolean' | 'integer';
  required?: boolean;
}

export interface Operation {
  method: 'get' | 'put' | 'post' | 'delete' | 'patch';
  /** x-kubernetes-action; absent on non-resource operations (discovery, version). */
  action?: string;
  operationId: string;
  description: string;
  tag: string;
  params: Param[];
  /** The request body: its schema and whether it is required. */
  body?: { schema: string; required: boolean };
  /** Request media types (patch only; the rest take the serializer's). */
  consumes?: string[];
  /** Responses by status code: the schema of the body. */
  responses: Record<string, string>;
  /** Stream responses (watch) are produced in the watch media types. */
  watch?: boolean;
  gvk?: { group: string; version: string; kind: string };
}

export interface PathItem {
  path: string;
  /** Parameters shared by every operation of the path (the name). */
  params: Param[];
  operations: Operation[];
}

const param = (name: string, description: string, type: Param['type'] = 'string'): Param => ({ name, in: 'query', description, type });
export const P = {
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
export const nameParam: Param = { name: 'name', in: 'path', description: 'name of the object', type: 'string', required: true };
export const namespaceParam: Param = { name: 'namespace', in: 'path', description: 'object name and auth scope, such as for teams and projects', type: 'string', required: true };

export const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'];

export const camel = (s: string): string =>
  s
    .split(/[.-]/)
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join('');

/**
 * A group's name in operation ids and tags, as kube's: the core group is `core`, a `k8s.io` group
 * its name without the suffix (`events.k8s.io` → `events`), any other group its whole name
 * (`networking.platform.io`, spelled `NetworkingPlatformIo` in ids).
 */
const friendlyGroup = (group: string): string => (!group ? 'core' : group.endsWith('.k8s.io') ? group.slice(0, -'.k8s.io'.length) : group);

/** The group in operation ids: `Core`, `Events`, `NetworkingPlatformIo`. */
export const groupId = (group: string): string => camel(friendlyGroup(group));

export const tagOf = (d: Pick<ResourceDefinition, 'group' | 'version'>): string => `${friendlyGroup(d.group)}_${d.version}`;

/** The group's tag alone (its APIGroup operation), as kube names it. */
export const groupTagOf = (group: string): string => friendlyGroup(group);

/** The API root of a group-version: `/api/v1` for the core group, `/apis/<group>/<version>` for the others. */
export const rootOf = (d: Pick<ResourceDefinition, 'group' | 'version'>): string => (d.group ? `/apis/${d.group}/${d.version}` : `/api/${d.version}`);

const LIST_PARAMS = [P.allowWatchBookmarks, P.continue, P.fieldSelector, P.labelSelector, P.limit, P.pretty, P.resourceVersion, P.resourceVersionMatch, P.sendInitialEvents, P.timeoutSeconds, P.watch];
const WRITE_PARAMS = [P.pretty, P.dryRun, P.fieldManager, P.fieldValidation];
const DELETE_PARAMS = [P.pretty, P.dryRun, P.gracePeriodSeconds, P.orphanDependents, P.propagationPolicy];

/** The resource operations of one kind: collection, object, deprecated watch paths and subresources. */
export function resourcePaths(d: ResourceDefinition): PathItem[] {
  const gvk = { group: d.group, version: d.version, kind: d.kind };
  const id = `${groupId(d.group)}${camel(d.version)}`;
  const tag = tagOf(d);
  const op = (o: Omit<Operation, 'tag' | 'gvk'>): Operation => ({ ...o, tag, gvk });
  const namespaced = d.scope === 'Namespaced';
  // A namespaced kind's operations are under its namespace and named so (`readCoreV1NamespacedEvent`).
  const scoped = namespaced ? `Namespaced${d.kind}` : d.kind;
  const base = namespaced ? `${rootOf(d)}/namespaces/{namespace}/${d.plural}` : `${rootOf(d)}/${d.plural}`;
  const baseParams = namespaced ? [namespaceParam] : [];
  const objectBody = { schema: d.schemaName, required: true };
  const listOp = (operationId: string): Operation =>
    op({ method: 'get', action: 'list', operationId, description: `list or watch objects of kind ${d.kind}`, params: LIST_PARAMS, responses: { '200': d.listSchemaName }, watch: true });
  const items: PathItem[] = [
    {
      path: base,
      params: baseParams,
      operations: [
        listOp(`list${id}${scoped}`),
        op({ method: 'post', action: 'post', operationId: `create${id}${scoped}`, description: `create a ${d.kind}`, params: WRITE_PARAMS, body: objectBody, responses: { '200': d.schemaName, '201': d.schemaName, '202': d.schemaName } }),
        op({
          method: 'delete',
          action: 'deletecollection',
          operationId: `delete${id}Collection${scoped}`,
          description: `delete collection of ${d.kind}`,
          params: [...DELETE_PARAMS, ...LIST_PARAMS.filter((p) => p !== P.watch && p !== P.pretty)],
          body: { schema: DELETE_OPTIONS, required: false },
          responses: { '200': STATUS },
        }),
      ],
    },
    {
      path: `${base}/{name}`,
      params: [nameParam, ...baseParams],
      operations: [
        op({ method: 'get', action: 'get', operationId: `read${id}${scoped}`, description: `read the specified ${d.kind}`, params: [P.pretty], responses: { '200': d.schemaName } }),
        op({ method: 'put', action: 'put', operationId: `replace${id}${scoped}`, description: `replace the specified ${d.kind}`, params: WRITE_PARAMS, body: objectBody, responses: { '200': d.schemaName, '201': d.schemaName } }),
        op({
          method: 'patch',
          action: 'patch',
          operationId: `patch${id}${scoped}`,
          description: `partially update the specified ${d.kind}`,
          params: [...WRITE_PARAMS, P.force],
          body: { schema: PATCH, required: true },
          consumes: PATCH_TYPES,
          responses: { '200': d.schemaName, '201': d.schemaName },
        }),
        op({ method: 'delete', action: 'delete', operationId: `delete${id}${scoped}`, description: `delete a ${d.kind}`, params: DELETE_PARAMS, body: { schema: DELETE_OPTIONS, required: false }, responses: { '200': STATUS, '202': STATUS } }),
      ],
    },
  ];
  // Every namespace's objects at once: list and watch only.
  if (namespaced) items.push({ path: `${rootOf(d)}/${d.plural}`, params: [], operations: [listOp(`list${id}${d.kind}ForAllNamespaces`)] });
  for (const s of d.subresources) {
    const sub = camel(s.name);
    items.push({
      path: `${base}/{name}/${s.name}`,
      params: [nameParam, ...baseParams],
      operations: [
        op({ method: 'get', action: 'get', operationId: `read${id}${scoped}${sub}`, description: `read ${s.name} of the specified ${d.kind}`, params: [P.pretty], responses: { '200': d.schemaName } }),
        op({ method: 'put', action: 'put', operationId: `replace${id}${scoped}${sub}`, description: `replace ${s.name} of the specified ${d.kind}`, params: WRITE_PARAMS, body: objectBody, responses: { '200': d.schemaName, '201': d.schemaName } }),
        op({
          method: 'patch',
          action: 'patch',
          operationId: `patch${id}${scoped}${sub}`,
          description: `partially update ${s.name} of the specified ${d.kind}`,
          params: [...WRITE_PARAMS, P.force],
          body: { schema: PATCH, required: true },
          consumes: PATCH_TYPES,
          responses: { '200': d.schemaName, '201': d.schemaName },
        }),
      ],
    });
  }
  return items;
}

/** The deprecated `/watch/` paths kube still documents (v2 only, as kube's v2 does). */
export function watchPaths(d: ResourceDefinition): PathItem[] {
  const gvk = { group: d.group, version: d.version, kind: d.kind };
  const id = `${groupId(d.group)}${camel(d.version)}`;
  const watchParams = LIST_PARAMS.filter((p) => p !== P.watch).concat(P.watch);
  const namespaced = d.scope === 'Namespaced';
  const scoped = namespaced ? `Namespaced${d.kind}` : d.kind;
  const base = namespaced ? `${rootOf(d)}/watch/namespaces/{namespace}/${d.plural}` : `${rootOf(d)}/watch/${d.plural}`;
  const baseParams = namespaced ? [namespaceParam] : [];
  const op = (action: string, operationId: string, description: string): Operation => ({
    method: 'get',
    action,
    operationId,
    description,
    tag: tagOf(d),
    params: [],
    responses: { '200': WATCH_EVENT },
    watch: true,
    gvk,
  });
  const listDescription = `watch individual changes to a list of ${d.kind}. deprecated: use the 'watch' parameter with a list operation instead.`;
  const items: PathItem[] = [
    { path: base, params: [...watchParams, ...baseParams], operations: [op('watchlist', `watch${id}${scoped}List`, listDescription)] },
    {
      path: `${base}/{name}`,
      params: [...watchParams, nameParam, ...baseParams],
      operations: [op('watch', `watch${id}${scoped}`, `watch changes to an object of kind ${d.kind}. deprecated: use the 'watch' parameter with a list operation instead, filtered to a single item with the 'fieldSelector' parameter.`)],
    },
  ];
  if (namespaced) items.push({ path: `${rootOf(d)}/watch/${d.plural}`, params: watchParams, operations: [op('watchlist', `watch${id}${d.kind}ListForAllNamespaces`, listDescription)] });
  return items;
}
