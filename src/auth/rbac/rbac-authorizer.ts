// Kubernetes RBAC: additive rules from ClusterRoleBindings, and from RoleBindings in the
// request's namespace. It allows or has no opinion; it never denies.

import type { UserInfo } from '../../apimachinery/request-context.js';
import { ALL_RULES, type AuthorizationAttributes, type AuthorizationResult, type Authorizer, type UserRules } from '../authorizer.js';
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

  async rulesFor(user: UserInfo, namespace: string): Promise<UserRules> {
    const policy = this.policy();
    const rules: PolicyRule[] = [];
    for (const b of policy.clusterRoleBindings) {
      if ((b.subjects ?? []).some((s) => subjectMatches(s, user, ''))) rules.push(...rulesFor(policy, b.roleRef, ''));
    }
    for (const b of policy.roleBindings) {
      const ns = b.metadata.namespace ?? '';
      if (ns === namespace && (b.subjects ?? []).some((s) => subjectMatches(s, user, ns))) rules.push(...rulesFor(policy, b.roleRef, ns));
    }
    return toUserRules(rules);
  }
}

function toUserRules(rules: PolicyRule[]): UserRules {
  const out: UserRules = { resourceRules: [], nonResourceRules: [], incomplete: false };
  for (const r of rules) {
    if (r.nonResourceURLs?.length) out.nonResourceRules.push({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs });
    if (r.resources?.length) {
      const rule: UserRules['resourceRules'][number] = { verbs: r.verbs, apiGroups: r.apiGroups ?? [], resources: r.resources };
      if (r.resourceNames?.length) rule.resourceNames = r.resourceNames;
      out.resourceRules.push(rule);
    }
  }
  return out;
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
  const member = (user: UserInfo): boolean => user.groups.some((g) => groups.includes(g));
  return {
    async authorize(attrs) {
      return member(attrs.user) ? { decision: 'allow', reason: '' } : { decision: 'no-opinion', reason: '' };
    },
    async rulesFor(user) {
      return member(user) ? ALL_RULES : { resourceRules: [], nonResourceRules: [], incomplete: false };
    },
  };
}

/**
 * Asks each authorizer in turn; the first allow or deny decides (kube's union authorizer). The
 * reasons and evaluation errors of the ones without an opinion are carried to the end, joined.
 */
export function unionAuthorizer(authorizers: readonly Authorizer[]): Authorizer {
  return {
    async authorize(attrs) {
      const reasons: string[] = [];
      const errors: string[] = [];
      for (const a of authorizers) {
        const r = await a.authorize(attrs);
        if (r.error) errors.push(r.error);
        if (r.decision !== 'no-opinion') return r;
        if (r.reason) reasons.push(r.reason);
      }
      const out: AuthorizationResult = { decision: 'no-opinion', reason: reasons.join('\n') };
      // apimachinery's aggregate error: one error as itself, several as `[e1, e2]`.
      if (errors.length) out.error = errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`;
      return out;
    },
    async rulesFor(user, namespace) {
      const all = await Promise.all(authorizers.map((a) => a.rulesFor(user, namespace)));
      const errors = all.flatMap((r) => (r.evaluationError ? [r.evaluationError] : []));
      const out: UserRules = {
        resourceRules: all.flatMap((r) => r.resourceRules),
        nonResourceRules: all.flatMap((r) => r.nonResourceRules),
        incomplete: all.some((r) => r.incomplete),
      };
      if (errors.length) out.evaluationError = errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`;
      return out;
    },
  };
}
