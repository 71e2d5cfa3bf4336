// The ValidatingAdmissionPolicy admission plugin (policy/validating/dispatcher.go): every policy
// whose matchConstraints match the request, each of its matching bindings, each param; a false
// validation is enforced as the binding's validationActions say (Deny: the request fails with
// the first denial, worded and coded as kube; Warn: a Warning header; Audit: the
// validation_failure audit annotation); auditAnnotations are published as `<policy>/<key>`;
// a misconfigured policy or binding follows the policy's failurePolicy.

import { noopAdmissionObserver, type AdmissionAttributes, type AdmissionObserver, type AdmissionPlugin } from '../../apimachinery/admission.js';
import type { KubeObject } from '../../apimachinery/object-meta.js';
import type { StatusError } from '../../apimachinery/status-error.js';
import type { Authorizer } from '../../auth/authorizer.js';
import type { AuthorizationCache } from '../../cel/program.js';
import { fromJson, type CelValue } from '../../cel/values.js';
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from '../../resources/admissionregistration/types.js';
import { authorizationCache } from '../authorization.js';
import { requestValues } from '../cel-runtime.js';
import { admissionForbidden, withReason } from '../errors.js';
import { readyWithin } from '../informers.js';
import { bindingMatches, definitionMatches } from '../matching/match-resources.js';
import { isPolicyExempt } from '../matching/rules.js';
import { goJson } from '../go-json.js';
import { collectParams } from './params.js';
import type { PolicySource } from './policy-source.js';
import { validate, type ErrorType } from './validator.js';

/** How long a request waits for the policies to be read at start-up (kube's WaitForReady). */
const READY_WAIT_MS = 10_000;
const MAX_AUDIT_VALUE_BYTES = 10 * 1024;
/** At most this many failures go into the validation_failure annotation (bounded audit events). */
const MAX_VALIDATION_FAILURES = 50;
export const VALIDATION_FAILURE_ANNOTATION = 'validation.policy.admission.k8s.io/validation_failure';

interface Denial {
  readonly policy: string;
  readonly binding?: string;
  readonly message: string;
  readonly reason?: string;
}

interface ValidationFailure {
  message: string;
  policy: string;
  binding: string;
  expressionIndex: number;
  validationActions: string[];
}

/** kube's ErrorType: judged by the decision's message, as the metrics label it. */
export function errorTypeOf(evaluation: 'admit' | 'deny' | 'error', message: string): ErrorType {
  if (evaluation === 'admit') return 'no_error';
  if (message.startsWith('compilation')) return 'compile_error';
  if (message.startsWith('validation failed due to running out of cost budget')) return 'out_of_budget';
  return 'invalid_error';
}

/** Params are converted once per stored version (informer objects are shared and never change). */
const convertedParams = new WeakMap<KubeObject, CelValue>();
function paramValue(param: KubeObject, policy: ValidatingAdmissionPolicy): CelValue {
  let v = convertedParams.get(param);
  if (v === undefined) {
    const pk = policy.spec?.paramKind ?? {};
    // As kube's wrappedParam: params always show their apiVersion and kind.
    v = fromJson(param.kind ? param : { ...param, apiVersion: param.apiVersion || pk.apiVersion, kind: pk.kind });
    convertedParams.set(param, v);
  }
  return v;
}

/** Truncates to at most `max` UTF-8 bytes (Go slices the string's bytes). */
function cutBytes(s: string, max: number): string {
  const b = Buffer.from(s, 'utf8');
  return b.length <= max ? s : b.subarray(0, max).toString('utf8');
}

export class ValidatingAdmissionPolicyPlugin implements AdmissionPlugin {
  readonly name = 'ValidatingAdmissionPolicy';

  constructor(
    private readonly source: PolicySource,
    private readonly authorizer: Authorizer,
    private readonly observer: AdmissionObserver = noopAdmissionObserver,
  ) {}

  async validate(a: AdmissionAttributes): Promise<void> {
    if (isPolicyExempt(a)) return;
    if (!(await readyWithin(this.source, READY_WAIT_MS))) throw admissionForbidden(a, 'not yet ready to handle request');
    const hooks = this.source.hooks();
    if (hooks.length === 0) return;
    const denials: Denial[] = [];
    const failures: ValidationFailure[] = [];
    let authz: AuthorizationCache | undefined;

    const configError = (message: string, policy: ValidatingAdmissionPolicy, binding?: ValidatingAdmissionPolicyBinding): void => {
      const f = policy.spec?.failurePolicy ?? 'Fail';
      if (f === 'Ignore') return;
      const name = policy.metadata.name ?? '';
      if (f !== 'Fail') denials.push({ policy: name, binding: binding?.metadata.name, message: `unrecognized failure policy: '${f}'` });
      else denials.push({ policy: name, binding: binding?.metadata.name, message: binding ? `failed to configure binding: ${message}` : `failed to configure policy: ${message}` });
    };

    for (const hook of hooks) {
      const policy = hook.policy;
      const policyName = policy.metadata.name ?? '';
      const matched = definitionMatches(policy.spec?.matchConstraints, a);
      if (typeof matched === 'object') {
        configError(matched.error, policy);
        continue;
      }
      if (!matched) continue;
      if (hook.configurationError !== undefined) {
        configError(hook.configurationError, policy);
        continue;
      }
      const annotations = new Map<string, string[]>();
      for (const binding of hook.bindings) {
        const bindingName = binding.metadata.name ?? '';
        const bm = bindingMatches(binding.spec?.matchResources, a);
        if (typeof bm === 'object') {
          configError(bm.error, policy, binding);
          continue;
        }
        if (!bm) continue;
        const params = await collectParams(policy.spec?.paramKind, hook.params, binding.spec?.paramRef);
        if ('error' in params) {
          configError(params.error, policy, binding);
          continue;
        }
        const actions = binding.spec?.validationActions ?? [];
        for (const param of params) {
          authz ??= authorizationCache(this.authorizer);
          const result = await validate(hook.compiled, {
            values: requestValues(a),
            params: param ? paramValue(param, policy) : undefined,
            authorizer: true,
            variables: hook.compiled.variables,
            authz,
          }, (outcome, seconds) => this.observer.matchCondition(policyName, 'policy', 'validate', a.operation, outcome, seconds));
          result.decisions.forEach((d, index) => {
            const errorType = errorTypeOf(d.evaluation, d.message);
            if (d.action === 'admit') {
              if (d.evaluation === 'error') this.observer.policyCheck(policyName, bindingName, errorType, 'allow', d.elapsedSeconds);
              return;
            }
            for (const action of actions) {
              if (action === 'Deny') {
                denials.push({ policy: policyName, binding: bindingName, message: d.message, reason: d.reason });
                this.observer.policyCheck(policyName, bindingName, errorType, 'deny', d.elapsedSeconds);
              } else if (action === 'Audit') {
                failures.push({ message: d.message, policy: binding.spec?.policyName ?? '', binding: bindingName, expressionIndex: index, validationActions: actions });
                this.observer.policyCheck(policyName, bindingName, errorType, 'audit', d.elapsedSeconds);
              } else if (action === 'Warn') {
                a.warnings.push(`Validation failed for ValidatingAdmissionPolicy '${policyName}' with binding '${bindingName}': ${d.message}`);
                this.observer.policyCheck(policyName, bindingName, errorType, 'warn', d.elapsedSeconds);
              }
            }
          });
          for (const r of result.auditAnnotations) {
            if (r.action === 'publish') {
              const value = cutBytes(r.value ?? '', MAX_AUDIT_VALUE_BYTES);
              const values = annotations.get(r.key) ?? [];
              if (!values.includes(value)) annotations.set(r.key, [...values, value]);
            } else if (r.action === 'error') {
              const message = r.error ?? '';
              denials.push({ policy: policyName, binding: bindingName, message });
              this.observer.policyCheck(policyName, bindingName, errorTypeOf('error', message), 'deny', r.elapsedSeconds);
            }
          }
        }
      }
      for (const [key, values] of annotations) a.annotate(`${policyName}/${key}`, values.join(', '));
    }

    if (failures.length) a.annotate(VALIDATION_FAILURE_ANNOTATION, goJson(failures.slice(0, MAX_VALIDATION_FAILURES)));
    const first = denials[0];
    if (first) throw denialError(a, first);
  }
}

/** The first denial as kube answers it: Forbidden's wording, the validation's reason and code. */
function denialError(a: AdmissionAttributes, d: Denial): StatusError {
  const message = d.binding !== undefined
    ? `ValidatingAdmissionPolicy '${d.policy}' with binding '${d.binding}' denied request: ${d.message}`
    : `ValidatingAdmissionPolicy '${d.policy}' denied request: ${d.message}`;
  const err = withReason(admissionForbidden(a, message), d.reason || 'Invalid');
  err.status.details = { ...err.status.details, causes: [...(err.status.details?.causes ?? []), { message }] };
  return err;
}
