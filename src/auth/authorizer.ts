// Authorization contract (kube's authorizer.Authorizer): allow, deny, or no opinion, with a reason.

import type { UserInfo } from '../apimachinery/request-context.js';

export interface AuthorizationAttributes {
  user: UserInfo;
  verb: string;
  isResourceRequest: boolean;
  /** Non-resource requests. */
  path: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  /** The request's raw `fieldSelector` / `labelSelector` (list, watch, deletecollection), as kube's AuthorizeWithSelectors passes them on. */
  fieldSelector?: string;
  labelSelector?: string;
}

export type Decision = 'allow' | 'deny' | 'no-opinion';

export interface AuthorizationResult {
  decision: Decision;
  reason: string;
  /**
   * Why the authorizer could not decide (a webhook down, answering garbage): kube's evaluation
   * error. A request that no authorizer allowed and that carries one is answered 500, not 403;
   * SubjectAccessReview reports it as `status.evaluationError`.
   */
  error?: string;
}

/** What a user may do, as SelfSubjectRulesReview reports it. */
export interface UserRules {
  resourceRules: { verbs: string[]; apiGroups?: string[]; resources?: string[]; resourceNames?: string[] }[];
  nonResourceRules: { verbs: string[]; nonResourceURLs?: string[] }[];
  incomplete: boolean;
  /** Why the list is incomplete (a webhook cannot list rules), as kube reports it. */
  evaluationError?: string;
}

export interface Authorizer {
  authorize(attrs: AuthorizationAttributes): Promise<AuthorizationResult>;
  /** The rules that apply to `user` in `namespace` (cluster-wide rules included). */
  rulesFor(user: UserInfo, namespace: string): Promise<UserRules>;
}

export const ALL_RULES: UserRules = {
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
  incomplete: false,
};

