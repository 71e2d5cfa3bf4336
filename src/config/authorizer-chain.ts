// The server's authorization (buildAuthorization: the flags' chain, or --authorization-config's,
// followed as the file changes) and the authorizer chain as kube-apiserver 1.33 builds it: the
// privileged group `system:masters` first (always, uncounted), then each configured authorizer
// in order, each reporting its decisions under kube's type and name labels (`RBAC`/`rbac`, `Webhook`/`default` for the flags'
// webhook, or the names of --authorization-config). Webhook kubeconfigs are read here: a missing
// or broken one is a start-up (or reload) error, as in kube.

import type { Logger } from '../apimachinery/request-context.js';
import { instrumentedAuthorizer, type AuthorizationObserver } from '../auth/authorization-observer.js';
import type { Authorizer } from '../auth/authorizer.js';
import { alwaysAllowAuthorizer, alwaysDenyAuthorizer, nodeAuthorizer } from '../auth/builtin-authorizers.js';
import { privilegedGroupsAuthorizer, RbacAuthorizer, unionAuthorizer } from '../auth/rbac/rbac-authorizer.js';
import type { RbacPolicy } from '../auth/rbac/rbac-types.js';
import { WebhookAuthorizer } from '../auth/webhook/webhook-authorizer.js';
import { authorizersFromFlags, type AuthorizerSpec } from './authorization-config-file.js';
import { loadAuthorizationConfig } from './authorization-config-reloader.js';
import type { AuthorizationConfig } from './authorization-options.js';
import { loadWebhookTarget } from './webhook-kubeconfig.js';

const TRUST_BUNDLE_GROUP = 'certificates.platform.io';

export interface ChainInputs {
  authorizers: readonly AuthorizerSpec[];
  policy: () => RbacPolicy;
  observer: AuthorizationObserver;
  logger: Logger;
}

export interface Authorization {
  authorizer: Authorizer;
  /** With --authorization-config: '' while the file on disk is the one in force (the `authorization-config` readiness check). */
  configProblem?: () => string;
  close(): void;
}

/** The server's authorization: the flags' fixed chain, or the chain of --authorization-config, followed as the file changes. */
export async function buildAuthorization(config: AuthorizationConfig, i: Omit<ChainInputs, 'authorizers'>): Promise<Authorization> {
  const chainOf = (authorizers: AuthorizerSpec[]): Promise<AuthorizerChain> => buildAuthorizerChain({ ...i, authorizers });
  if (config.kind === 'modes') {
    const chain = await chainOf(authorizersFromFlags(config.modes, config.webhook));
    return { authorizer: chain, close: () => chain.close() };
  }
  const file = await loadAuthorizationConfig({ path: config.path, build: chainOf, logger: i.logger, onReload: (status) => i.observer.configReload(status) });
  return { authorizer: file.authorizer, configProblem: file.health, close: file.close };
}

/** A chain, and the release of what its webhooks hold (their kept-alive connections). */
export interface AuthorizerChain extends Authorizer {
  close(): void;
}

export async function buildAuthorizerChain(i: ChainInputs): Promise<AuthorizerChain> {
  const chain: Authorizer[] = [privilegedGroupsAuthorizer(['system:masters'])];
  const webhooks: WebhookAuthorizer[] = [];
  const close = (): void => webhooks.forEach((w) => w.close());
  try {
    for (const spec of i.authorizers) {
      const a = await authorizerFor(spec, i);
      if (a instanceof WebhookAuthorizer) webhooks.push(a);
      chain.push(instrumentedAuthorizer(spec.type, spec.name, a, i.observer));
    }
  } catch (err) {
    close(); // a later authorizer failed (a broken kubeconfig): the earlier webhooks are let go
    throw err;
  }
  return { ...unionAuthorizer(chain), close };
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
      // The CEL evaluator is loaded only for webhooks that have match conditions.
      const cel = w.matchConditions.length ? await import('../auth/webhook/match-conditions.js') : undefined;
      const compiled = cel ? w.matchConditions.map((expression, k) => ({ expression, program: w.compiledConditions?.[k] ?? cel.compileMatchCondition(expression) })) : [];
      return new WebhookAuthorizer({
        name: spec.name,
        target: await loadWebhookTarget(w.connection.kind === 'kubeconfig' ? w.connection.path : { inCluster: true }),
        version: w.version,
        authorizedTtlMs: w.authorizedTtlMs,
        unauthorizedTtlMs: w.unauthorizedTtlMs,
        timeoutMs: w.timeoutMs,
        failurePolicy: w.failurePolicy,
        ...(cel ? { matches: cel.matchConditions(compiled, spec.name, i.observer) } : {}),
        observer: i.observer,
        logger: i.logger,
      });
    }
  }
}
