// Builds the authenticators for identities from outside: the JWT issuers (from the --oidc-*
// flags, converted to one structured JWT authenticator as kube 1.33 does, or from
// --authentication-config) and the token webhook. Their modules (jose, the CEL evaluator) are
// imported only when configured, so a server without them starts as fast as before.
// --oidc-ca-file (oidc-ca-file.ts) and --authentication-config are followed as they change, both
// through the one file follower (file-follow.ts).

import { readFileSync } from 'node:fs';
import type { Logger } from '../apimachinery/request-context.js';
import type { Authenticator } from '../auth/authenticator.js';
import type { HealthCheck } from '../http/routes/health.js';
import type { AuthnMetrics } from '../metrics/authn-metrics.js';
import type { ServerConfig } from './flags.js';
import { followFiles } from './file-follow.js';
import { watchOidcCAFile } from './oidc-ca-file.js';

export interface ExternalAuthenticators {
  /** In kube's order: JWT issuers, then the token webhook. */
  authenticators: Authenticator[];
  /**
   * Readiness checks that fail while a followed file on disk is broken: `authentication-config-file`
   * (--authentication-config) or `oidc-ca-file` (--oidc-ca-file).
   */
  healthChecks: HealthCheck[];
  close(): void;
}

export class AuthenticationSetupError extends Error {
  override name = 'AuthenticationSetupError';
}

export async function buildExternalAuthenticators(config: ServerConfig, logger: Logger, metrics: AuthnMetrics): Promise<ExternalAuthenticators> {
  const closers: (() => void)[] = [];
  try {
    const out = await build(config, logger, metrics, closers);
    out.close = () => closers.forEach((c) => c());
    return out;
  } catch (err) {
    // A later authenticator failed (a broken webhook kubeconfig): the issuers and watches started before stop.
    closers.forEach((c) => c());
    throw err;
  }
}

async function build(config: ServerConfig, logger: Logger, metrics: AuthnMetrics, closers: (() => void)[]): Promise<ExternalAuthenticators> {
  const a = config.authentication;
  const out: ExternalAuthenticators = { authenticators: [], healthChecks: [], close: () => undefined };
  const jwtLogger = logger.child({ component: 'jwt-authenticator' });
  if (a.oidc) {
    const { oidcFlagsToJwtAuthenticator, validateJwtAuthenticator, ALL_SIGNING_ALGS, FieldPath } = await import('../auth/jwt/jwt-config.js');
    const { aggregateFieldErrors } = await import('../apimachinery/field-error.js');
    const { JwtAuthenticators } = await import('../auth/jwt/jwt-authenticators.js');
    for (const alg of a.oidc.signingAlgs) {
      if (!(ALL_SIGNING_ALGS as readonly string[]).includes(alg)) throw new AuthenticationSetupError(`oidc: unsupported signing alg: "${alg}"`);
    }
    let caPem: string | undefined;
    try {
      caPem = a.oidc.caFile ? readFileSync(a.oidc.caFile, 'utf8') : undefined;
    } catch (err) {
      throw new AuthenticationSetupError(`--oidc-ca-file: ${(err as Error).message}`);
    }
    const spec = oidcFlagsToJwtAuthenticator({ ...a.oidc, caPem });
    const { rules, errors } = validateJwtAuthenticator(spec, FieldPath.root(''), config.serviceAccountIssuers);
    if (errors.length) throw new AuthenticationSetupError(aggregateFieldErrors(errors));
    const jwt = new JwtAuthenticators({ logger: jwtLogger, observer: metrics.jwt, signingAlgs: a.oidc.signingAlgs }, [{ spec, rules }]);
    out.authenticators.push(jwt);
    closers.push(() => jwt.close());
    if (a.oidc.caFile) {
      // Followed as it changes (a rotated issuer CA); a broken new file fails /readyz, not the server.
      const ca = watchOidcCAFile({ path: a.oidc.caFile, initial: caPem ?? '', apply: (pem) => jwt.setCertificateAuthority(pem), logger: jwtLogger });
      out.healthChecks.push({ name: 'oidc-ca-file', check: () => ca.problem() || undefined });
      closers.push(() => ca.close());
    }
  } else if (a.authenticationConfigFile) {
    const path = a.authenticationConfigFile;
    const { loadAuthenticationConfigSource } = await import('../auth/jwt/jwt-authenticators.js');
    let source: ReturnType<typeof loadAuthenticationConfigSource>;
    try {
      source = loadAuthenticationConfigSource(path, config.serviceAccountIssuers, {
        logger: jwtLogger,
        observer: metrics.jwt,
        changes: (onChange) => followFiles({ paths: [path], onChange }),
      });
    } catch (err) {
      throw new AuthenticationSetupError(`failed to load authentication configuration from file "${path}": ${(err as Error).message}`);
    }
    out.authenticators.push(source.authenticator);
    out.healthChecks.push({ name: 'authentication-config-file', check: () => source.health() || undefined });
    closers.push(() => source.close());
  }
  if (a.tokenWebhook) {
    const { loadWebhookKubeconfig } = await import('../auth/webhook/webhook-kubeconfig.js');
    const { TokenWebhookAuthenticator } = await import('../auth/webhook/token-webhook-authenticator.js');
    let connection: ReturnType<typeof loadWebhookKubeconfig>;
    try {
      connection = loadWebhookKubeconfig(a.tokenWebhook.configFile);
    } catch (err) {
      throw new AuthenticationSetupError(`--authentication-token-webhook-config-file: ${(err as Error).message}`);
    }
    const webhook = new TokenWebhookAuthenticator({
      connection,
      version: a.tokenWebhook.version,
      cacheTtlMs: a.tokenWebhook.cacheTtlMs,
      audiences: config.apiAudiences,
      logger: logger.child({ component: 'token-webhook' }),
      observer: metrics.webhook,
    });
    out.authenticators.push(webhook);
    closers.push(() => webhook.close());
  }
  return out;
}
