// kube-apiserver's 403 for a denied authorization: `<resource>.<group> "<name>" is forbidden:
// User "alice" cannot create resource "x" in API group "g" at the cluster scope[: reason]`.

import { forbidden, forbiddenPath, type StatusError } from '../apimachinery/status-error.js';
import type { AuthorizationAttributes } from './authorizer.js';

export function forbiddenMessage(attrs: AuthorizationAttributes): string {
  const who = `User ${JSON.stringify(attrs.user.username)}`;
  if (!attrs.isResourceRequest) return `${who} cannot ${attrs.verb} path ${JSON.stringify(attrs.path)}`;
  const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  const scope = attrs.namespace ? `in the namespace ${JSON.stringify(attrs.namespace)}` : 'at the cluster scope';
  return `${who} cannot ${attrs.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(attrs.apiGroup)} ${scope}`;
}

export function forbiddenError(attrs: AuthorizationAttributes, reason: string): StatusError {
  const why = reason ? `${forbiddenMessage(attrs)}: ${reason}` : forbiddenMessage(attrs);
  if (!attrs.isResourceRequest) return forbiddenPath(why);
  return forbidden({ group: attrs.apiGroup, resource: attrs.resource }, attrs.name, why);
}
