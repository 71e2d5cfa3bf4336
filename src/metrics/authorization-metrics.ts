// kube-apiserver's authorization metrics as an AuthorizationObserver: terminal decisions per
// authorizer, webhook round-trips (count and latency by result), webhook failures answered "no
// opinion", and match-condition errors, exclusions and evaluation time. Label values come from
// the configuration (authorizer types and names) and fixed sets, never from requests.

import { Counter, Histogram, type Registry } from 'prom-client';
import { configReloadMetrics } from './config-reload-metrics.js';
import type { AuthorizationObserver, WebhookResult } from '../auth/authorization-observer.js';

/** component-base's DefBuckets (Prometheus' defaults). */
const DEF_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** `apiserverIdHash`: the server's identity as the reload metrics label it (the authentication ones carry the same). */
export function authorizationMetrics(registry: Registry, apiserverIdHash: string): AuthorizationObserver {
  const registers = [registry];
  const decisionCounts = new Map<string, { labels: { type: string; name: string; decision: string }; n: number }>();
  new Counter({
    name: 'apiserver_authorization_decisions_total',
    help: 'Total number of terminal decisions made by an authorizer split by authorizer type, name, and decision.',
    labelNames: ['type', 'name', 'decision'],
    registers,
    collect() {
      this.reset();
      for (const { labels, n } of decisionCounts.values()) this.inc(labels, n);
    },
  });
  const evaluations = new Counter({ name: 'apiserver_authorization_webhook_evaluations_total', help: 'Round-trips to authorization webhooks.', labelNames: ['name', 'result'], registers });
  const duration = new Histogram({ name: 'apiserver_authorization_webhook_duration_seconds', help: 'Request latency in seconds.', labelNames: ['name', 'result'], buckets: DEF_BUCKETS, registers });
  const failOpen = new Counter({ name: 'apiserver_authorization_webhook_evaluations_fail_open_total', help: 'NoOpinion results due to webhook timeout or error.', labelNames: ['name', 'result'], registers });
  const matchErrors = new Counter({
    name: 'apiserver_authorization_match_condition_evaluation_errors_total',
    help: 'Total number of errors when an authorization webhook encounters a match condition error split by authorizer type and name.',
    labelNames: ['type', 'name'],
    registers,
  });
  const matchExclusions = new Counter({
    name: 'apiserver_authorization_match_condition_exclusions_total',
    help: 'Total number of exclusions when an authorization webhook is skipped because match conditions exclude it.',
    labelNames: ['type', 'name'],
    registers,
  });
  const matchSeconds = new Histogram({
    name: 'apiserver_authorization_match_condition_evaluation_seconds',
    help: 'Authorization match condition evaluation time in seconds, split by authorizer type and name.',
    labelNames: ['type', 'name'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.1, 0.2, 0.25],
    registers,
  });
  const configReload = configReloadMetrics(registry, 'authorization', apiserverIdHash);
  return {
    configReload,
    decision(type, name, decision) {
      // Every authorized request counts one: a plain number here, handed to prom-client when
      // scraped (its own inc hashes the labels each time, a microsecond per request).
      const key = `${type}\0${name}\0${decision}`;
      const series = decisionCounts.get(key);
      if (series) series.n++;
      else decisionCounts.set(key, { labels: { type, name, decision }, n: 1 });
    },
    webhookEvaluation(name: string, result: WebhookResult, seconds: number) {
      evaluations.inc({ name, result });
      duration.observe({ name, result }, seconds);
    },
    webhookFailOpen: (name, result) => failOpen.inc({ name, result }),
    matchConditions(type, name, outcome, seconds) {
      matchSeconds.observe({ type, name }, seconds);
      if (outcome === 'error') matchErrors.inc({ type, name });
      else if (outcome === 'excluded') matchExclusions.inc({ type, name });
    },
  };
}
