// --authentication-token-webhook-config-file: bearer tokens judged by a remote TokenReview
// service, as kube-apiserver's webhook token authenticator does it. The TokenReview is sent as
// kube sends it (authentication.k8s.io v1beta1 by default or v1, spec.token and spec.audiences =
// the API audiences); status.user becomes the user. `authenticated: false` is "not this
// credential" (the next authenticator may still know it); an answer carrying status.error, a
// status outside 200–206, a malformed body, an unreachable or slow webhook is an error (401 unless
// another authenticator knows the token) and never authenticates. 429/5xx and reset connections
// are retried with kube's backoff (500 ms x1.5, 5 attempts), all within one deadline: kube's
// 30 s webhook timeout. Answers are cached for --authentication-token-webhook-cache-ttl,
// authenticated or not; errors are not cached (kube's token cache with cacheErrs=false), and
// concurrent requests with one token share one review.

import type http from 'node:http';
import https from 'node:https';
import type { Logger, UserInfo } from '../../apimachinery/request-context.js';
import type { Authenticator, AuthRequest, AuthResult } from '../authenticator.js';
import { bearerToken } from '../bearer-token.js';
import { tokenDigest } from '../verified-token-cache.js';
import { webhookTarget, type WebhookConnection } from './webhook-kubeconfig.js';

/** client-go's webhook timeout (webhookutil's defaultRequestTimeout). */
export const WEBHOOK_TIMEOUT_MS = 30_000;
/** genericoptions.DefaultAuthWebhookRetryBackoff. */
const RETRY = { initialMs: 500, factor: 1.5, jitter: 0.2, attempts: 5 };
const MAX_RESPONSE_BYTES = 3 * 1024 * 1024;
const CACHE_ENTRIES = 10_000;

export interface TokenWebhookObserver {
  /** One HTTP exchange with the webhook: its status code ("<error>" without one) and duration. */
  request(code: string, seconds: number): void;
  /** A lookup in the webhook's token cache (kube's authentication_token_cache_* metrics). */
  cache(status: 'hit' | 'miss', seconds: number): void;
  fetch(status: 'ok' | 'error'): void;
}

export interface TokenWebhookOptions {
  connection: WebhookConnection;
  version: 'v1' | 'v1beta1';
  cacheTtlMs: number;
  /** The API audiences (--api-audiences): sent in spec.audiences and checked against status.audiences. */
  audiences: readonly string[];
  logger: Logger;
  observer?: TokenWebhookObserver;
  timeoutMs?: number;
  now?: () => number;
}

type Review = { kind: 'user'; user: UserInfo } | { kind: 'none' };

class WebhookError extends Error {
  constructor(
    message: string,
    readonly retriable = false,
  ) {
    super(message);
  }
}

export class TokenWebhookAuthenticator implements Authenticator {
  private readonly agent: http.Agent;
  private readonly cache = new Map<string, { review: Review; until: number }>();
  private readonly inFlight = new Map<string, Promise<Review>>();
  private readonly now: () => number;

  constructor(private readonly o: TokenWebhookOptions) {
    const c = o.connection;
    this.agent = webhookTarget(c).agent;
    this.now = o.now ?? Date.now;
  }

  async authenticate(req: AuthRequest): Promise<AuthResult> {
    const token = bearerToken(req);
    if (!token) return { kind: 'none' };
    const start = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - start) / 1e9;
    const digest = tokenDigest(token);
    const cached = this.cache.get(digest);
    if (cached && this.now() < cached.until) {
      this.o.observer?.cache('hit', seconds());
      return cloneReview(cached.review);
    }
    let pending = this.inFlight.get(digest);
    if (!pending) {
      // One review, however many requests with this token wait for it: counted and cached once.
      pending = this.review(token)
        .then(
          (review) => {
            this.o.observer?.fetch('ok');
            this.remember(digest, review);
            return review;
          },
          (err: unknown) => {
            this.o.observer?.fetch('error');
            throw err;
          },
        )
        .finally(() => this.inFlight.delete(digest));
      this.inFlight.set(digest, pending);
    }
    try {
      return cloneReview(await pending);
    } catch (err) {
      this.o.logger.error({ err: (err as Error).message }, 'Failed to make webhook authenticator request');
      return { kind: 'error', message: `webhook token authenticator: ${(err as Error).message}` };
    } finally {
      this.o.observer?.cache('miss', seconds());
    }
  }

  close(): void {
    this.agent.destroy();
  }

  private remember(digest: string, review: Review): void {
    if (this.o.cacheTtlMs <= 0) return;
    this.cache.delete(digest);
    this.cache.set(digest, { review, until: this.now() + this.o.cacheTtlMs });
    while (this.cache.size > CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
  }

  /** Posts the TokenReview (with retries, within one deadline) and reads its answer. */
  private async review(token: string): Promise<Review> {
    const deadline = Date.now() + (this.o.timeoutMs ?? WEBHOOK_TIMEOUT_MS);
    const body = JSON.stringify({
      kind: 'TokenReview',
      apiVersion: `authentication.k8s.io/${this.o.version}`,
      metadata: { creationTimestamp: null },
      spec: this.o.audiences.length ? { token, audiences: this.o.audiences } : { token },
      status: { user: {} },
    });
    let delay = RETRY.initialMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return this.interpret(await this.post(body, deadline));
      } catch (err) {
        const wait = delay * (1 + Math.random() * RETRY.jitter);
        if (!(err instanceof WebhookError && err.retriable) || attempt >= RETRY.attempts || Date.now() + wait >= deadline) throw err;
        await new Promise((r) => setTimeout(r, wait));
        delay *= RETRY.factor;
      }
    }
  }

  private post(body: string, deadline: number): Promise<unknown> {
    const { server, token } = this.o.connection;
    return new Promise((resolve, reject) => {
      const started = process.hrtime.bigint();
      let code = '<error>';
      const done = (err: Error | undefined, value?: unknown) => {
        clearTimeout(timer);
        this.o.observer?.request(code, Number(process.hrtime.bigint() - started) / 1e9);
        if (err) reject(err);
        else resolve(value);
      };
      const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, */*', 'content-length': String(Buffer.byteLength(body)) };
      if (token) headers.authorization = `Bearer ${token}`;
      const req = https.request(server, { method: 'POST', agent: this.agent, headers }, (res) => {
        code = String(res.statusCode ?? 0);
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_RESPONSE_BYTES) req.destroy(new WebhookError(`the webhook's answer is larger than ${MAX_RESPONSE_BYTES} bytes`));
          else chunks.push(c);
        });
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          // client-go reads 200 to 206 as an answer, any other status as a failure.
          if (status < 200 || status > 206) return done(new WebhookError(`the webhook answered ${status}`, status === 429 || status >= 500));
          try {
            done(undefined, JSON.parse(Buffer.concat(chunks).toString('utf8')));
          } catch {
            done(new WebhookError('the webhook answered something that is not JSON'));
          }
        });
        res.on('error', (err) => done(err));
      });
      const timer = setTimeout(() => req.destroy(new WebhookError(`the webhook did not answer within ${Math.round((this.o.timeoutMs ?? WEBHOOK_TIMEOUT_MS) / 1000)}s`)), Math.max(0, deadline - Date.now()));
      req.on('error', (err) => {
        const c = (err as NodeJS.ErrnoException).code;
        done(err instanceof WebhookError ? err : new WebhookError(err.message, c === 'ECONNRESET' || c === 'EPIPE'));
      });
      req.end(body);
    });
  }

  /** Reads a TokenReview answer strictly: anything malformed is an error, never a user. */
  private interpret(answer: unknown): Review {
    const a = answer as { apiVersion?: unknown; kind?: unknown; status?: Record<string, unknown> } | null;
    if (typeof a !== 'object' || a === null || Array.isArray(a)) throw new WebhookError('the webhook answered something that is not a TokenReview');
    if (a.kind !== 'TokenReview' || (a.apiVersion !== 'authentication.k8s.io/v1' && a.apiVersion !== 'authentication.k8s.io/v1beta1')) {
      throw new WebhookError(`the webhook answered ${JSON.stringify(String(a.apiVersion)).slice(0, 80)} ${JSON.stringify(String(a.kind)).slice(0, 80)}, not an authentication.k8s.io TokenReview`);
    }
    const status = a.status ?? {};
    if (typeof status !== 'object' || Array.isArray(status)) throw new WebhookError('the TokenReview answer has a malformed status');
    const audiences = stringList(status.audiences, 'status.audiences');
    if (status.authenticated !== undefined && typeof status.authenticated !== 'boolean') throw new WebhookError('status.authenticated is not a boolean');
    if (status.error !== undefined && typeof status.error !== 'string') throw new WebhookError('status.error is not a string');
    // kube: with API audiences, the answer's audiences (or, without any, the API's own) must meet them.
    if (this.o.audiences.length && audiences?.length && !audiences.some((x) => this.o.audiences.includes(x))) return { kind: 'none' };
    if (status.authenticated !== true) {
      if (status.error) throw new WebhookError(status.error);
      return { kind: 'none' };
    }
    const u = (status.user ?? {}) as Record<string, unknown>;
    if (typeof u !== 'object' || Array.isArray(u)) throw new WebhookError('status.user is not an object');
    if (u.username !== undefined && typeof u.username !== 'string') throw new WebhookError('status.user.username is not a string');
    if (u.uid !== undefined && typeof u.uid !== 'string') throw new WebhookError('status.user.uid is not a string');
    const user: UserInfo = { username: (u.username as string | undefined) ?? '', groups: stringList(u.groups, 'status.user.groups') ?? [] };
    if (u.uid) user.uid = u.uid as string;
    if (u.extra !== undefined && u.extra !== null) {
      if (typeof u.extra !== 'object' || Array.isArray(u.extra)) throw new WebhookError('status.user.extra is not an object');
      const extra: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
      for (const [k, v] of Object.entries(u.extra)) extra[k] = stringList(v, `status.user.extra[${k}]`) ?? [];
      user.extra = { ...extra };
    }
    return { kind: 'user', user };
  }
}

function stringList(v: unknown, what: string): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw new WebhookError(`${what} is not a list of strings`);
  return v as string[];
}

function cloneReview(r: Review): AuthResult {
  return r.kind === 'user' ? { kind: 'user', user: structuredClone(r.user) } : { kind: 'none' };
}
