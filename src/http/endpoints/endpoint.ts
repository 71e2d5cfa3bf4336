// What a resource handler gets: the request, its context, and the endpoint it addresses.

import type { HttpReply, HttpRequest } from '../transport/exchange.js';
import type { RequestContext } from '../../apimachinery/request-context.js';
import type { ResourceDefinition } from '../../registry/resource-definition.js';
import type { RestStorage } from '../../registry/rest-storage.js';

export interface ResourceEndpoints {
  definition: ResourceDefinition;
  main: RestStorage;
  /** The /status subresource, when the kind has one. */
  status?: RestStorage;
}

export interface HandlerInput {
  req: HttpRequest;
  reply: HttpReply;
  ctx: RequestContext;
  definition: ResourceDefinition;
  storage: RestStorage;
  name: string;
  query: URLSearchParams;
  pretty: boolean;
  body: Buffer | undefined;
  /** Aborted when the server shuts down (ends long-running requests such as watches). */
  serverClosing: AbortSignal;
}

export const header = (req: HttpRequest, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};
