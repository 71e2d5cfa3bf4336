// The structural cost bound every CEL expression of ours passes at load (JWT claim rules, webhook
// match conditions). kube estimates each expression's cost and bounds it at run time; @bufbuild/cel
// has no cost model, so the bound here is structural: at most MAX_EXPRESSION_LENGTH characters,
// only the declared variable referenced, and no comprehension (map/filter/all/exists/exists_one)
// inside another's body. A non-nested expression's work is linear in the size of its input, which
// the request's own limits bound.

import { parse } from '@bufbuild/cel';

/** The parsed AST (its type comes from @bufbuild/cel's parser). */
export type Expr = ReturnType<typeof parse>['expr'];

export const MAX_EXPRESSION_LENGTH = 5 * 1024;

export class CelCompileError extends Error {
  override name = 'CelCompileError';
}

/**
 * Parses `source` and checks the bound; `variable` is the one identifier it may reference.
 * Throws CelCompileError with kube's wording where kube has one.
 */
export function parseBounded(source: string, variable: string, onlyHint: string): Expr {
  if (source.length > MAX_EXPRESSION_LENGTH) throw new CelCompileError(`expression is ${source.length} characters; at most ${MAX_EXPRESSION_LENGTH} are allowed`);
  let ast: Expr;
  try {
    ast = parse(source).expr;
  } catch (err) {
    throw new CelCompileError(`compilation failed: ${(err as Error).message}`);
  }
  const unknown = freeIdentifiers(ast).filter((id) => id !== variable);
  if (unknown.length) throw new CelCompileError(`compilation failed: undeclared reference to '${unknown[0]}' (${onlyHint})`);
  if (comprehensionDepth(ast) > 1) {
    throw new CelCompileError('cost limit: comprehensions (map, filter, all, exists, exists_one) may not be nested; nested ones cost more than linear time in the size of the input');
  }
  return ast;
}

export function children(e: Expr | undefined): (Expr | undefined)[] {
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
