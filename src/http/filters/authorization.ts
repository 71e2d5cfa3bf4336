// Filter: authorization (kube's WithAuthorization). May the acting user do this verb on this
// resource or path? 403 otherwise. Public paths skip it. The decision goes to the audit trail.

import type { RequestInfo, UserInfo } from '../../apimachinery/request-context.js';
import type { AuthorizationAttributes, Authorizer } from '../../auth/authorizer.js';
import { unauthorized } from '../../apimachinery/status-error.js';
import { forbiddenError } from '../../auth/forbidden-error.js';
import { effectiveUser, type Filter } from './filter.js';

export function authorizationAttributes(user: UserInfo, info: RequestInfo): AuthorizationAttributes {
  return {
    user,
    verb: info.verb,
    isResourceRequest: info.isResourceRequest,
    path: info.path,
    apiGroup: info.apiGroup,
    apiVersion: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource,
    namespace: info.namespace,
    name: info.name,
  };
}

export function authorizationFilter(authorizer: Authorizer): Filter {
  return async (s, next) => {
    if (s.isPublic) return next();
    const user = effectiveUser(s);
    if (!user) throw unauthorized();
    const attrs = authorizationAttributes(user, s.info);
    const r = await authorizer.authorize(attrs);
    s.audit?.authorized(r);
    if (r.decision !== 'allow') throw forbiddenError(attrs, r.reason);
    return next();
  };
}
