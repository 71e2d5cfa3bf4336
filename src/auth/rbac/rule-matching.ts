// Kubernetes RBAC's rule and subject matching (rbac/v1 evaluation helpers), as pure functions.

import type { UserInfo } from '../../apimachinery/request-context.js';
import type { AuthorizationAttributes } from '../authorizer.js';
import type { PolicyRule, Subject } from './rbac-types.js';

const ALL = '*';

const verbMatches = (rule: PolicyRule, verb: string): boolean => rule.verbs.some((v) => v === ALL || v === verb);

const apiGroupMatches = (rule: PolicyRule, group: string): boolean => (rule.apiGroups ?? []).some((g) => g === ALL || g === group);

/** `*`, the exact `resource[/subresource]`, or `*\/subresource`. */
function resourceMatches(rule: PolicyRule, resource: string, subresource: string): boolean {
  const combined = subresource ? `${resource}/${subresource}` : resource;
  return (rule.resources ?? []).some((r) => r === ALL || r === combined || (subresource !== '' && r === `*/${subresource}`));
}

/**
 * An empty list allows any name; otherwise the request's name must be one of them, compared as
 * kube compares it: an unnamed request (a list, a create) matches only a listed empty name.
 */
const resourceNameMatches = (rule: PolicyRule, name: string): boolean => !rule.resourceNames?.length || rule.resourceNames.includes(name);

/** `*`, an exact path, or a prefix rule ending in `*` (every trailing `*` trimmed, as Go's TrimRight does). */
const nonResourceURLMatches = (rule: PolicyRule, path: string): boolean =>
  (rule.nonResourceURLs ?? []).some(
    (u) =>
      // Stryker disable next-line ConditionalExpression: `*` is also the prefix rule with an empty prefix; kept to read as kube's check reads
      u === ALL ||
      u === path ||
      (u.endsWith('*') && path.startsWith(u.replace(/\*+$/, ''))),
  );

export function ruleAllows(attrs: AuthorizationAttributes, rule: PolicyRule): boolean {
  if (!verbMatches(rule, attrs.verb)) return false;
  if (!attrs.isResourceRequest) return nonResourceURLMatches(rule, attrs.path);
  return (
    apiGroupMatches(rule, attrs.apiGroup) &&
    resourceMatches(rule, attrs.resource, attrs.subresource) &&
    resourceNameMatches(rule, attrs.name)
  );
}

/** `bindingNamespace` defaults a ServiceAccount subject's namespace in RoleBindings. */
export function subjectMatches(subject: Subject, user: UserInfo, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return user.username === subject.name;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const namespace = subject.namespace || bindingNamespace;
      return namespace !== '' && user.username === `system:serviceaccount:${namespace}:${subject.name}`;
    }
    default:
      return false;
  }
}

/** How RBAC names a subject in its "allowed by" reason. */
export function describeSubject(subject: Subject): string {
  return subject.kind === 'ServiceAccount' ? `ServiceAccount "${subject.namespace ?? ''}/${subject.name}"` : `${subject.kind} "${subject.name}"`;
}
