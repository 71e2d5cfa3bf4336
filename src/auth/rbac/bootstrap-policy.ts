// The roles Kubernetes bootstraps that matter here (system:discovery, system:basic-user,
// system:public-info-viewer, system:monitoring), plus our decision 8: every authenticated user may read
// ClusterTrustBundles (spec 1 and 5.2), so every service account may too.

import type { ClusterRole, ClusterRoleBinding, RbacPolicy } from './rbac-types.js';

const RBAC = 'rbac.authorization.k8s.io';

const role = (name: string, rules: ClusterRole['rules']): ClusterRole => ({ kind: 'ClusterRole', metadata: { name }, rules });

const bindToGroups = (name: string, groups: string[]): ClusterRoleBinding => ({
  kind: 'ClusterRoleBinding',
  metadata: { name },
  roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name },
  subjects: groups.map((g) => ({ kind: 'Group', apiGroup: RBAC, name: g })),
});

export const bootstrapClusterRoles: readonly ClusterRole[] = [
  role('system:discovery', [
    { verbs: ['get'], nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'] },
  ]),
  role('system:public-info-viewer', [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'] }]),
  // Metrics and every individual health check, for the system:monitoring group (as kube).
  role('system:monitoring', [
    { verbs: ['get'], nonResourceURLs: ['/metrics', '/metrics/slis', '/livez', '/readyz', '/healthz', '/livez/*', '/readyz/*', '/healthz/*'] },
  ]),
  role('system:basic-user', [
    { verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] },
    { verbs: ['create'], apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'] },
  ]),
  role('system:clustertrustbundle-reader', [
    { verbs: ['get', 'list', 'watch'], apiGroups: ['certificates.platform.io'], resources: ['clustertrustbundles'] },
  ]),
];

export const bootstrapClusterRoleBindings: readonly ClusterRoleBinding[] = [
  bindToGroups('system:discovery', ['system:authenticated']),
  bindToGroups('system:public-info-viewer', ['system:authenticated', 'system:unauthenticated']),
  bindToGroups('system:monitoring', ['system:monitoring']),
  bindToGroups('system:basic-user', ['system:authenticated']),
  bindToGroups('system:clustertrustbundle-reader', ['system:authenticated']),
];

/** The bootstrap policy merged under a user policy (user objects with the same name win). */
export function withBootstrapPolicy(user: RbacPolicy): RbacPolicy {
  const clusterRoles = new Map(bootstrapClusterRoles.map((r) => [r.metadata.name, r]));
  for (const [name, r] of user.clusterRoles) clusterRoles.set(name, r);
  const userBindingNames = new Set(user.clusterRoleBindings.map((b) => b.metadata.name));
  return {
    clusterRoles,
    roles: user.roles,
    clusterRoleBindings: [...bootstrapClusterRoleBindings.filter((b) => !userBindingNames.has(b.metadata.name)), ...user.clusterRoleBindings],
    roleBindings: user.roleBindings,
  };
}
