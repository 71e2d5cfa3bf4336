// A webhook authorizer's matchConditions (AuthorizationConfiguration): CEL expressions over
// `request`, the SubjectAccessReview v1 spec with every user and attribute field present (kube's
// unstructured form: empty strings, [] groups, {} extra), evaluated with @bufbuild/cel. All true:
// the webhook is called; one false: skipped (no opinion); otherwise an evaluation error (kube's
// aggregated message), which the failure policy decides. Compiled once, when the configuration
// loads, within the structural cost bound every CEL expression of ours has (cel-bounds.ts): a
// syntax error, a variable other than `request` or nested comprehensions are a configuration
// error naming the expression.

import { celEnv, isCelError, plan, type CelInput } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import type { AuthorizationObserver } from '../authorization-observer.js';
import { parseBounded } from '../cel-bounds.js';

export type Program = ReturnType<typeof plan>;

const env = celEnv({ funcs: strings });

/** Compiles one expression; throws CelCompileError (cel-bounds.ts) naming what is wrong. */
export function compileMatchCondition(expression: string): Program {
  return plan(env, parseBounded(expression, 'request', 'only request may be referenced'));
}

/** The `request` variable kube binds: every string and user field present, even empty ones. */
function requestVariable(spec: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { user: spec.user ?? '', groups: spec.groups ?? [], uid: spec.uid ?? '', extra: spec.extra ?? {} };
  const ra = spec.resourceAttributes as Record<string, unknown> | undefined;
  if (ra) {
    const attrs: Record<string, unknown> = {};
    for (const k of ['namespace', 'verb', 'group', 'version', 'resource', 'subresource', 'name']) attrs[k] = ra[k] ?? '';
    if (ra.fieldSelector) attrs.fieldSelector = ra.fieldSelector;
    if (ra.labelSelector) attrs.labelSelector = ra.labelSelector;
    out.resourceAttributes = attrs;
  }
  const nra = spec.nonResourceAttributes as Record<string, unknown> | undefined;
  if (nra) out.nonResourceAttributes = { verb: nra.verb ?? '', path: nra.path ?? '' };
  return out;
}

/** The matcher of compiled expressions, reporting each evaluation under the authorizer's type and name. */
export function matchConditions(compiled: readonly { expression: string; program: Program }[], name: string, observer: AuthorizationObserver): (spec: Record<string, unknown>) => boolean {
  return (spec) => {
    const start = performance.now();
    const seconds = (): number => (performance.now() - start) / 1000;
    const bindings = { request: requestVariable(spec) as unknown as CelInput };
    const errors: string[] = [];
    for (const { expression, program } of compiled) {
      let result: unknown;
      try {
        result = program(bindings);
      } catch (err) {
        result = err;
      }
      if (isCelError(result) || result instanceof Error) {
        errors.push(`cel evaluation error: expression '${expression}' resulted in error: ${(result as Error).message}`);
        continue;
      }
      if (typeof result !== 'boolean') {
        errors.push(`cel evaluation error: expression '${expression}' eval result type should be bool but got ${typeof result}`);
        continue;
      }
      if (!result) {
        observer.matchConditions('Webhook', name, 'excluded', seconds());
        return false;
      }
    }
    if (errors.length) {
      observer.matchConditions('Webhook', name, 'error', seconds());
      throw new Error(errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`);
    }
    observer.matchConditions('Webhook', name, 'matched', seconds());
    return true;
  };
}
