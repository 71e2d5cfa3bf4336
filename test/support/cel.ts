// Test support for the CEL layer's tests: compile against the admission declarations, evaluate
// with given variables and an authorizer that answers from a table; results as plain JSON.

import { admissionDeclarations } from '../../src/cel/admission-env.js';
import { AuthorizationCache, CompileError, compileExpression, evaluateExpression, PER_CALL_LIMIT, type EvalOutcome } from '../../src/cel/program.js';
import { T, type CelType } from '../../src/cel/types.js';
import { AuthorizerValue } from '../../src/cel/lib/authz.js';
import { CelMap, fromJson, Uint, type CelValue } from '../../src/cel/values.js';

export interface RunOptions {
  vars?: Record<string, unknown>;
  limit?: number;
  /** `verb resource` pairs the authorizer allows (everything else is denied). */
  allow?: readonly string[];
}

export const TEST_USER = { username: 'alice', groups: ['dev'] };

/** A CEL value as plain JSON (ints and uints as numbers, maps as objects). */
export function plain(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof Uint) return Number(v.value);
  if (Array.isArray(v)) return v.map(plain);
  if (v instanceof CelMap) return Object.fromEntries([...v].map(([k, x]) => [String(plain(k)), plain(x)]));
  return v;
}

export async function run(expression: string, o: RunOptions = {}): Promise<EvalOutcome & { compileError?: string; type?: CelType }> {
  const decls = admissionDeclarations({ params: true, authorizer: true, variables: new Map() });
  const c = compileExpression(expression, decls, 'any');
  if (c instanceof CompileError) return { compileError: c.detail, cost: 0 };
  const vars = new Map<string, CelValue>(Object.entries(o.vars ?? {}).map(([k, v]) => [k, fromJson(v)]));
  vars.set('authorizer', new AuthorizerValue(TEST_USER));
  const authz = new AuthorizationCache(async (a) => ({ decision: (o.allow ?? []).includes(`${a.verb} ${a.resource}`) ? 'allow' : 'deny', reason: 'by table' }));
  const out = await evaluateExpression(c, { resolve: (n) => vars.get(n) ?? (n === 'params' || n === 'object' ? null : undefined) }, { limit: o.limit ?? PER_CALL_LIMIT, authz });
  return { ...out, type: c.outputType };
}

/** The value of an expression that must compile and evaluate. */
export async function value(expression: string, o: RunOptions = {}): Promise<unknown> {
  const r = await run(expression, o);
  if (r.compileError !== undefined) throw new Error(`${expression}: ${r.compileError}`);
  if (r.error !== undefined) throw new Error(`${expression}: ${r.error}`);
  return plain(r.value);
}

export { T };
