// kube's admission metrics (k8s.io/apiserver/pkg/admission/metrics and the validating policy
// metrics), recorded through admission's AdmissionObserver: the admit and validate steps, each
// plugin, each webhook call (latency, requests, rejections, fail-opens), match conditions and
// ValidatingAdmissionPolicy checks. Status codes past 600 are cut to 600, as kube does.

import { Counter, Histogram, Summary, type Registry } from 'prom-client';
import type { AdmissionObserver } from '../apimachinery/admission.js';

const LATENCY_BUCKETS = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5];
const code600 = (code: number): string => String(Math.min(code, 600));

export function admissionMetrics(registry: Registry): AdmissionObserver {
  const registers = [registry];
  const step = new Histogram({
    name: 'apiserver_admission_step_admission_duration_seconds',
    help: 'Admission sub-step latency histogram in seconds, broken out for each operation and API resource and step type (validate or admit).',
    labelNames: ['type', 'operation', 'rejected'],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const stepSummary = new Summary({
    name: 'apiserver_admission_step_admission_duration_seconds_summary',
    help: 'Admission sub-step latency summary in seconds, broken out for each operation and API resource and step type (validate or admit).',
    labelNames: ['type', 'operation', 'rejected'],
    maxAgeSeconds: 5 * 3600,
    ageBuckets: 5,
    registers,
  });
  const controller = new Histogram({
    name: 'apiserver_admission_controller_admission_duration_seconds',
    help: 'Admission controller latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
    labelNames: ['name', 'type', 'operation', 'rejected'],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const webhook = new Histogram({
    name: 'apiserver_admission_webhook_admission_duration_seconds',
    help: 'Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
    labelNames: ['name', 'type', 'operation', 'rejected'],
    buckets: [...LATENCY_BUCKETS, 10, 25],
    registers,
  });
  const webhookRequests = new Counter({
    name: 'apiserver_admission_webhook_request_total',
    help: 'Admission webhook request total, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify whether the request was rejected or not and an HTTP status code. Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.',
    labelNames: ['name', 'type', 'operation', 'code', 'rejected'],
    registers,
  });
  const webhookRejections = new Counter({
    name: 'apiserver_admission_webhook_rejection_count',
    help: 'Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify an error type (calling_webhook_error or apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero rejection code if the webhook rejects the request with an HTTP status code (honored by the apiserver when the code is greater or equal to 400). Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.',
    labelNames: ['name', 'type', 'operation', 'error_type', 'rejection_code'],
    registers,
  });
  const failOpen = new Counter({
    name: 'apiserver_admission_webhook_fail_open_count',
    help: 'Admission webhook fail open count, identified by name and broken out for each admission type (validating or admit).',
    labelNames: ['name', 'type'],
    registers,
  });
  const conditionLabels = ['name', 'kind', 'type', 'operation'];
  const conditionErrors = new Counter({
    name: 'apiserver_admission_match_condition_evaluation_errors_total',
    help: 'Admission match condition evaluation errors count, identified by name of resource containing the match condition and broken out for each kind containing matchConditions (webhook or policy), operation and admission type (validate or admit).',
    labelNames: conditionLabels,
    registers,
  });
  const conditionExclusions = new Counter({
    name: 'apiserver_admission_match_condition_exclusions_total',
    help: 'Admission match condition evaluation exclusions count, identified by name of resource containing the match condition and broken out for each kind containing matchConditions (webhook or policy), operation and admission type (validate or admit).',
    labelNames: conditionLabels,
    registers,
  });
  const conditionSeconds = new Histogram({
    name: 'apiserver_admission_match_condition_evaluation_seconds',
    help: 'Admission match condition evaluation time in seconds, identified by name and broken out for each kind containing matchConditions (webhook or policy), operation and type (validate or admit).',
    labelNames: conditionLabels,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.1, 0.2, 0.25],
    registers,
  });
  const policyLabels = ['policy', 'policy_binding', 'error_type', 'enforcement_action'];
  const policyChecks = new Counter({
    name: 'apiserver_validating_admission_policy_check_total',
    help: 'Validation admission policy check total, labeled by policy and further identified by binding and enforcement action taken.',
    labelNames: policyLabels,
    registers,
  });
  const policyLatency = new Histogram({
    name: 'apiserver_validating_admission_policy_check_duration_seconds',
    help: 'Validation admission latency for individual validation expressions in seconds, labeled by policy and further including binding and enforcement action taken.',
    labelNames: policyLabels,
    buckets: [0.0000005, 0.001, 0.01, 0.1, 1.0],
    registers,
  });
  return {
    step(type, operation, rejected, seconds) {
      const labels = { type, operation, rejected: String(rejected) };
      step.observe(labels, seconds);
      stepSummary.observe(labels, seconds);
    },
    controller(name, type, operation, rejected, seconds) {
      controller.observe({ name, type, operation, rejected: String(rejected) }, seconds);
    },
    webhook(name, type, operation, rejected, code, seconds) {
      webhookRequests.inc({ name, type, operation, code: code600(code), rejected: String(rejected) });
      webhook.observe({ name, type, operation, rejected: String(rejected) }, seconds);
    },
    webhookRejection(name, type, operation, errorType, code) {
      webhookRejections.inc({ name, type, operation, error_type: errorType, rejection_code: code600(code) });
    },
    webhookFailOpen(name, type) {
      failOpen.inc({ name, type });
    },
    matchCondition(name, kind, type, operation, outcome, seconds) {
      const labels = { name, kind, type, operation };
      if (outcome === 'error') conditionErrors.inc(labels);
      else if (outcome === 'excluded') conditionExclusions.inc(labels);
      else conditionSeconds.observe(labels, seconds);
    },
    policyCheck(policy, binding, errorType, action, seconds) {
      const labels = { policy, policy_binding: binding, error_type: errorType, enforcement_action: action };
      policyChecks.inc(labels);
      policyLatency.observe(labels, seconds);
    },
  };
}
