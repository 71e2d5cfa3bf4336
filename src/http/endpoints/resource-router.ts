// Sends a resource request to its verb's handler, after checking the endpoint serves that
// verb (405 otherwise) and that the subresource exists (404 otherwise). As in kube, whose
// go-restful routes exist for GET, POST, PUT, PATCH and DELETE only, any other method on a
// resource path (HEAD, OPTIONS, TRACE, ...) is a 405 once authorized, never served as a GET.

import type { HttpReply, HttpRequest } from '../transport/exchange.js';
import type { RequestContext, RequestInfo } from '../../apimachinery/request-context.js';
import { methodNotAllowed, pathNotFound } from '../../apimachinery/status-error.js';
import { isNamespaced, type Verb } from '../../registry/resource-definition.js';
import { header, type HandlerInput, type ResourceEndpoints } from './endpoint.js';
import { negotiateResponse } from './negotiation.js';
import { handleCreate } from './handlers/create.js';
import { handleDeleteCollection } from './handlers/delete-collection.js';
import { handleDelete } from './handlers/delete.js';
import { handleGet } from './handlers/get.js';
import { handleList } from './handlers/list.js';
import { handlePatch } from './handlers/patch.js';
import { handleUpdate } from './handlers/update.js';
import { handleWatch } from './handlers/watch.js';

export interface RouteInput {
  req: HttpRequest;
  reply: HttpReply;
  ctx: RequestContext;
  endpoint: ResourceEndpoints;
  info: RequestInfo;
  query: URLSearchParams;
  pretty: boolean;
  body: Buffer | undefined;
  serverClosing: AbortSignal;
}

const HANDLERS: Record<Verb, (input: HandlerInput) => Promise<void>> = {
  get: handleGet,
  list: handleList,
  watch: handleWatch,
  create: handleCreate,
  update: handleUpdate,
  patch: handlePatch,
  delete: handleDelete,
  deletecollection: handleDeleteCollection,
};

/** The methods kube registers routes for on resource paths. */
const ROUTED_METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

export async function routeResource(r: RouteInput): Promise<void> {
  const { definition } = r.endpoint;
  const sub = r.info.subresource;
  if (r.info.parts.length > 3) throw pathNotFound();
  let allowed: readonly Verb[] = definition.verbs;
  let storage = r.endpoint.main;
  if (sub) {
    const declared = definition.subresources.find((s) => s.name === sub);
    if (!declared || !r.endpoint.status) throw pathNotFound();
    allowed = declared.verbs;
    storage = r.endpoint.status;
  }
  const verb = r.info.verb as Verb;
  if (!ROUTED_METHODS.has(r.req.method)) throw methodNotAllowed();
  // Watches are routed for GET only (a POST to the deprecated /watch/ path included).
  if (verb === 'watch' && r.req.method !== 'GET') throw methodNotAllowed();
  if (!allowed.includes(verb) || !(verb in HANDLERS)) throw methodNotAllowed();
  // A namespaced kind's collection across all namespaces is routed for list and watch only.
  if (isNamespaced(definition) && !r.info.namespace && verb !== 'list' && verb !== 'watch') throw methodNotAllowed();
  if (!r.info.name && (verb === 'get' || verb === 'update' || verb === 'patch' || verb === 'delete')) throw methodNotAllowed();
  if (r.info.name && verb === 'create') throw methodNotAllowed();
  // The answer's representation is settled before any work: an unacceptable Accept is a 406
  // that leaves nothing written (the handler would otherwise find out after the commit).
  // A watch negotiates its own (it refuses YAML).
  if (verb !== 'watch') negotiateResponse(header(r.req, 'accept'), verb === 'get' || verb === 'list');
  await HANDLERS[verb]({ req: r.req, reply: r.reply, ctx: r.ctx, definition, storage, name: r.info.name, query: r.query, pretty: r.pretty, body: r.body, serverClosing: r.serverClosing });
}
