// matchConditions of webhooks and policies (webhook/matchconditions/matcher.go): all true, the
// hook applies; one false, it does not; errors otherwise decide by the failure policy (Fail: the
// errors, aggregated as kube aggregates them; Ignore: the hook is skipped).

import { compileExpression, MATCH_CONDITIONS_COST_BUDGET } from '../cel/program.js';
import type { Declarations } from '../cel/checker.js';
import { T } from '../cel/types.js';
import type { MatchCondition } from '../resources/admissionregistration/types.js';
import { forInput, type Bindings, type Slot } from './cel-runtime.js';

export interface CompiledConditions {
  readonly names: readonly string[];
  readonly slots: readonly Slot[];
}

export function compileConditions(conditions: readonly MatchCondition[] | undefined, decls: Declarations): CompiledConditions {
  const list = conditions ?? [];
  return { names: list.map((c) => c.name ?? ''), slots: list.map((c) => compileExpression(c.expression ?? '', decls, [T.bool])) };
}

export type MatchResult = { matches: true } | { matches: false; failed?: string } | { error: string };

/** Go's utilerrors aggregate: one message alone, several as `[a, b]`. */
export const aggregate = (msgs: readonly string[]): string => (msgs.length === 1 ? msgs[0]! : `[${msgs.join(', ')}]`);

/** Reports what kube's match-condition metrics count: each evaluation error, and the time of an evaluation that excluded or failed. */
export type MatchReport = (outcome: 'error' | 'evaluated', seconds: number) => void;

export async function matchConditions(c: CompiledConditions, bindings: Bindings, failurePolicy: string, report: MatchReport = () => {}): Promise<MatchResult> {
  if (c.slots.length === 0) return { matches: true };
  const start = performance.now();
  const elapsed = (): number => (performance.now() - start) / 1000;
  const out = await forInput(c.slots, bindings, MATCH_CONDITIONS_COST_BUDGET);
  if (out.error !== undefined) {
    report('evaluated', elapsed());
    return failurePolicy === 'Ignore' ? { matches: false } : { error: out.error };
  }
  const errors: string[] = [];
  for (let i = 0; i < out.results.length; i++) {
    const r = out.results[i]!;
    if (r.error !== undefined) {
      errors.push(r.error);
      report('error', 0);
    } else if (r.value === false) {
      report('evaluated', elapsed());
      return { matches: false, failed: c.names[i] };
    }
  }
  if (errors.length) {
    report('evaluated', elapsed());
    return failurePolicy === 'Ignore' ? { matches: false } : { error: aggregate(errors) };
  }
  return { matches: true };
}
