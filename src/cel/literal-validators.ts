// cel-go's AST validators that Kubernetes turns on (ValidateDurationLiterals,
// ValidateTimestampLiterals, ValidateRegexLiterals): a literal argument of duration(),
// timestamp() or matches() that could never work is a compile error, "invalid <function> argument",
// reported at the literal.

import type { Expr, ParsedExpr } from './ast.js';
import type { Issue } from './issues.js';
import { compilePattern } from './lib/core.js';
import { parseDuration, parseTimestamp } from './lib/time.js';
import { CelError, isError } from './values.js';

const CHECKS: Record<string, (s: string) => boolean> = {
  duration: (s) => !isError(parseDuration(s)),
  timestamp: (s) => !isError(parseTimestamp(s)),
  matches: (s) => !(compilePattern(s) instanceof CelError),
};

function children(e: Expr): Expr[] {
  switch (e.kind) {
    case 'select':
      return [e.operand];
    case 'call':
      return e.target ? [e.target, ...e.args] : [...e.args];
    case 'list':
      return [...e.elems];
    case 'map':
      return e.entries.flatMap((en) => [en.key, en.value]);
    case 'comprehension':
      return [e.range, e.init, e.cond, e.step, e.result];
    case 'bind':
      return [e.init, e.body];
    default:
      return [];
  }
}

export function literalIssues(parsed: ParsedExpr): Issue[] {
  const issues: Issue[] = [];
  const stack: Expr[] = [parsed.root];
  while (stack.length) {
    const e = stack.pop()!;
    if (e.kind === 'call' && Object.hasOwn(CHECKS, e.fn)) {
      // The first argument: for a member call (s.matches(re)) the pattern, as in cel-go.
      const arg = e.args[0];
      if (arg?.kind === 'const' && typeof arg.value === 'string' && !CHECKS[e.fn]!(arg.value)) {
        issues.push({ offset: parsed.offsets.get(arg.id) ?? 0, message: `invalid ${e.fn} argument` });
      }
    }
    stack.push(...children(e));
  }
  return issues;
}
