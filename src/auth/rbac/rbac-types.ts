// rbac.authorization.k8s.io/v1 policy objects, as read from the policy file.

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface Subject {
  kind: 'User' | 'Group' | 'ServiceAccount';
  name: string;
  namespace?: string;
  apiGroup?: string;
}

export interface RoleRef {
  apiGroup: string;
  kind: 'ClusterRole' | 'Role';
  name: string;
}

interface Named {
  metadata: { name: string; namespace?: string };
}

export interface ClusterRole extends Named {
  kind: 'ClusterRole';
  rules: PolicyRule[];
}
export interface Role extends Named {
  kind: 'Role';
  rules: PolicyRule[];
}
export interface ClusterRoleBinding extends Named {
  kind: 'ClusterRoleBinding';
  roleRef: RoleRef;
  subjects?: Subject[];
}
export interface RoleBinding extends Named {
  kind: 'RoleBinding';
  roleRef: RoleRef;
  subjects?: Subject[];
}

/** Everything the authorizer evaluates, indexed for lookup. */
export interface RbacPolicy {
  clusterRoles: Map<string, ClusterRole>;
  /** Keyed `<namespace>/<name>`. */
  roles: Map<string, Role>;
  clusterRoleBindings: ClusterRoleBinding[];
  roleBindings: RoleBinding[];
}

export const emptyPolicy = (): RbacPolicy => ({ clusterRoles: new Map(), roles: new Map(), clusterRoleBindings: [], roleBindings: [] });
