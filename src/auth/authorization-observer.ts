// What authorization reports for metrics (kube's apiserver_authorization_* families), through an
// interface auth owns: each configured authorizer's terminal decisions, each webhook call's
// result and latency, fail-open answers, match-condition evaluations and configuration reloads.

import type { Authorizer } from './authorizer.js';

/** A webhook call's outcome as kube labels it. */
export type WebhookResult = 'success' | 'timeout' | 'error' | 'canceled';

export interface AuthorizationObserver {
  /** A terminal decision (allowed / denied) of the authorizer of this type and name. */
  decision(type: string, name: string, decision: 'allowed' | 'denied'): void;
  webhookEvaluation(name: string, result: WebhookResult, durationSeconds: number): void;
  /** A failed webhook call answered "no opinion" (failurePolicy NoOpinion). */
  webhookFailOpen(name: string, result: WebhookResult): void;
  /** One evaluation of an authorizer's match conditions; `excluded`: they did not match; `error`: one failed. */
  matchConditions(type: string, name: string, outcome: 'matched' | 'excluded' | 'error', durationSeconds: number): void;
  /** An automatic reload of --authorization-config. */
  configReload(status: 'success' | 'failure'): void;
}

export const noopAuthorizationObserver: AuthorizationObserver = {
  decision: () => {},
  webhookEvaluation: () => {},
  webhookFailOpen: () => {},
  matchConditions: () => {},
  configReload: () => {},
};

/** The authorizer, reporting its allow and deny decisions (no opinion is not terminal: not counted, as in kube). */
export function instrumentedAuthorizer(type: string, name: string, inner: Authorizer, observer: AuthorizationObserver): Authorizer {
  return {
    async authorize(attrs) {
      const r = await inner.authorize(attrs);
      if (r.decision === 'allow') observer.decision(type, name, 'allowed');
      else if (r.decision === 'deny') observer.decision(type, name, 'denied');
      return r;
    },
    rulesFor: (user, namespace) => inner.rulesFor(user, namespace),
  };
}
