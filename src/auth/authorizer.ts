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
}

export type Decision = 'allow' | 'deny' | 'no-opinion';

export interface AuthorizationResult {
  decision: Decision;
  reason: string;
}

export interface Authorizer {
  authorize(attrs: AuthorizationAttributes): Promise<AuthorizationResult>;
}

/** Every authenticated user may do everything (until RBAC lands). */
export const allowAllAuthorizer: Authorizer = {
  async authorize() {
    return { decision: 'allow', reason: '' };
  },
};
