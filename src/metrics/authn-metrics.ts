// Metrics of the JWT authenticators, the authentication configuration file and the token
// webhook, under kube-apiserver's names: apiserver_authentication_jwt_authenticator_latency_seconds
// (per issuer, by the SHA-256 of its URL as kube labels it), apiserver_authentication_config_
// controller_automatic_reload{s_total,_last_timestamp_seconds}, the webhook's token cache
// (authentication_token_cache_*) and the webhook exchanges themselves under the names kube's
// webhook authenticator records them with (apiserver_delegated_authn_request_{total,duration_seconds}).

import { createHash } from 'node:crypto';
import { Counter, Histogram, type Registry } from 'prom-client';
import { configReloadMetrics } from './config-reload-metrics.js';
import type { AuthenticationConfigObserver } from '../auth/jwt/jwt-authenticators.js';
import type { TokenWebhookObserver } from '../auth/webhook/token-webhook-authenticator.js';

/** kube's label value for an issuer or server identity: "sha256:<hex>". */
export const hashLabel = (s: string): string => (s ? `sha256:${createHash('sha256').update(s).digest('hex')}` : '');

export interface AuthnMetrics {
  jwt: AuthenticationConfigObserver;
  webhook: TokenWebhookObserver;
}

/** `apiserverIdHash`: the server's identity as the reload metrics label it (hashLabel of it). */
export function createAuthnMetrics(registry: Registry, apiserverIdHash: string): AuthnMetrics {
  const registers = [registry];
  const jwtLatency = new Histogram({
    name: 'apiserver_authentication_jwt_authenticator_latency_seconds',
    help: 'Latency of jwt authentication operations in seconds. This is the time spent authenticating a token for cache miss only (i.e. when the token is not found in the cache).',
    labelNames: ['result', 'jwt_issuer_hash'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const configReload = configReloadMetrics(registry, 'authentication', apiserverIdHash);
  const cacheRequests = new Counter({ name: 'authentication_token_cache_request_total', help: 'Token cache lookups of the token webhook, by hit or miss.', labelNames: ['status'], registers });
  const cacheDuration = new Histogram({
    name: 'authentication_token_cache_request_duration_seconds',
    help: 'Duration of token authentications through the token webhook cache, by hit or miss.',
    labelNames: ['status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  const fetches = new Counter({ name: 'authentication_token_cache_fetch_total', help: 'Token webhook reviews made on cache misses, by outcome (ok or error).', labelNames: ['status'], registers });
  const webhookRequests = new Counter({ name: 'apiserver_delegated_authn_request_total', help: 'Number of HTTP requests partitioned by status code.', labelNames: ['code'], registers });
  const webhookLatency = new Histogram({
    name: 'apiserver_delegated_authn_request_duration_seconds',
    help: 'Request latency in seconds. Broken down by status code.',
    labelNames: ['code'],
    buckets: [0.25, 0.5, 0.7, 1, 1.5, 3, 5, 10],
    registers,
  });
  const issuerHashes = new Map<string, string>();
  const issuerHash = (issuer: string): string => {
    let h = issuerHashes.get(issuer);
    if (!h) issuerHashes.set(issuer, (h = hashLabel(issuer)));
    return h;
  };
  return {
    jwt: {
      attempt: (issuer, result, seconds) => jwtLatency.observe({ result, jwt_issuer_hash: issuerHash(issuer) }, seconds),
      configReload,
    },
    webhook: {
      request(code, seconds) {
        webhookRequests.inc({ code });
        webhookLatency.observe({ code }, seconds);
      },
      cache(status, seconds) {
        cacheRequests.inc({ status });
        cacheDuration.observe({ status }, seconds);
      },
      fetch: (status) => fetches.inc({ status }),
    },
  };
}
