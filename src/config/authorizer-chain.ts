// The authorizer chain as kube-apiserver 1.33 builds it: the privileged group `system:masters`
// first (always, uncounted), then each configured authorizer in order, each reporting its
// decisions under kube's type and name labels (`RBAC`/`rbac`, `Webhook`/`default` for the flags'
// webhook, …). The webhook's kubeconfig is read here, at start: a missing or broken one is a
// start-up error, as in kube.

import type { Logger } from '../apimachinery/request-context.js';
import { instrumentedAuthorizer, type AuthorizationObserver } from '../auth/authorization-observer.js';
import type { Authorizer } from '../auth/authorizer.js';
import { alwaysAllowAuthorizer, alwaysDenyAuthorizer, nodeAuthorizer } from '../auth/builtin-authorizers.js';
import { privilegedGroupsAuthorizer, RbacAuthorizer, unionAuthorizer } from '../auth/rbac/rbac-authorizer.js';
import type { RbacPolicy } from '../auth/rbac/rbac-types.js';
import { WebhookAuthorizer } from '../auth/webhook/webhook-authorizer.js';
import type { AuthorizationMode, WebhookFlags } from './authorization-options.js';
import { loadWebhookTarget } from './webhook-kubeconfig.js';

/** The flags' webhook: 30 s per call and failures without an opinion, as kube sets them. */
const FLAG_WEBHOOK_TIMEOUT_MS = 30_000;
const FLAG_WEBHOOK_NAME = 'default';
const TRUST_BUNDLE_GROUP = 'certificates.platform.io';

export interface ChainInputs {
  modes: readonly AuthorizationMode[];
  webhook?: WebhookFlags;
  policy: () => RbacPolicy;
  observer: AuthorizationObserver;
  logger: Logger;
}

export async function buildAuthorizerChain(i: ChainInputs): Promise<Authorizer> {
  const chain: Authorizer[] = [privilegedGroupsAuthorizer(['system:masters'])];
  for (const mode of i.modes) {
    const name = mode === 'Webhook' ? FLAG_WEBHOOK_NAME : mode.toLowerCase();
    chain.push(instrumentedAuthorizer(mode, name, await authorizerFor(mode, i), i.observer));
  }
  return unionAuthorizer(chain);
}

async function authorizerFor(mode: AuthorizationMode, i: ChainInputs): Promise<Authorizer> {
  switch (mode) {
    case 'RBAC':
      return new RbacAuthorizer(i.policy);
    case 'AlwaysAllow':
      return alwaysAllowAuthorizer;
    case 'AlwaysDeny':
      return alwaysDenyAuthorizer;
    case 'Node':
      return nodeAuthorizer(TRUST_BUNDLE_GROUP);
    case 'Webhook': {
      const w = i.webhook!;
      return new WebhookAuthorizer({
        name: FLAG_WEBHOOK_NAME,
        target: await loadWebhookTarget(w.configFile),
        version: w.version,
        authorizedTtlMs: w.authorizedTtlMs,
        unauthorizedTtlMs: w.unauthorizedTtlMs,
        timeoutMs: FLAG_WEBHOOK_TIMEOUT_MS,
        failurePolicy: 'NoOpinion',
        observer: i.observer,
        logger: i.logger,
      });
    }
  }
}
