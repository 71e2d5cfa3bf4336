// CEL for JWT authenticators (kube's authentication CEL): expressions over `claims` (the token's
// payload) or `user` (the mapped UserInfo), compiled once when the configuration is loaded and
// evaluated per token through @bufbuild/cel. A compile error names the field path of the rule.
//
// The structural cost bound (length, variables, no nested comprehensions) is cel-bounds.ts's.

import { celEnv, isCelError, isCelList, plan, type CelValue } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { children, parseBounded, type Expr } from '../cel-bounds.js';

const env = celEnv({ funcs: strings });

export interface CompiledExpression {
  readonly source: string;
  /** Whether it selects `claims.<field>` anywhere (kube's email / email_verified rule). */
  selects(field: string): boolean;
  /** The result, or an Error (evaluation failed: a missing claim, a type mismatch). */
  evaluate(vars: Record<string, unknown>): CelValue | Error;
}

/** Compiles `source` for the variable `variable` (`claims` or `user`); throws CelCompileError. */
export function compileExpression(source: string, variable: 'claims' | 'user'): CompiledExpression {
  const ast = parseBounded(source, variable, `only ${variable} may be referenced`);
  const run = plan(env, ast);
  return {
    source,
    selects: (field) => selects(ast, variable, field),
    evaluate(vars) {
      try {
        const r = run({ [variable]: celInput(vars[variable]) } as never);
        return isCelError(r) ? new Error(r.message) : r;
      } catch (err) {
        return err instanceof Error ? err : new Error(String(err));
      }
    },
  };
}

/** One token's claims are converted once for all of its authenticator's expressions. */
const converted = new WeakMap<object, unknown>();

function celInput(v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return toCel(v);
  let c = converted.get(v);
  if (c === undefined) converted.set(v, (c = toCel(v)));
  return c;
}

/** JSON to CEL input: integral numbers become CEL ints (kube decodes claims as unstructured, where they are int64). */
function toCel(v: unknown): unknown {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(toCel);
  if (v !== null && typeof v === 'object') return new Map(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, toCel(x)]));
  return v;
}

/** A string result, or undefined when the value is not a string. */
export function celString(v: CelValue): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/**
 * kube's conversion of a groups/extra result: a string (empty = none) or a list of strings (empty
 * strings dropped); null = none. Anything else is an error (undefined here).
 */
export function celStringList(v: CelValue): string[] | undefined {
  if (v === null) return [];
  if (typeof v === 'string') return v === '' ? [] : [v];
  if (isCelList(v)) {
    const out: string[] = [];
    for (const x of v) {
      if (typeof x !== 'string') return undefined;
      if (x !== '') out.push(x);
    }
    return out;
  }
  return undefined;
}


function selects(e: Expr | undefined, variable: string, field: string): boolean {
  const k = e?.exprKind;
  if (!k) return false;
  if (k.case === 'selectExpr' && k.value.field === field && k.value.operand?.exprKind.case === 'identExpr' && k.value.operand.exprKind.value.name === variable) return true;
  // claims['email'] is an index call; kube's check looks at selects only, so does this one.
  return children(e).some((c) => selects(c, variable, field));
}
