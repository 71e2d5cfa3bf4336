// Kubernetes RBAC: additive rules from ClusterRoleBindings, and from RoleBindings in the
// request's namespace. It allows or has no opinion; it never denies.

import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from '../authorizer.js';
import type { PolicyRule, RbacPolicy, RoleRef, Subject } from './rbac-types.js';
import { describeSubject, ruleAllows, subjectMatches } from './rule-matching.js';

export class RbacAuthorizer implements Authorizer {
  /** `policy` is read on every call, so a reload takes effect at once. */
  constructor(private readonly policy: () => RbacPolicy) {}

  async authorize(attrs: AuthorizationAttributes): Promise<AuthorizationResult> {
    const policy = this.policy();
    for (const binding of policy.clusterRoleBindings) {
      const subject = (binding.subjects ?? []).find((s) => subjectMatches(s, attrs.user, ''));
      if (!subject) continue;
      if (rulesFor(policy, binding.roleRef, '').some((rule) => ruleAllows(attrs, rule))) {
        return allowed('ClusterRoleBinding', binding.metadata.name, binding.roleRef, subject);
      }
    }
    if (attrs.namespace) {
      for (const binding of policy.roleBindings) {
        const namespace = binding.metadata.namespace ?? '';
        if (namespace !== attrs.namespace) continue;
        const subject = (binding.subjects ?? []).find((s) => subjectMatches(s, attrs.user, namespace));
        if (!subject) continue;
        if (rulesFor(policy, binding.roleRef, namespace).some((rule) => ruleAllows(attrs, rule))) {
          return allowed(`RoleBinding`, `${binding.metadata.name}/${namespace}`, binding.roleRef, subject);
        }
      }
    }
    return { decision: 'no-opinion', reason: '' };
  }
}

function rulesFor(policy: RbacPolicy, ref: RoleRef, namespace: string): PolicyRule[] {
  if (ref.kind === 'ClusterRole') return policy.clusterRoles.get(ref.name)?.rules ?? [];
  return namespace ? (policy.roles.get(`${namespace}/${ref.name}`)?.rules ?? []) : [];
}

function allowed(bindingKind: string, bindingName: string, ref: RoleRef, subject: Subject): AuthorizationResult {
  return {
    decision: 'allow',
    reason: `RBAC: allowed by ${bindingKind} "${bindingName}" of ${ref.kind} "${ref.name}" to ${describeSubject(subject)}`,
  };
}

/** kube-apiserver's privileged-group authorizer: members of these groups may do anything. */
export function privilegedGroupsAuthorizer(groups: readonly string[]): Authorizer {
  return {
    async authorize(attrs) {
      return attrs.user.groups.some((g) => groups.includes(g)) ? { decision: 'allow', reason: '' } : { decision: 'no-opinion', reason: '' };
    },
  };
}

/** Asks each authorizer in turn; the first allow or deny decides (kube's union authorizer). */
export function unionAuthorizer(authorizers: readonly Authorizer[]): Authorizer {
  return {
    async authorize(attrs) {
      const reasons: string[] = [];
      for (const a of authorizers) {
        const r = await a.authorize(attrs);
        if (r.decision !== 'no-opinion') return r;
        if (r.reason) reasons.push(r.reason);
      }
      return { decision: 'no-opinion', reason: reasons.join('\n') };
    },
  };
}
