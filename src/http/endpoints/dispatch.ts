// The end of the request path: serves a request that passed every filter. Public and other
// non-resource paths go to NonResourceRoutes, self-reviews to their handler, resource requests
// to their endpoint's verb handler.

import type { Logger, RequestContext, UserInfo } from '../../apimachinery/request-context.js';
import { methodNotAllowed, pathNotFound } from '../../apimachinery/status-error.js';
import type { Authorizer } from '../../auth/authorizer.js';
import { isNamespaced } from '../../registry/resource-definition.js';
import type { ResourceEndpoints } from './endpoint.js';
import { effectiveUser, type RequestState } from '../filters/filter.js';
import type { NonResourceRoutes } from '../routes/non-resource.js';
import { routeResource } from './resource-router.js';
import { handleSelfReview, isSelfReview } from './self-review.js';
import { warningHeaderValues } from './warning-headers.js';

export interface DispatchOptions {
  resources: readonly ResourceEndpoints[];
  nonResource: NonResourceRoutes;
  authorizer: Authorizer;
  /** Aborted when the server shuts down (ends long-running requests such as watches). */
  serverClosing: AbortSignal;
}

export function dispatcher(o: DispatchOptions): (s: RequestState) => Promise<void> {
  const clusterScoped = new Set(o.resources.filter((r) => !isNamespaced(r.definition)).map((r) => `${r.definition.group}/${r.definition.plural}`));
  const endpoints = new Map(o.resources.map((r) => [`${r.definition.group}/${r.definition.version}/${r.definition.plural}`, r]));
  return async (s) => {
    const user = effectiveUser(s);
    if (s.isPublic || !s.info.isResourceRequest || !user) return o.nonResource.serve(s.req, s.reply, s.path, s.query, s.pretty);
    const { info, reply } = s;
    const ctx = requestContext(s, user, s.logger);
    if (isSelfReview(info.apiGroup, info.apiVersion, info.resource) && !info.name && !info.namespace) {
      // Routed for POST only (kube's reviews are create-only): any other method is a 405.
      if (s.req.method !== 'POST') throw methodNotAllowed();
      return handleSelfReview({ review: info.resource, ctx, reply, body: s.body, contentType: s.req.headers['content-type'] ?? '', authorizer: o.authorizer, clusterScoped });
    }
    const endpoint = endpoints.get(`${info.apiGroup}/${info.apiVersion}/${info.resource}`);
    if (!endpoint) throw pathNotFound();
    // A cluster-scoped kind has no namespaced paths; a namespaced one's objects are only under
    // their namespace (its collection across namespaces is routed for list and watch, below).
    if (isNamespaced(endpoint.definition) ? !info.namespace && info.name : info.namespace) throw pathNotFound();
    if (info.verb === 'watch') s.audit?.responseStarted(200);
    try {
      await routeResource({ req: s.req, reply, ctx, endpoint, info, query: s.query, pretty: s.pretty, body: s.body, serverClosing: o.serverClosing });
    } catch (err) {
      // kube writes warnings as they are recorded: a refused request (a policy's Warn beside a Deny, a webhook's rejection) keeps them.
      const warnings = reply.sent ? [] : warningHeaderValues(ctx.warnings);
      if (warnings.length) reply.header('Warning', warnings);
      throw err;
    }
  };
}

function requestContext(s: RequestState, user: UserInfo, logger: Logger): RequestContext {
  const { cancellation } = s;
  return {
    requestId: s.requestId,
    user,
    requestInfo: s.info,
    get signal(): AbortSignal {
      return cancellation.signal;
    },
    abandoned: () => cancellation.aborted,
    deadline: s.deadline,
    logger,
    warnings: [],
    dryRun: false,
    annotate: (key, value) => s.audit?.annotate(key, value),
  };
}
