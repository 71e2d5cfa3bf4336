// An issuer's signing keys: its discovery document (<issuer>/.well-known/openid-configuration,
// or the configured discoveryURL) names its JWKS, both fetched over HTTPS trusting the
// configured CA (the system roots without one). As kube's JWT authenticator (go-oidc) does:
// start-up never waits for the issuer; the first fetch runs in the background and is retried
// every 10 s until it succeeds (until then the keys are not ready and the authenticator answers
// 401); keys are cached and fetched again when a token names a key the cache does not verify.
// Unlike go-oidc, those refetches are rate-limited (one per MIN_REFRESH_INTERVAL_MS), so a
// stream of tokens naming unknown keys cannot turn into a stream of requests to the issuer. The
// CA may be replaced while running (a rotated --oidc-ca-file); each fetch uses the CA of its time.
// close() (server release, or a reload that dropped the issuer) ends the fetches under way.

import http from 'node:http';
import https from 'node:https';
import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import type { Logger } from '../../apimachinery/request-context.js';

/** kube retries the first discovery every 10 s. */
export const INIT_RETRY_MS = 10_000;
/** Least time between two JWKS fetches triggered by tokens. */
export const MIN_REFRESH_INTERVAL_MS = 5_000;
/** kube's HTTP client for the issuer times out after 30 s. */
const FETCH_TIMEOUT_MS = 30_000;
/** Largest discovery document or JWKS accepted. */
const MAX_DOCUMENT_BYTES = 1024 * 1024;

export interface IssuerKeysOptions {
  issuerURL: string;
  discoveryURL?: string;
  caPem?: string;
  logger: Logger;
  /** Tests: a shorter retry. */
  initRetryMs?: number;
  minRefreshIntervalMs?: number;
  /** Told after every fetch of the JWKS (metrics). */
  onFetch?: (ok: boolean) => void;
}

export class IssuerKeys {
  private keySet?: JWTVerifyGetKey;
  private jwksURI?: string;
  private lastFetch = 0;
  private inFlight?: Promise<void>;
  private timer?: NodeJS.Timeout;
  private closed = false;
  private caPem: string | undefined;
  /** Fetches under way: close() ends them rather than leave them to their 30 s timeout. */
  private readonly requests = new Set<http.ClientRequest>();

  constructor(private readonly o: IssuerKeysOptions) {
    this.caPem = o.caPem;
  }

  /**
   * Trust `pem` for the issuer's HTTPS from the next fetch on (--oidc-ca-file was replaced): keys
   * already fetched stay in force, and a fetch under way finishes with the CA it began with.
   */
  setCertificateAuthority(pem: string): void {
    this.caPem = pem;
  }

  /** Begins the background discovery (retried until it succeeds or close()). */
  start(): void {
    const attempt = (): void => {
      if (this.closed) return;
      this.fetchAll()
        .then(() => this.o.logger.info({ issuer: this.o.issuerURL }, 'JWT issuer keys fetched; authenticator ready'))
        .catch((err: unknown) => {
          if (this.closed) return;
          this.o.logger.error({ issuer: this.o.issuerURL, err: (err as Error).message }, 'JWT authenticator: initializing issuer failed; retrying');
          this.timer = setTimeout(attempt, this.o.initRetryMs ?? INIT_RETRY_MS);
          this.timer.unref();
        });
    };
    attempt();
  }

  get ready(): boolean {
    return this.keySet !== undefined;
  }

  /** The current key set (undefined until the first fetch succeeded). */
  get keys(): JWTVerifyGetKey | undefined {
    return this.keySet;
  }

  /**
   * Fetches the JWKS again, unless one was fetched within the rate limit; concurrent callers share
   * one fetch. Resolves true when a new key set is in place.
   */
  async refresh(): Promise<boolean> {
    if (!this.jwksURI) return false;
    if (this.inFlight) {
      await this.inFlight.catch(() => undefined);
      return true;
    }
    if (Date.now() - this.lastFetch < (this.o.minRefreshIntervalMs ?? MIN_REFRESH_INTERVAL_MS)) return false;
    try {
      await this.fetchKeys(this.jwksURI);
      return true;
    } catch (err) {
      this.o.logger.warn({ issuer: this.o.issuerURL, err: (err as Error).message }, 'JWT authenticator: refreshing the issuer keys failed; keeping the cached ones');
      return false;
    }
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    for (const req of this.requests) req.destroy(new Error('oidc: the authenticator was closed'));
  }

  private async fetchAll(): Promise<void> {
    const discoveryURL = this.o.discoveryURL ?? `${this.o.issuerURL.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    const doc = await this.getJson(discoveryURL);
    if (typeof doc !== 'object' || doc === null) throw new Error('oidc: discovery document is not a JSON object');
    const { issuer, jwks_uri: jwksURI } = doc as { issuer?: unknown; jwks_uri?: unknown };
    // go-oidc: the provider must name the issuer it was configured with.
    if (issuer !== this.o.issuerURL) throw new Error(`oidc: issuer did not match the issuer returned by provider, expected "${this.o.issuerURL}" got "${String(issuer)}"`);
    if (typeof jwksURI !== 'string' || !/^https?:\/\//.test(jwksURI)) throw new Error('oidc: discovery document has no usable jwks_uri');
    await this.fetchKeys(jwksURI);
    this.jwksURI = jwksURI;
  }

  private fetchKeys(uri: string): Promise<void> {
    const run = (async () => {
      this.lastFetch = Date.now();
      try {
        const jwks = await this.getJson(uri);
        if (typeof jwks !== 'object' || jwks === null || !Array.isArray((jwks as JSONWebKeySet).keys)) throw new Error('oidc: JWKS has no keys array');
        // Only public signing keys: a symmetric ("oct") key must never verify anything.
        const keys = (jwks as JSONWebKeySet).keys.filter((k) => k.kty !== 'oct' && (k.use === undefined || k.use === 'sig'));
        this.keySet = createLocalJWKSet({ keys });
        this.o.onFetch?.(true);
      } catch (err) {
        this.o.onFetch?.(false);
        throw err;
      }
    })();
    this.inFlight = run;
    return run.finally(() => {
      if (this.inFlight === run) this.inFlight = undefined;
    });
  }

  private getJson(url: string): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const u = new URL(url);
      const lib = u.protocol === 'https:' ? https : http;
      const req = lib.get(u, { ca: this.caPem, timeout: FETCH_TIMEOUT_MS, headers: { accept: 'application/json' } }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_DOCUMENT_BYTES) req.destroy(new Error(`${url}: response larger than ${MAX_DOCUMENT_BYTES} bytes`));
          else chunks.push(c);
        });
        res.on('end', () => {
          if (res.statusCode !== 200) return reject(new Error(`${url}: ${res.statusCode} ${res.statusMessage ?? ''}`.trim()));
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
          } catch {
            reject(new Error(`${url}: the response is not JSON`));
          }
        });
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`${url}: no answer within ${FETCH_TIMEOUT_MS / 1000}s`)));
      req.on('error', reject);
      this.requests.add(req);
      req.on('close', () => this.requests.delete(req));
      if (this.closed) req.destroy(new Error('oidc: the authenticator was closed'));
    });
  }
}
