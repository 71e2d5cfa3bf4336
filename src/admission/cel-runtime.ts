// The values admission expressions run on (plugin/cel/activation.go and condition.go): the
// object, old object and params as unstructured values, `request` built as kube builds the
// AdmissionRequest it exposes, `authorizer` for the request's user, and `variables` evaluated
// lazily, each at most once per evaluation, its cost added to the policy's budget (composition).
// Results are kube's evaluation results: "expression '<e>' resulted in error: <err>",
// "compilation error: <detail>", and the budget running out.

import type { AdmissionAttributes } from '../apimachinery/admission.js';
import { AuthorizerValue, requestResourceCheck } from '../cel/lib/authz.js';
import { CostLimitExceeded, Evaluation, type Activation } from '../cel/evaluator.js';
import { CompileError, COST_LIMIT_MESSAGE, evaluateExpression, PER_CALL_LIMIT, type AuthorizationCache, type CompiledExpression } from '../cel/program.js';
import { CelError, CelMap, LazyMap, fromJson, isError, type CelResult, type CelValue } from '../cel/values.js';

export const OUT_OF_BUDGET = 'validation failed due to running out of cost budget, no further validation rules will be run';

/** What a request's expressions see, converted once per request and shared by every policy. */
export interface RequestValues {
  readonly object: CelValue;
  readonly oldObject: CelValue;
  readonly request: CelValue;
  readonly authorizer: CelValue;
  readonly requestResource: CelValue;
}

/** A request's values, each converted when an expression first reads it (most read one or two). */
class LazyRequestValues implements RequestValues {
  private readonly cache = new Map<string, CelValue>();

  constructor(private readonly a: AdmissionAttributes) {}

  private once(name: string, make: () => CelValue): CelValue {
    let v = this.cache.get(name);
    if (v === undefined && !this.cache.has(name)) this.cache.set(name, (v = make()));
    return v as CelValue;
  }

  private get user() {
    const u = this.a.user;
    return { username: u.username, uid: u.uid, groups: u.groups, extra: u.extra };
  }

  get object(): CelValue {
    return this.once('object', () => fromJson(this.a.object ?? null));
  }

  get oldObject(): CelValue {
    return this.once('oldObject', () => fromJson(this.a.oldObject ?? null));
  }

  get request(): CelValue {
    return this.once('request', () => {
      const a = this.a;
      const user = this.user;
      const gvk = { group: a.group, version: a.version, kind: a.kind };
      const gvr = { group: a.group, version: a.version, resource: a.resource };
      return fromJson({
        kind: gvk,
        resource: gvr,
        subResource: a.subresource,
        requestKind: gvk,
        requestResource: gvr,
        requestSubResource: a.subresource,
        name: a.name,
        namespace: a.namespace,
        operation: a.operation,
        userInfo: { username: user.username, uid: user.uid ?? '', groups: user.groups, extra: user.extra ?? {} },
        dryRun: a.dryRun,
        options: a.options ?? null,
      });
    });
  }

  get authorizer(): CelValue {
    return this.once('authorizer', () => new AuthorizerValue(this.user));
  }

  get requestResource(): CelValue {
    const a = this.a;
    return this.once('requestResource', () => requestResourceCheck(this.user, a.group, { resource: a.resource, subresource: a.subresource, namespace: a.namespace, name: a.name }));
  }
}

/** Per request, the values as of its current object (a mutating webhook may replace it). */
const converted = new WeakMap<AdmissionAttributes, { object: unknown; values: RequestValues }>();

export function requestValues(a: AdmissionAttributes): RequestValues {
  const cached = converted.get(a);
  if (cached && cached.object === a.object) return cached.values;
  const v = new LazyRequestValues(a);
  converted.set(a, { object: a.object, values: v });
  return v;
}

/** A compiled expression, or why it did not compile; undefined stands for an absent one. */
export type Slot = CompiledExpression | CompileError | undefined;

/** The policy's variables: evaluated when first read, errors as kube words them. */
class LazyVariables extends LazyMap {
  private readonly values = new Map<string, CelResult>();
  /** Cost of the variables evaluated since last taken (kube's composition cost). */
  cost = 0;

  constructor(
    private readonly compiled: ReadonlyMap<string, Slot>,
    private readonly activation: Activation,
    private readonly authz: AuthorizationCache | undefined,
  ) {
    super();
  }

  field(name: string): CelResult | undefined {
    if (this.values.has(name)) return this.values.get(name);
    if (!this.compiled.has(name)) return undefined;
    const c = this.compiled.get(name);
    let v: CelResult;
    if (c instanceof CompileError || c === undefined) v = new CelError(`composited variable ${JSON.stringify(name)} fails to compile: ${c?.detail ?? ''}`);
    else {
      const ev = new Evaluation(c.checked, this.activation, PER_CALL_LIMIT, { authorize: this.authz ? (a) => this.authz!.get(a) : undefined });
      try {
        const r = ev.run();
        v = isError(r) ? new CelError(`composited variable ${JSON.stringify(name)} fails to evaluate: ${r.message}`) : r;
      } catch (err) {
        // An authorization answer still pending: this evaluation is repeated (program.ts), uncounted.
        if (!(err instanceof CostLimitExceeded)) throw err;
        v = new CelError(`composited variable ${JSON.stringify(name)} fails to evaluate: ${COST_LIMIT_MESSAGE}`);
      }
      this.cost += ev.cost;
    }
    this.values.set(name, v);
    return v;
  }

  takeCost(): number {
    const c = this.cost;
    this.cost = 0;
    return c;
  }
}

export interface Bindings {
  readonly values: RequestValues;
  readonly params?: CelValue;
  /** Whether `authorizer` is bound (not in messageExpression). */
  readonly authorizer: boolean;
  readonly variables?: ReadonlyMap<string, Slot>;
  readonly authz?: AuthorizationCache;
}

class AdmissionActivation implements Activation {
  readonly lazy?: LazyVariables;

  constructor(private readonly b: Bindings) {
    if (b.variables) this.lazy = new LazyVariables(b.variables, this, b.authz);
  }

  resolve(name: string): CelValue | undefined {
    switch (name) {
      case 'object':
        return this.b.values.object;
      case 'oldObject':
        return this.b.values.oldObject;
      case 'request':
        return this.b.values.request;
      case 'namespaceObject':
        return null;
      case 'params':
        return this.b.params ?? null;
      case 'authorizer':
        return this.b.authorizer ? this.b.values.authorizer : undefined;
      case 'authorizer.requestResource':
        return this.b.authorizer ? this.b.values.requestResource : undefined;
      case 'variables':
        return this.lazy ?? CelMap.fromEntries([]);
      default:
        return undefined;
    }
  }
}

export interface EvaluationResult {
  /** Absent for an absent expression (a validation without messageExpression). */
  readonly present: boolean;
  readonly value?: CelValue;
  readonly error?: string;
  readonly errorType?: 'compile_error' | 'invalid_error' | 'out_of_budget';
  readonly elapsedSeconds: number;
}

/**
 * Evaluates expressions in order against one activation under a shared budget (kube's
 * condition.ForInput). `error` when the budget ran out: no further results are given.
 */
export async function forInput(slots: readonly Slot[], bindings: Bindings, budget: number): Promise<{ results: EvaluationResult[]; remaining: number; error?: string }> {
  const activation = new AdmissionActivation(bindings);
  const results: EvaluationResult[] = [];
  let remaining = budget;
  for (const slot of slots) {
    if (slot === undefined) {
      results.push({ present: false, elapsedSeconds: 0 });
      continue;
    }
    if (slot instanceof CompileError) {
      results.push({ present: true, error: `compilation error: ${slot.detail}`, errorType: 'compile_error', elapsedSeconds: 0 });
      continue;
    }
    const start = performance.now();
    const out = await evaluateExpression(slot, activation, { limit: PER_CALL_LIMIT, authz: bindings.authz });
    const elapsedSeconds = (performance.now() - start) / 1000;
    const composition = activation.lazy?.takeCost() ?? 0;
    if (composition > remaining) return { results, remaining: -1, error: OUT_OF_BUDGET };
    remaining -= composition;
    if (out.cost > remaining) return { results, remaining: -1, error: OUT_OF_BUDGET };
    remaining -= out.cost;
    if (out.error !== undefined) results.push({ present: true, error: `expression '${slot.expression}' resulted in error: ${out.error}`, errorType: 'invalid_error', elapsedSeconds });
    else results.push({ present: true, value: out.value, elapsedSeconds });
  }
  return { results, remaining };
}
