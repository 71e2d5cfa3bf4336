// Admission contract: the plugins a write passes through, called by registry/ without knowing
// who implements them (auth/ for signer attestation, admission/ for policies and webhooks).
// Kube's chain in two phases: `admit` (mutating) runs on the object as the client sent it, before
// the kind's own defaulting and validation; `validate` runs on the final object, after them.

import type { KubeObject } from './object-meta.js';
import type { UserInfo } from './request-context.js';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface AdmissionAttributes {
  operation: AdmissionOperation;
  group: string;
  version: string;
  kind: string;
  resource: string;
  subresource: string;
  /** Empty for a create with generateName and for each object of a delete-collection (as kube). */
  name: string;
  /** Empty: every kind served is cluster-scoped. */
  namespace: string;
  /** The new object (create, update); absent for delete. Mutating plugins may replace it. */
  object?: KubeObject;
  /** The stored object (update, delete). */
  oldObject?: KubeObject;
  user: UserInfo;
  dryRun: boolean;
  /** CreateOptions, UpdateOptions or DeleteOptions (meta.k8s.io/v1), as kube hands them to admission. */
  options?: Record<string, unknown>;
  /** The request's warnings (sent as Warning headers): append. */
  warnings: string[];
  /** Adds an annotation to the request's audit event. */
  annotate(key: string, value: string): void;
  /** Aborted when the request is abandoned (timed out, client gone). */
  signal?: AbortSignal;
}

/** An admission plugin: resolves to allow, throws a StatusError to deny. */
export interface AdmissionPlugin {
  readonly name: string;
  /** Mutating phase (kube's Admit): may change or replace `attrs.object`. */
  admit?(attrs: AdmissionAttributes): Promise<void>;
  /** Validating phase (kube's Validate). */
  validate?(attrs: AdmissionAttributes): Promise<void>;
}

/** The mutating phase: each plugin's admit in order. */
export async function runMutation(plugins: readonly AdmissionPlugin[], attrs: AdmissionAttributes): Promise<void> {
  for (const plugin of plugins) if (plugin.admit) await plugin.admit(attrs);
}

/** The validating phase: each plugin's validate in order; the first denial wins. */
export async function runAdmission(plugins: readonly AdmissionPlugin[], attrs: AdmissionAttributes): Promise<void> {
  for (const plugin of plugins) if (plugin.validate) await plugin.validate(attrs);
}

/**
 * What admission reports, as kube's admission metrics count it (src/metrics/admission-metrics.ts
 * implements it): phases and plugins, webhook calls, match conditions, policy checks.
 */
export interface AdmissionObserver {
  /** apiserver_admission_step_admission_duration_seconds. */
  step(type: 'admit' | 'validate', operation: string, rejected: boolean, seconds: number): void;
  /** apiserver_admission_controller_admission_duration_seconds. */
  controller(name: string, type: 'admit' | 'validate', operation: string, rejected: boolean, seconds: number): void;
  /** apiserver_admission_webhook_admission_duration_seconds and apiserver_admission_webhook_request_total. */
  webhook(name: string, type: 'admit' | 'validating', operation: string, rejected: boolean, code: number, seconds: number): void;
  /** apiserver_admission_webhook_rejection_count. */
  webhookRejection(name: string, type: 'admit' | 'validating', operation: string, errorType: 'calling_webhook_error' | 'apiserver_internal_error' | 'no_error', code: number): void;
  /** apiserver_admission_webhook_fail_open_count. */
  webhookFailOpen(name: string, type: 'admit' | 'validating'): void;
  /**
   * Match conditions: 'error' one condition failed to evaluate (_evaluation_errors_total);
   * 'excluded' a webhook skipped by them (_exclusions_total); 'evaluated' the time of an
   * evaluation that excluded or failed (_evaluation_seconds), as kube observes them.
   */
  matchCondition(name: string, kind: 'webhook' | 'policy', type: 'admit' | 'validating' | 'validate', operation: string, outcome: 'error' | 'excluded' | 'evaluated', seconds: number): void;
  /** apiserver_validating_admission_policy_check_total and _check_duration_seconds. */
  policyCheck(policy: string, binding: string, errorType: 'no_error' | 'compile_error' | 'invalid_error' | 'out_of_budget', action: 'allow' | 'deny' | 'warn' | 'audit', seconds: number): void;
}

export const noopAdmissionObserver: AdmissionObserver = {
  step() {},
  controller() {},
  webhook() {},
  webhookRejection() {},
  webhookFailOpen() {},
  matchCondition() {},
  policyCheck() {},
};
