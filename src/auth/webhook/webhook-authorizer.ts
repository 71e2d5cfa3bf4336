// kube's webhook authorizer: each decision is asked of a remote service as a
// SubjectAccessReview. `allowed` allows, `denied` is a final deny, neither is no opinion (the
// next authorizer is asked). Answers are cached by the review's spec (allowed ones for
// authorizedTTL, the others for unauthorizedTTL; 8192 entries, least recently used go first).
// A call that fails (down, slow past the timeout, garbage, an answer outside 200-206) gives
// the failure policy's decision (no opinion for the flags, as kube's) with the error: a request
// no later authorizer allows is then answered 500, as kube-apiserver answers it. 429, 500 and 504 answers
// and reset connections are retried with kube's backoff (500 ms × 1.5, 5 tries at most); every
// try is bounded by the timeout and all of them by 60 s, so a webhook never holds a request long.

import type { Logger } from '../../apimachinery/request-context.js';
import type { AuthorizationObserver, WebhookResult } from '../authorization-observer.js';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer, UserRules } from '../authorizer.js';
import { parseSarResponse, subjectAccessReviewBody, subjectAccessReviewSpec, type SarStatus, type SarVersion } from './subject-access-review.js';
import { postJson, releaseTarget, WebhookCallError, type WebhookTarget } from './webhook-transport.js';

export type FailurePolicy = 'NoOpinion' | 'Deny';

export interface Backoff {
  initialMs: number;
  factor: number;
  steps: number;
}

/** kube's DefaultAuthWebhookRetryBackoff (the jitter of 0.2 applied on each wait). */
export const DEFAULT_RETRY_BACKOFF: Backoff = { initialMs: 500, factor: 1.5, steps: 5 };
const CACHE_ENTRIES = 8192;
/**
 * All tries together end within this (kube's calls end with the request's context, 60 s by
 * default): retried 504s can never hold a request for five timeouts.
 */
const TOTAL_BUDGET_MS = 60_000;
/** Requester-controlled attributes longer than this are never cached (kube's DoS guard). */
const MAX_CACHED_ATTRIBUTE_BYTES = 10_000;

export interface WebhookAuthorizerOptions {
  /** The authorizer's name in metrics and logs (`default` for the flags' webhook). */
  name: string;
  target: WebhookTarget;
  version: SarVersion;
  /** 0: allowed answers are not cached. */
  authorizedTtlMs: number;
  /** 0: other answers are not cached. */
  unauthorizedTtlMs: number;
  timeoutMs: number;
  failurePolicy: FailurePolicy;
  /**
   * The match conditions (structured configuration): true calls the webhook, false skips it (no
   * opinion); a throw is an evaluation error, decided by the failure policy. Absent: always call.
   */
  matches?: (spec: Record<string, unknown>) => boolean;
  observer: AuthorizationObserver;
  logger: Logger;
  retry?: Backoff;
}

interface CacheEntry {
  status: SarStatus;
  expiresAt: number;
}

export class WebhookAuthorizer implements Authorizer {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly retry: Backoff;

  constructor(private readonly o: WebhookAuthorizerOptions) {
    this.retry = o.retry ?? DEFAULT_RETRY_BACKOFF;
  }

  async authorize(attrs: AuthorizationAttributes): Promise<AuthorizationResult> {
    const spec = subjectAccessReviewSpec(attrs);
    if (this.o.matches) {
      try {
        if (!this.o.matches(spec)) return { decision: 'no-opinion', reason: '' };
      } catch (err) {
        return this.onError((err as Error).message);
      }
    }
    const key = JSON.stringify(spec);
    let status = this.cached(key);
    if (!status) {
      try {
        status = await this.call(spec);
      } catch (err) {
        const message = (err as Error).message;
        this.o.logger.error({ webhook: this.o.name, err: message }, 'Failed to make webhook authorizer request');
        if (this.o.failurePolicy === 'NoOpinion') this.o.observer.webhookFailOpen(this.o.name, resultOf(err));
        return this.onError(message);
      }
      if (cacheable(attrs)) this.remember(key, status);
    }
    if (status.allowed && status.denied) return { decision: 'deny', reason: status.reason, error: 'webhook subject access review returned both allow and deny response' };
    if (status.denied) return { decision: 'deny', reason: status.reason };
    if (status.allowed) return { decision: 'allow', reason: status.reason };
    return { decision: 'no-opinion', reason: status.reason };
  }

  async rulesFor(): Promise<UserRules> {
    return { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'webhook authorizer does not support user rule resolution' };
  }

  /** The authorizer is replaced or the server stops: its connections to the webhook close (calls under way finish). */
  close(): void {
    releaseTarget(this.o.target);
  }

  private onError(message: string): AuthorizationResult {
    return { decision: this.o.failurePolicy === 'Deny' ? 'deny' : 'no-opinion', reason: '', error: message };
  }

  /** Calls the webhook, retrying what kube retries; throws the last failure. */
  private async call(spec: Record<string, unknown>): Promise<SarStatus> {
    const body = subjectAccessReviewBody(spec, this.o.version);
    const deadline = performance.now() + Math.max(TOTAL_BUDGET_MS, this.o.timeoutMs);
    let wait = this.retry.initialMs;
    for (let attempt = 1; ; attempt++) {
      const start = performance.now();
      try {
        const answer = await postJson(this.o.target, body, Math.min(this.o.timeoutMs, Math.max(1, Math.round(deadline - start))));
        // client-go's REST client reads 200 to 206 (Partial Content) as answers, anything else as an error.
        if (answer.statusCode < 200 || answer.statusCode > 206) {
          throw new WebhookCallError(`the webhook answered with the status code ${answer.statusCode}`, answer.statusCode === 504 ? 'timeout' : 'error', answer.statusCode);
        }
        const status = parseSarResponse(answer.body);
        this.o.observer.webhookEvaluation(this.o.name, 'success', (performance.now() - start) / 1000);
        return status;
      } catch (err) {
        this.o.observer.webhookEvaluation(this.o.name, resultOf(err), (performance.now() - start) / 1000);
        if (attempt >= this.retry.steps || !retriable(err) || performance.now() + wait >= deadline) throw err;
      }
      await new Promise((resolve) => setTimeout(resolve, wait * (1 + Math.random() * 0.2)));
      wait *= this.retry.factor;
    }
  }

  private cached(key: string): SarStatus | undefined {
    const entry = this.cache.get(key);
    if (!entry) return undefined;
    this.cache.delete(key);
    if (entry.expiresAt <= Date.now()) return undefined;
    this.cache.set(key, entry); // most recently used last
    return entry.status;
  }

  private remember(key: string, status: SarStatus): void {
    const ttl = status.allowed ? this.o.authorizedTtlMs : this.o.unauthorizedTtlMs;
    if (ttl <= 0) return;
    this.cache.delete(key);
    this.cache.set(key, { status, expiresAt: Date.now() + ttl });
    if (this.cache.size > CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
  }
}

function resultOf(err: unknown): WebhookResult {
  return err instanceof WebhookCallError && err.failure === 'timeout' ? 'timeout' : 'error';
}

/** kube's DefaultShouldRetry: reset connections, 429, 500 and 504 answers. */
function retriable(err: unknown): boolean {
  if (!(err instanceof WebhookCallError)) return false;
  return err.failure === 'reset' || err.statusCode === 429 || err.statusCode === 500 || err.statusCode === 504;
}

function cacheable(a: AuthorizationAttributes): boolean {
  const size = a.namespace.length + a.verb.length + a.apiGroup.length + a.apiVersion.length + a.resource.length + a.subresource.length + a.name.length + a.path.length;
  return size < MAX_CACHED_ATTRIBUTE_BYTES;
}
