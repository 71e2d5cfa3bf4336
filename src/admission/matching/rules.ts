// Whether a request matches admission rules (kube's predicates/rules and the policy matcher):
// scope, operation, group, version and resource/subresource, with resource names for policies
// and matchPolicy Equivalent looking at the other versions of the same resource. Every kind here
// is served at one version, so a resource has no equivalents besides itself.

import type { AdmissionAttributes } from '../../apimachinery/admission.js';
import type { NamedRuleWithOperations, RuleWithOperations } from '../../resources/admissionregistration/types.js';

const exactOrWildcard = (items: readonly string[] | undefined, requested: string): boolean => (items ?? []).some((i) => i === '*' || i === requested);

export function ruleMatches(rule: RuleWithOperations, a: AdmissionAttributes): boolean {
  const scope = rule.scope ?? '*';
  const clusterScoped = a.namespace === '' || a.resource === 'namespaces';
  if (scope === 'Namespaced' && clusterScoped) return false;
  if (scope === 'Cluster' && !clusterScoped) return false;
  if (scope !== '*' && scope !== 'Namespaced' && scope !== 'Cluster') return false;
  if (!(rule.operations ?? []).some((op) => op === '*' || op === a.operation)) return false;
  if (!exactOrWildcard(rule.apiGroups, a.group) || !exactOrWildcard(rule.apiVersions, a.version)) return false;
  return (rule.resources ?? []).some((resSub) => {
    const slash = resSub.indexOf('/');
    const [res, sub] = slash < 0 ? [resSub, ''] : [resSub.slice(0, slash), resSub.slice(slash + 1)];
    return (res === '*' || res === a.resource) && (sub === '*' || sub === a.subresource);
  });
}

/** A policy's (named) rules: the rule matches and, when it names objects, the request's name is one. */
export function namedRulesMatch(rules: readonly NamedRuleWithOperations[] | undefined, a: AdmissionAttributes): boolean {
  return (rules ?? []).some((r) => ruleMatches(r, a) && (!r.resourceNames?.length || r.resourceNames.includes(a.name)));
}

const EXEMPT_KINDS = new Set(['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding', 'MutatingAdmissionPolicy', 'MutatingAdmissionPolicyBinding']);

/** Webhooks never see writes of admission configuration (kube's IsExemptAdmissionConfigurationResource). */
export const isWebhookExempt = (a: AdmissionAttributes): boolean => a.group === 'admissionregistration.k8s.io' && EXEMPT_KINDS.has(a.kind);

const POLICY_RESOURCES = new Set(['validatingadmissionpolicies', 'validatingadmissionpolicybindings', 'mutatingadmissionpolicies', 'mutatingadmissionpolicybindings']);

/** Policies never see writes of policies and bindings (a policy could lock itself in place). */
export const isPolicyExempt = (a: AdmissionAttributes): boolean => a.group === 'admissionregistration.k8s.io' && POLICY_RESOURCES.has(a.resource);
