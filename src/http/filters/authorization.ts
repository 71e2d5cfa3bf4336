// Filter: authorization (kube's WithAuthorization). May the acting user do this verb on this
// resource or path? 403 otherwise; 500 when no authorizer allowed it and one of them failed
// (a webhook down), as kube answers. Public paths skip it. The decision goes to the audit trail.

import type { RequestInfo, UserInfo } from '../../apimachinery/request-context.js';
import type { AuthorizationAttributes, Authorizer } from '../../auth/authorizer.js';
import { internal, unauthorized } from '../../apimachinery/status-error.js';
import { forbiddenError } from '../../auth/forbidden-error.js';
import { effectiveUser, filter, type Filter, type RequestState } from './filter.js';

/** Verbs whose selectors narrow what is asked (kube's RequestInfo keeps them for these). */
const SELECTING_VERBS = new Set(['list', 'watch', 'deletecollection']);

export function authorizationAttributes(user: UserInfo, info: RequestInfo, query?: URLSearchParams): AuthorizationAttributes {
  const attrs: AuthorizationAttributes = {
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
  if (query && info.isResourceRequest && SELECTING_VERBS.has(info.verb)) {
    const fieldSelector = query.get('fieldSelector');
    const labelSelector = query.get('labelSelector');
    if (fieldSelector) attrs.fieldSelector = fieldSelector;
    if (labelSelector) attrs.labelSelector = labelSelector;
  }
  return attrs;
}

export function authorizationFilter(authorizer: Authorizer): Filter {
  return filter({
    enter(s) {
      if (s.isPublic) return;
      const user = effectiveUser(s);
      if (!user) throw unauthorized();
      return authorize(authorizer, s, authorizationAttributes(user, s.info, s.query));
    },
  });
}

async function authorize(authorizer: Authorizer, s: RequestState, attrs: AuthorizationAttributes): Promise<void> {
  const r = await authorizer.authorize(attrs);
  s.audit?.authorized(r);
  // An allow stands even beside an evaluation error (kube checks the decision first).
  if (r.decision === 'allow') return;
  if (r.error) throw internal(r.error);
  throw forbiddenError(attrs, r.reason);
}
