// kube-apiserver's built-in authorization modes besides RBAC and Webhook: AlwaysAllow,
// AlwaysDeny (no opinion with the reason "Everything is forbidden.", so only the privileged
// group that precedes every chain gets through) and Node (a kubelet's own identity,
// `system:node:<name>` in `system:nodes`, may read ClusterTrustBundles, as kube's node rules let
// it for the pemTrustAnchors volume; it has no opinion on anything else here).

import type { UserInfo } from '../apimachinery/request-context.js';
import { ALL_RULES, type Authorizer, type UserRules } from './authorizer.js';

const NO_RULES: UserRules = { resourceRules: [], nonResourceRules: [], incomplete: false };

export const alwaysAllowAuthorizer: Authorizer = {
  async authorize() {
    return { decision: 'allow', reason: '' };
  },
  async rulesFor() {
    return ALL_RULES;
  },
};

export const alwaysDenyAuthorizer: Authorizer = {
  async authorize() {
    return { decision: 'no-opinion', reason: 'Everything is forbidden.' };
  },
  async rulesFor() {
    return NO_RULES;
  },
};

const NODE_PREFIX = 'system:node:';
const NODES_GROUP = 'system:nodes';
const TRUST_BUNDLE_READ = ['get', 'list', 'watch'];

/** The node name of a kubelet's identity, or undefined when the user is no node (kube's NodeIdentity). */
function nodeIdentity(user: UserInfo): string | undefined {
  if (!user.username.startsWith(NODE_PREFIX) || !user.groups.includes(NODES_GROUP)) return undefined;
  return user.username.slice(NODE_PREFIX.length);
}

/** The Node mode; `trustBundleGroup` is the API group ClusterTrustBundles are served in. */
export function nodeAuthorizer(trustBundleGroup: string): Authorizer {
  return {
    async authorize(attrs) {
      const node = nodeIdentity(attrs.user);
      if (node === undefined) return { decision: 'no-opinion', reason: '' };
      if (node === '') return { decision: 'no-opinion', reason: 'unknown node' };
      const readsBundles = attrs.isResourceRequest && attrs.apiGroup === trustBundleGroup && attrs.resource === 'clustertrustbundles' && !attrs.subresource && TRUST_BUNDLE_READ.includes(attrs.verb);
      return readsBundles ? { decision: 'allow', reason: '' } : { decision: 'no-opinion', reason: '' };
    },
    // kube's node authorizer lists no rules for rule reviews.
    async rulesFor() {
      return NO_RULES;
    },
  };
}
