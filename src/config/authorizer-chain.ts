// The authorizer chain as kube-apiserver 1.33 builds it: the privileged group `system:masters`
// first (always, uncounted), then each configured authorizer in order, each reporting its
// decisions under kube's type and name labels (`RBAC`/`rbac`, `Webhook`/`default` for the flags'
// webhook, or the names of --authorization-config). Webhook kubeconfigs are read here: a missing
// or broken one is a start-up (or reload) error, as in kube.

import type { Logger } from '../apimachinery/request-context.js';
import { instrumentedAuthorizer, type AuthorizationObserver } from '../auth/authorization-observer.js';
import type { Authorizer } from '../auth/authorizer.js';
import { alwaysAllowAuthorizer, alwaysDenyAuthorizer, nodeAuthorizer } from '../auth/builtin-authorizers.js';
import { privilegedGroupsAuthorizer, RbacAuthorizer, unionAuthorizer } from '../auth/rbac/rbac-authorizer.js';
import type { RbacPolicy } from '../auth/rbac/rbac-types.js';
import { WebhookAuthorizer } from '../auth/webhook/webhook-authorizer.js';
import { compileMatchCondition, matchConditions } from '../auth/webhook/match-conditions.js';
import type { AuthorizerSpec } from './authorization-config-file.js';
import { loadWebhookTarget } from './webhook-kubeconfig.js';

const TRUST_BUNDLE_GROUP = 'certificates.platform.io';

export interface ChainInputs {
  authorizers: readonly AuthorizerSpec[];
  policy: () => RbacPolicy;
  observer: AuthorizationObserver;
  logger: Logger;
}

export async function buildAuthorizerChain(i: ChainInputs): Promise<Authorizer> {
  const chain: Authorizer[] = [privilegedGroupsAuthorizer(['system:masters'])];
  for (const spec of i.authorizers) chain.push(instrumentedAuthorizer(spec.type, spec.name, await authorizerFor(spec, i), i.observer));
  return unionAuthorizer(chain);
}

async function authorizerFor(spec: AuthorizerSpec, i: ChainInputs): Promise<Authorizer> {
  switch (spec.type) {
    case 'RBAC':
      return new RbacAuthorizer(i.policy);
    case 'AlwaysAllow':
      return alwaysAllowAuthorizer;
    case 'AlwaysDeny':
      return alwaysDenyAuthorizer;
    case 'Node':
      return nodeAuthorizer(TRUST_BUNDLE_GROUP);
    case 'Webhook': {
      const w = spec.webhook!;
      const compiled = w.matchConditions.map((expression) => ({ expression, program: compileMatchCondition(expression) }));
      return new WebhookAuthorizer({
        name: spec.name,
        target: await loadWebhookTarget(w.connection.kind === 'kubeconfig' ? w.connection.path : { inCluster: true }),
        version: w.version,
        authorizedTtlMs: w.authorizedTtlMs,
        unauthorizedTtlMs: w.unauthorizedTtlMs,
        timeoutMs: w.timeoutMs,
        failurePolicy: w.failurePolicy,
        ...(compiled.length ? { matches: matchConditions(compiled, spec.name, i.observer) } : {}),
        observer: i.observer,
        logger: i.logger,
      });
    }
  }
}
