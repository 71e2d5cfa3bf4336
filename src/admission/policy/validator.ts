// One evaluation of a compiled policy for one binding and param (policy/validating/validator.go):
// matchConditions, then the validations under the policy's budget (messageExpressions with what
// is left), then the audit annotations; each failure turned into a decision by the failure policy.

import { RUNTIME_COST_BUDGET } from '../../cel/program.js';
import { Optional } from '../../cel/values.js';
import { forInput, OUT_OF_BUDGET, type Bindings } from '../cel-runtime.js';
import { matchConditions, type MatchReport } from '../match-conditions.js';
import type { CompiledPolicy } from './compiled-policy.js';

/** Kube's celconfig.MaxEvaluatedMessageExpressionSizeBytes. */
const MAX_MESSAGE_BYTES = 5 * 1024;

export type ErrorType = 'no_error' | 'compile_error' | 'invalid_error' | 'out_of_budget';

export interface Decision {
  readonly action: 'admit' | 'deny';
  readonly evaluation: 'admit' | 'deny' | 'error';
  readonly message: string;
  /** The status reason of a denial (Invalid unless the validation names another). */
  readonly reason?: string;
  readonly errorType: ErrorType;
  readonly elapsedSeconds: number;
}

export interface AuditAnnotationResult {
  readonly key: string;
  readonly action: 'publish' | 'exclude' | 'error';
  readonly value?: string;
  readonly error?: string;
  readonly errorType: ErrorType;
  readonly elapsedSeconds: number;
}

export interface ValidateResult {
  readonly decisions: readonly Decision[];
  readonly auditAnnotations: readonly AuditAnnotationResult[];
}

const errorAction = (failurePolicy: string): 'admit' | 'deny' => (failurePolicy === 'Ignore' ? 'admit' : 'deny');

function messageOf(value: unknown): string {
  if (typeof value !== 'string') return '';
  const m = value.trim();
  if (Buffer.byteLength(m, 'utf8') > MAX_MESSAGE_BYTES || m.includes('\n')) return '';
  return m;
}

export async function validate(p: CompiledPolicy, bindings: Bindings, report?: MatchReport): Promise<ValidateResult> {
  const f = p.failurePolicy;
  const failed = (message: string, errorType: ErrorType): ValidateResult => ({
    decisions: [{ action: errorAction(f), evaluation: 'error', message, errorType, elapsedSeconds: 0 }],
    auditAnnotations: [],
  });
  const matched = await matchConditions(p.matchConditions, bindings, f, report);
  if ('error' in matched) return failed(matched.error, matched.error === OUT_OF_BUDGET ? 'out_of_budget' : 'invalid_error');
  if (!matched.matches) return { decisions: [], auditAnnotations: [] };

  const evals = await forInput(p.validationSlots, bindings, RUNTIME_COST_BUDGET);
  if (evals.error !== undefined) return failed(evals.error, 'out_of_budget');
  const messages = await forInput(p.messageSlots, { ...bindings, authorizer: false }, evals.remaining);
  const decisions: Decision[] = evals.results.map((r, i): Decision => {
    const v = p.validations[i]!;
    if (r.error !== undefined) return { action: errorAction(f), evaluation: 'error', message: r.error, errorType: r.errorType ?? 'invalid_error', elapsedSeconds: r.elapsedSeconds };
    if (messages.error !== undefined) return { action: errorAction(f), evaluation: 'error', message: `failed messageExpression: ${messages.error}`, errorType: 'out_of_budget', elapsedSeconds: r.elapsedSeconds };
    if (r.value === true) return { action: 'admit', evaluation: 'admit', message: '', errorType: 'no_error', elapsedSeconds: r.elapsedSeconds };
    const m = messages.results[i];
    let message = m && m.error === undefined ? messageOf(m.value) : '';
    if (!message && v.message) message = v.message.trim();
    if (!message) message = `failed expression: ${(v.expression ?? '').trim()}`;
    return { action: 'deny', evaluation: 'deny', message, reason: v.reason ?? 'Invalid', errorType: 'no_error', elapsedSeconds: r.elapsedSeconds };
  });

  const audits = await forInput(p.auditSlots, bindings, RUNTIME_COST_BUDGET);
  if (audits.error !== undefined) return failed(audits.error, 'out_of_budget');
  const auditAnnotations: AuditAnnotationResult[] = audits.results.map((r, i) => {
    const a = p.auditAnnotations[i]!;
    const base = { key: a.key, elapsedSeconds: r.elapsedSeconds };
    if (r.error !== undefined) return { ...base, action: f === 'Ignore' ? 'exclude' : 'error', error: r.error, errorType: r.errorType ?? 'invalid_error' };
    if (typeof r.value === 'string') {
      const value = r.value.trim();
      return value ? { ...base, action: 'publish', value, errorType: 'no_error' } : { ...base, action: 'exclude', errorType: 'no_error' };
    }
    if (r.value === null) return { ...base, action: 'exclude', errorType: 'no_error' };
    const type = r.value instanceof Optional ? 'optional_type' : typeof r.value === 'bigint' ? 'int' : typeof r.value;
    return {
      ...base,
      action: 'error',
      error: `valueExpression '${a.valueExpression}' resulted in unsupported return type: ${type}. Return type must be either string or null.`,
      errorType: 'invalid_error',
    };
  });
  return { decisions, auditAnnotations };
}
