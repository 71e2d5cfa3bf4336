// The server's authorizer as admission expressions ask it (the authz CEL library, kube's
// caching authorizer): one cache per request, so the same check made by several expressions,
// bindings or params is asked once.

import type { Authorizer } from '../auth/authorizer.js';
import type { AuthzAttributes, AuthzDecision } from '../cel/functions.js';
import { AuthorizationCache } from '../cel/program.js';

export function authorizationCache(authorizer: Authorizer): AuthorizationCache {
  return new AuthorizationCache(async (a: AuthzAttributes): Promise<AuthzDecision> => {
    const r = await authorizer.authorize({
      user: { username: a.user.username, uid: a.user.uid, groups: [...a.user.groups], extra: a.user.extra ? Object.fromEntries(Object.entries(a.user.extra).map(([k, v]) => [k, [...v]])) : undefined },
      verb: a.verb,
      isResourceRequest: a.isResourceRequest,
      path: a.path,
      apiGroup: a.apiGroup,
      apiVersion: a.apiVersion,
      resource: a.resource,
      subresource: a.subresource,
      namespace: a.namespace,
      name: a.name,
      fieldSelector: a.fieldSelector,
      labelSelector: a.labelSelector,
    });
    const decision = r.decision === 'no-opinion' ? 'noOpinion' : r.decision;
    return r.error !== undefined ? { decision, reason: r.reason, error: r.error } : { decision, reason: r.reason };
  });
}
