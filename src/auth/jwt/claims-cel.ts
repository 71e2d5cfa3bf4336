// CEL for JWT authenticators (kube's authentication CEL): expressions over `claims` (the token's
// payload) or `user` (the mapped UserInfo), compiled once when the configuration is loaded and
// evaluated per token through @bufbuild/cel. A compile error names the field path of the rule.
//
// Cost bound: kube estimates each expression's cost and bounds it at run time; @bufbuild/cel has
// no cost model, so the bound here is structural: an expression is at most MAX_EXPRESSION_LENGTH
// characters and may not nest comprehensions (map/filter/all/exists/exists_one inside another's
// body). A non-nested expression's work is linear in the size of the claims, which the request
// header limit bounds, so no token can make one expression take more than linear time.

import { celEnv, isCelError, isCelList, parse, plan, type CelValue } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';

/** The parsed AST (its type comes from @bufbuild/cel's parser). */
type Expr = ReturnType<typeof parse>['expr'];

export const MAX_EXPRESSION_LENGTH = 5 * 1024;

const env = celEnv({ funcs: strings });

export class CelCompileError extends Error {
  override name = 'CelCompileError';
}

export interface CompiledExpression {
  readonly source: string;
  /** Whether it selects `claims.<field>` anywhere (kube's email / email_verified rule). */
  selects(field: string): boolean;
  /** The result, or an Error (evaluation failed: a missing claim, a type mismatch). */
  evaluate(vars: Record<string, unknown>): CelValue | Error;
}

/** Compiles `source` for the variable `variable` (`claims` or `user`); throws CelCompileError. */
export function compileExpression(source: string, variable: 'claims' | 'user'): CompiledExpression {
  if (source.length > MAX_EXPRESSION_LENGTH) throw new CelCompileError(`expression is ${source.length} characters; at most ${MAX_EXPRESSION_LENGTH} are allowed`);
  let ast: Expr;
  try {
    ast = parse(source).expr;
  } catch (err) {
    throw new CelCompileError(`compilation failed: ${(err as Error).message}`);
  }
  const unknown = freeIdentifiers(ast).filter((id) => id !== variable);
  if (unknown.length) throw new CelCompileError(`compilation failed: undeclared reference to '${unknown[0]}'${variable === 'user' ? ' (only user may be referenced)' : ' (only claims may be referenced)'}`);
  if (comprehensionDepth(ast) > 1) {
    throw new CelCompileError('cost limit: comprehensions (map, filter, all, exists, exists_one) may not be nested; nested ones cost more than linear time in the size of the token');
  }
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


function children(e: Expr | undefined): (Expr | undefined)[] {
  const k = e?.exprKind;
  switch (k?.case) {
    case 'selectExpr':
      return [k.value.operand];
    case 'callExpr':
      return [k.value.target, ...k.value.args];
    case 'listExpr':
      return k.value.elements;
    case 'structExpr':
      return k.value.entries.flatMap((en) => [en.keyKind.case === 'mapKey' ? en.keyKind.value : undefined, en.value]);
    case 'comprehensionExpr':
      return [k.value.iterRange, k.value.accuInit, k.value.loopCondition, k.value.loopStep, k.value.result];
    default:
      return [];
  }
}

function freeIdentifiers(e: Expr | undefined, bound: ReadonlySet<string> = new Set()): string[] {
  const k = e?.exprKind;
  if (!k) return [];
  if (k.case === 'identExpr') return bound.has(k.value.name) ? [] : [k.value.name];
  if (k.case === 'comprehensionExpr') {
    const c = k.value;
    const inner = new Set([...bound, c.iterVar, c.iterVar2, c.accuVar].filter(Boolean));
    return [
      ...freeIdentifiers(c.iterRange, bound),
      ...freeIdentifiers(c.accuInit, bound),
      ...[c.loopCondition, c.loopStep, c.result].flatMap((x) => freeIdentifiers(x, inner)),
    ];
  }
  return children(e).flatMap((c) => freeIdentifiers(c, bound));
}

function comprehensionDepth(e: Expr | undefined): number {
  const k = e?.exprKind;
  if (!k) return 0;
  if (k.case === 'comprehensionExpr') {
    const c = k.value;
    const body = Math.max(...[c.loopCondition, c.loopStep, c.result].map(comprehensionDepth));
    return Math.max(1 + body, comprehensionDepth(c.iterRange), comprehensionDepth(c.accuInit));
  }
  return Math.max(0, ...children(e).map(comprehensionDepth));
}

function selects(e: Expr | undefined, variable: string, field: string): boolean {
  const k = e?.exprKind;
  if (!k) return false;
  if (k.case === 'selectExpr' && k.value.field === field && k.value.operand?.exprKind.case === 'identExpr' && k.value.operand.exprKind.value.name === variable) return true;
  // claims['email'] is an index call; kube's check looks at selects only, so does this one.
  return children(e).some((c) => selects(c, variable, field));
}
