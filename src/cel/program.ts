// Compiling and running one expression as Kubernetes does (plugin/cel/compile.go and
// activation.go): a syntax or type error is "compilation failed: <cel-go issues>", a result of the
// wrong type "must evaluate to bool but got dyn", and evaluation runs under a cost limit. The
// authz library's checks are asynchronous here: an evaluation that needs one is repeated once the
// answer is known (every answer of one request is kept, as Kubernetes' caching authorizer keeps
// them), which changes nothing about its result.

import type { Declarations } from './checker.js';
import { checkExpr, type CheckedExpr } from './checker.js';
import { CostLimitExceeded, Evaluation, type Activation } from './evaluator.js';
import type { AuthzAttributes, AuthzDecision } from './functions.js';
import { CelIssues } from './issues.js';
import { AuthorizationNeeded } from './lib/authz.js';
import { parseCel } from './parse.js';
import { sameType, typeName, type CelType } from './types.js';
import { isError, type CelValue } from './values.js';

/** Kubernetes' per-expression runtime cost limit (celconfig.PerCallLimit). */
export const PER_CALL_LIMIT = 1_000_000;
/** Budget of one policy binding's evaluation (celconfig.RuntimeCELCostBudget). */
export const RUNTIME_COST_BUDGET = 10_000_000;
/** Budget of matchConditions (celconfig.RuntimeCELCostBudgetMatchConditions). */
export const MATCH_CONDITIONS_COST_BUDGET = 2_500_000;
export const COST_LIMIT_MESSAGE = 'operation cancelled: actual cost limit exceeded';

export interface CompiledExpression {
  readonly expression: string;
  readonly checked: CheckedExpr;
  readonly outputType: CelType;
}

export class CompileError {
  constructor(readonly detail: string) {}
}

/**
 * Compiles `expression`; `returnTypes` are the types it may evaluate to ('any' for variables).
 * Returns a CompileError with Kubernetes' wording instead of throwing.
 */
export function compileExpression(expression: string, decls: Declarations, returnTypes: readonly CelType[] | 'any'): CompiledExpression | CompileError {
  let checked: CheckedExpr;
  try {
    checked = checkExpr(parseCel(expression), decls);
  } catch (err) {
    if (err instanceof CelIssues) return new CompileError(`compilation failed: ${err.message}`);
    throw err;
  }
  if (returnTypes !== 'any' && !returnTypes.some((t) => sameType(t, checked.outputType))) {
    const got = typeName(checked.outputType);
    return new CompileError(
      returnTypes.length === 1 ? `must evaluate to ${typeName(returnTypes[0]!)} but got ${got}` : `must evaluate to one of [${returnTypes.map(typeName).join(' ')}] but got ${got}`,
    );
  }
  return { expression, checked, outputType: checked.outputType };
}

/** The syntax and type problems of an expression without a required type (status.typeChecking). */
export function typeCheckIssues(expression: string, decls: Declarations): string | undefined {
  try {
    checkExpr(parseCel(expression), decls);
    return undefined;
  } catch (err) {
    if (err instanceof CelIssues) return err.message;
    throw err;
  }
}

/** Answers authorization checks for one request, each attribute set asked once. */
export class AuthorizationCache {
  private readonly answers = new Map<string, AuthzDecision>();

  constructor(private readonly ask: (attrs: AuthzAttributes) => Promise<AuthzDecision>) {}

  get(attrs: AuthzAttributes): AuthzDecision | undefined {
    return this.answers.get(keyOf(attrs));
  }

  async resolve(attrs: AuthzAttributes): Promise<void> {
    const k = keyOf(attrs);
    if (this.answers.has(k)) return;
    let d: AuthzDecision;
    try {
      d = await this.ask(attrs);
    } catch (err) {
      d = { decision: 'noOpinion', reason: '', error: (err as Error).message };
    }
    this.answers.set(k, d);
  }
}

const keyOf = (a: AuthzAttributes): string => JSON.stringify([a.user.username, a.user.uid ?? '', a.user.groups, a.user.extra ?? {}, a.verb, a.isResourceRequest, a.path, a.apiGroup, a.apiVersion, a.resource, a.subresource, a.namespace, a.name, a.fieldSelector ?? '', a.labelSelector ?? '']);

export interface EvalOutcome {
  /** The value, or undefined when evaluation failed. */
  readonly value?: CelValue;
  /** The error text when it failed (a CEL error, or the cost limit). */
  readonly error?: string;
  readonly cost: number;
  readonly costLimitExceeded?: boolean;
}

/** Repeats after at most this many new authorization answers; more is a runaway expression. */
const MAX_AUTHZ_ROUNDS = 64;

export async function evaluateExpression(compiled: CompiledExpression, activation: Activation, opts: { limit: number; authz?: AuthorizationCache }): Promise<EvalOutcome> {
  for (let round = 0; ; round++) {
    const ev = new Evaluation(compiled.checked, activation, opts.limit, { authorize: opts.authz ? (a) => opts.authz!.get(a) : undefined });
    try {
      const v = ev.run();
      if (isError(v)) return { error: v.message, cost: ev.cost };
      return { value: v, cost: ev.cost };
    } catch (err) {
      if (err instanceof CostLimitExceeded) return { error: COST_LIMIT_MESSAGE, cost: ev.cost, costLimitExceeded: true };
      if (err instanceof AuthorizationNeeded && opts.authz && round < MAX_AUTHZ_ROUNDS) {
        await opts.authz.resolve(err.attrs);
        continue;
      }
      throw err;
    }
  }
}
